// packaging/monitoring/ferry-alertmanager.yml under amtool (Debian's prometheus-alertmanager, installed by
// scripts/monitoring/ensure-amtool when missing): a valid configuration, and each severity routed to its receiver.
// Which labels a page groups by is the soak judge's, read from the same file (test/unit/soak/alerts.test.ts).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** ensure-amtool: apt-get update and install when missing (minutes on a loaded machine), else a `command -v`. */
const ENSURE_MS = 900_000;
/** One amtool run: it reads the file it is given, nothing else. */
const AMTOOL_MS = 30_000;
const CONFIG = join(process.cwd(), 'packaging/monitoring/ferry-alertmanager.yml');

function findAmtool(): { path: string | undefined; reason: string } {
  const run = spawnSync('bash', [join(process.cwd(), 'scripts/monitoring/ensure-amtool')], { encoding: 'utf8', timeout: ENSURE_MS });
  const path = run.status === 0 ? run.stdout.trim().split('\n').at(-1) : undefined;
  if (path) return { path, reason: '' };
  const reason = `amtool unavailable: ${(run.stderr || 'ensure-amtool failed').trim().split('\n').slice(-2).join(' ')}`;
  if (process.env.FERRY_REQUIRE_INTEGRATION === '1') throw new Error(`FERRY_REQUIRE_INTEGRATION=1 and ${reason}`);
  return { path: undefined, reason };
}

const tool = findAmtool();

function amtool(args: readonly string[]): { code: number; output: string } {
  const run = spawnSync(tool.path ?? '', args, { encoding: 'utf8', timeout: AMTOOL_MS });
  return { code: run.status ?? -1, output: `${run.stdout}${run.stderr}`.trim() };
}

describe.skipIf(tool.path === undefined)(`packaging/monitoring/ferry-alertmanager.yml under amtool${tool.reason === '' ? '' : ` (SKIPPED: ${tool.reason})`}`, () => {
  it('amtool check-config: valid, its route, the inhibit rule and three receivers', () => {
    const run = amtool(['check-config', CONFIG]);
    expect(run.output).toContain('SUCCESS');
    expect(run.output).toContain('1 inhibit rules');
    expect(run.output).toContain('3 receivers');
    expect(run.code).toBe(0);
  }, AMTOOL_MS);

  it.each([
    ['a fleet check failing (critical) pages', ['alertname=FerryFleetCheckFailing', 'severity=critical', 'site=site-a', 'check=glance'], 'ferry-pager'],
    ['an agent down (critical) pages', ['alertname=FerryAgentDown', 'severity=critical', 'instance=c1:9100'], 'ferry-pager'],
    ['failing copies (warning) go to the team', ['alertname=FerryCopiesFailing', 'severity=warning', 'outcome=FERRY_COPY_TARGET_EXISTS'], 'ferry-team'],
    ['a broken nova integration (ticket) is a ticket', ['alertname=FerryNovaIntegrationBroken', 'severity=ticket'], 'ferry-tickets'],
  ])('amtool config routes test: %s', (_name, labels, receiver) => {
    const run = amtool(['config', 'routes', 'test', `--config.file=${CONFIG}`, `--verify.receivers=${receiver}`, ...labels]);
    expect(run.output.split('\n').filter((line) => !line.startsWith('Warning:'))).toEqual([receiver]);
    expect(run.code).toBe(0);
  }, AMTOOL_MS);
});
