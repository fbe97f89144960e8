import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findPromtool, promtool } from '../../helpers/promtool.js';

// promtool is a Debian package (prometheus), not an npm one: scripts/monitoring/ensure-promtool installs it, so this
// lives with the tests that need the machine (the integration project), not with the unit tests.
const tool = findPromtool();
const dir = join(process.cwd(), 'packaging/monitoring');

describe.skipIf(tool.path === undefined)(`packaging/monitoring under promtool${tool.reason === '' ? '' : ` (SKIPPED: ${tool.reason})`}`, () => {
  it('promtool check rules packaging/monitoring/ferry-alerts.yml: 15 rules, no error', () => {
    const run = promtool(tool.path ?? '', ['check', 'rules', join(dir, 'ferry-alerts.yml')]);
    expect(run.output).toContain('SUCCESS: 15 rules found');
    expect(run.code).toBe(0);
  });

  it('promtool test rules packaging/monitoring/ferry-alerts.test.yml: every alert fires where it should and only there', () => {
    const run = promtool(tool.path ?? '', ['test', 'rules', join(dir, 'ferry-alerts.test.yml')]);
    expect(run.output).toMatch(/SUCCESS$/);
    expect(run.output).not.toContain('FAILED');
    expect(run.code).toBe(0);
  });
});
