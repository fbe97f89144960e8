import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { alertSeverities, firedFromPromtool, inputSeries, judgeAlerts, noNodeExporterTicket, pageGroupBy, parseSamples, plantedCopyWarning, promtoolTest } from '../../../scripts/soak/alerts.js';

const scrape = (t: number, instance: string, text: string, up = true) => ({ t, job: 'ferry-agent', instance, site: 'site-a', up, text });

describe('the scraped metrics as promtool\'s input series', () => {
  it('parseSamples: samples with and without labels, comments skipped', () => {
    expect(parseSamples('# HELP x y\n# TYPE x gauge\nx 1\ny{check="glance"} 0 1700000000\n')).toEqual([
      { series: 'x', value: '1' }, { series: 'y{check="glance"}', value: '0' }]);
  });

  it('one column per scrape round, the target\'s labels added, stale after a scrape that failed, up 0 then', () => {
    const series = inputSeries([
      scrape(0, 'a:1', 'ferry_agent_health_check{check="glance"} 1\n'),
      scrape(15_000, 'a:1', '', false),
      scrape(30_000, 'a:1', 'ferry_agent_health_check{check="glance"} 0\n'),
    ], 15);
    expect(series).toEqual([
      { series: 'up{job="ferry-agent",instance="a:1",site="site-a"}', values: '1 0 1' },
      { series: 'ferry_agent_health_check{check="glance",job="ferry-agent",instance="a:1",site="site-a"}', values: '1 stale 0' },
    ]);
  });

  it('a series gone from the next scrape is stale there, as Prometheus marks it (not `_`: promtool would keep its value 5 min)', () => {
    const series = inputSeries([
      scrape(0, 'a:1', 'ferry_agent_health_check{check="probe"} 0\n'),
      scrape(15_000, 'a:1', 'ferry_agent_healthy 1\n'),
      scrape(30_000, 'a:1', 'ferry_agent_healthy 1\n'),
      scrape(30_000, 'b:1', 'ferry_agent_healthy 1\n'),
    ], 15);
    expect(series.find((row) => row.series.startsWith('ferry_agent_health_check'))?.values).toBe('0 stale _');
    expect(series.find((row) => row.series.startsWith('ferry_agent_healthy') && row.series.includes('b:1'))?.values).toBe('_ _ 1');
  });

  it('promtoolTest: the rules file, the series, an empty expectation per alert and minute', () => {
    const test = JSON.parse(promtoolTest('/r.yml', [{ series: 'up', values: '1' }], 15, ['A', 'B'], 2)) as { rule_files: string[]; tests: { alert_rule_test: unknown[] }[] };
    expect(test.rule_files).toEqual(['/r.yml']);
    expect(test.tests[0]!.alert_rule_test).toHaveLength(6);
  });
});

describe('what fired, judged against the outages', () => {
  const output = `  FAILED:
    alertname: FerryFleetCheckFailing, time: 12m,
        exp:[],
        got:[
            0:
              Labels:{alertname="FerryFleetCheckFailing", check="glance", job="ferry-agent", severity="critical", site="site-a"}
              Annotations:{summary="x"}
            ]
    alertname: FerryCopiesFailing, time: 1h2m,
        exp:[],
        got:[
            0:
              Labels:{alertname="FerryCopiesFailing", instance="a:1", severity="warning"}
              Annotations:{}
            ]
`;
  it('firedFromPromtool reads the alert, its minute and its labels', () => {
    expect(firedFromPromtool(output)).toEqual([
      { minute: 12, alertname: 'FerryFleetCheckFailing', labels: 'alertname="FerryFleetCheckFailing", check="glance", job="ferry-agent", severity="critical", site="site-a"' },
      { minute: 62, alertname: 'FerryCopiesFailing', labels: 'alertname="FerryCopiesFailing", instance="a:1", severity="warning"' },
    ]);
  });

  it('judgeAlerts: a firing within an outage (or 6 min after) is its, the rest false; pages are critical alerts once each', () => {
    const judged = judgeAlerts(firedFromPromtool(output), [{ kind: 'glance-outage', from: 6, to: 13 }], 62, new Set(['FerryFleetCheckFailing']));
    expect(judged.perOutage[0]).toMatchObject({ pages: 1, alerts: ['FerryFleetCheckFailing{check="glance", job="ferry-agent", severity="critical", site="site-a"}'] });
    expect(judged.falseAlarms).toEqual(['FerryCopiesFailing{instance="a:1", severity="warning"}']);
    expect(judged.stillFiring).toEqual(judged.falseAlarms);
  });
});

describe('pages: the notification groups of the shipped Alertmanager route', () => {
  const groupBy = pageGroupBy(parse(readFileSync('packaging/monitoring/ferry-alertmanager.yml', 'utf8')));
  const critical = new Set(['FerryFleetCheckFailing', 'FerryAgentUnhealthy']);
  const fleet = (minute: number, site: string, check = 'glance') => ({ minute, alertname: 'FerryFleetCheckFailing',
    labels: `alertname="FerryFleetCheckFailing", check="${check}", job="ferry-agent", severity="critical", site="${site}"` });

  it('pageGroupBy reads the pager route of packaging/monitoring/ferry-alertmanager.yml: alertname and check, not the site', () => {
    expect(groupBy).toEqual(['alertname', 'check']);
  });

  it.each([
    ['one central Glance outage failing the glance check at both sites: one page', [fleet(12, 'site-a'), fleet(12, 'site-b'), fleet(13, 'site-a')], 1],
    ['one site\'s OSD stop: one page', [fleet(12, 'site-a', 'pool')], 1],
    ['two different checks failing (glance, token): two pages', [fleet(12, 'site-a'), fleet(12, 'site-a', 'token')], 2],
    ['a node\'s own check beside the fleet\'s: another alert, another page',
      [fleet(12, 'site-a'), { minute: 12, alertname: 'FerryAgentUnhealthy', labels: 'alertname="FerryAgentUnhealthy", check="glance", instance="b:1", site="site-b"' }], 2],
    ['a warning is no page', [{ minute: 12, alertname: 'FerryCopiesFailing', labels: 'alertname="FerryCopiesFailing", instance="a:1", severity="warning"' }], 0],
  ])('%s', (_name, fired, pages) => {
    expect(judgeAlerts(fired, [{ kind: 'glance-outage', from: 6, to: 13 }], 30, critical, { groupBy }).perOutage[0]!.pages).toBe(pages);
  });

  it('pageGroupBy: a pager route without group_by inherits the top route\'s; no route, undefined', () => {
    expect(pageGroupBy({ route: { group_by: ['alertname'], routes: [{ matchers: ['severity="critical"'] }] } })).toEqual(['alertname']);
    expect(pageGroupBy({ route: { group_by: ['site'], routes: [{ matchers: ['severity="ticket"'], group_by: ['x'] }] } })).toEqual(['site']);
    expect(pageGroupBy({})).toBeUndefined();
  });
});

describe('a planted copy: FerryCopiesFailing with FERRY_COPY_TARGET_EXISTS may fire from the planting to 12 min after its removal', () => {
  const exists = (minute: number, site = 'site-a', outcome = 'FERRY_COPY_TARGET_EXISTS') => ({ minute, alertname: 'FerryCopiesFailing',
    labels: `alertname="FerryCopiesFailing", instance="a:1", job="ferry-agent", outcome="${outcome}", severity="warning", site="${site}"` });
  const planted = (removedAt: number | undefined, lastMinute: number) => [plantedCopyWarning({ site: 'site-a', from: 20, removedAt }, lastMinute)];
  it.each([
    ['firing after the planting, cleared 12 min after the removal: expected, no problem', [exists(26), exists(34)], planted(24, 60), 60, [], [], 1],
    ['still firing 13 min after the removal: false', [exists(26), exists(37)], planted(24, 60), 60, ['FerryCopiesFailing'], [], 1],
    ['before the planting: false', [exists(15)], planted(24, 60), 60, ['FerryCopiesFailing'], [], 0],
    ['at the other site: false', [exists(26, 'site-b')], planted(24, 60), 60, ['FerryCopiesFailing'], [], 0],
    ['another outcome: false', [exists(26, 'site-a', 'FERRY_COPY_FAILED')], planted(24, 60), 60, ['FerryCopiesFailing'], [], 0],
    ['never removed, firing at the end: did not clear', [exists(26), exists(60)], planted(undefined, 60), 60, [], ['FerryCopiesFailing'], 1],
    ['removed, the run ended within its 12 min: not yet due to clear', [exists(26), exists(30)], planted(24, 30), 30, [], [], 1],
  ])('%s', (_name, fired, expected, last, falseAlarms, stillFiring, expectedFired) => {
    const judged = judgeAlerts(fired, [], last, new Set(), { expected });
    expect(judged.falseAlarms.map((a) => a.slice(0, a.indexOf('{')))).toEqual(falseAlarms);
    expect(judged.stillFiring.map((a) => a.slice(0, a.indexOf('{')))).toEqual(stillFiring);
    expect(judged.expectedFired).toHaveLength(expectedFired);
  });
});

describe('alertSeverities', () => {
  it('reads every alert of the shipped rules with its severity', async () => {
    const { readFileSync } = await import('node:fs');
    const severities = alertSeverities(readFileSync('packaging/monitoring/ferry-alerts.yml', 'utf8'));
    expect(severities.get('FerryFleetCheckFailing')).toBe('critical');
    expect(severities.get('FerryCopiesFailing')).toBe('warning');
    expect([...severities.values()].every((s) => ['critical', 'warning', 'ticket'].includes(s))).toBe(true);
  });
});

describe('the soak\'s missing node_exporter', () => {
  it('FerryAgentUnitStateMissing for a soak node is expected, also at the end; for another host it is a false alarm', () => {
    const fired = [60, 61].map((minute) => ({ minute, alertname: 'FerryAgentUnitStateMissing', labels: 'alertname="FerryAgentUnitStateMissing", host="soak-site-b-0", severity="ticket"' }));
    const judged = judgeAlerts(fired, [], 61, new Set(), { expected: [noNodeExporterTicket('soak-site-b-0')] });
    expect(judged).toMatchObject({ falseAlarms: [], stillFiring: [], expectedFired: ['FerryAgentUnitStateMissing{host="soak-site-b-0", severity="ticket"}'] });
    expect(judgeAlerts(fired, [], 61, new Set(), { expected: [noNodeExporterTicket('soak-site-a-0')] }).falseAlarms).toHaveLength(1);
  });
});
