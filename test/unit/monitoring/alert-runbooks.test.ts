import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { headingAnchors } from '../../helpers/markdown-anchors.js';

interface Rule { readonly alert?: string; readonly record?: string; readonly annotations?: Readonly<Record<string, string>> }

/** Where every alert's runbook_url points: docs/runbooks.md as the project publishes it, one section per alert. */
const RUNBOOKS = 'https://github.com/ferry/ferry/blob/main/docs/runbooks.md';

const alerts = (parseYaml(readFileSync('packaging/monitoring/ferry-alerts.yml', 'utf8')) as { groups: { rules: Rule[] }[] })
  .groups.flatMap((group) => group.rules).filter((rule) => rule.alert !== undefined);

const runbooks = readFileSync('docs/runbooks.md', 'utf8');
const anchors = headingAnchors(runbooks);
/** The alert sections: `## FerryAgentDown`. */
const alertSections = runbooks.split('\n').filter((line) => /^## Ferry\w+$/.test(line)).map((line) => line.slice(3));

describe('packaging/monitoring/ferry-alerts.yml: runbooks', () => {
  it('runbooks: every alert has a runbook_url, docs/runbooks.md#<its name in lower case>', () => {
    const wrong = alerts.filter((rule) => rule.annotations?.runbook_url !== `${RUNBOOKS}#${(rule.alert ?? '').toLowerCase()}`)
      .map((rule) => `${rule.alert}: ${rule.annotations?.runbook_url ?? 'no runbook_url'}`);
    expect(wrong).toEqual([]);
    expect(alerts.length).toBeGreaterThanOrEqual(10);
  });

  it('runbooks: every runbook_url anchor is a section of docs/runbooks.md', () => {
    const missing = alerts.map((rule) => (rule.annotations?.runbook_url ?? '').split('#')[1] ?? '').filter((anchor) => !anchors.has(anchor));
    expect(missing).toEqual([]);
  });

  it('runbooks: every alert section of docs/runbooks.md is an alert of the rules (none left behind by a rename)', () => {
    const names = new Set(alerts.map((rule) => rule.alert));
    expect(alertSections.filter((heading) => !names.has(heading))).toEqual([]);
    expect(alertSections).toHaveLength(alerts.length);
  });
});
