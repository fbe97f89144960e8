import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { callAgent } from '../../../src/agent/agent-client.js';
import { markReached } from '../../helpers/devcloud.js';
import { findPromtool, promtool, PROMTOOL_MS } from '../../helpers/promtool.js';
import { INTEGRATION_TEST_MS } from '../../helpers/spawn-budget.js';
import {
  cannotRunSystemd, COMMAND_MS, ctl, downIfStartedHere, initPid, insidePath, installDropIn, removeDropIn, show, SYSTEMD_DOWN_MS, systemdUp,
  UNIT_JOB_MS,
} from '../systemd/private-systemd.js';

// What FerryAgentDown reads, from the real thing: Debian's node_exporter (systemd collector) on the private systemd of
// scripts/systemd/up, the shipped ferry-agent.socket and .service, and a real scrape of the agent's --metrics-listen
// port. The series scraped in each state are fed to promtool with packaging/monitoring/ferry-alerts.yml, held for
// 20 minutes: an idle node after a reboot (socket only) pages nothing; a stopped socket pages FerryAgentDown.

const NODE_EXPORTER_PORT = 24190;
const AGENT_METRICS = '127.0.0.1:24191';
const NODE_EXPORTER_UNIT = 'ferry-test-node-exporter.service';
const DROP_IN = '/etc/systemd/system/ferry-agent.service.d/zz-metrics-listen.conf';
const RULES = join(process.cwd(), 'packaging/monitoring/ferry-alerts.yml');

const reason = cannotRunSystemd();
const tool = findPromtool();
const exporter = spawnSync('bash', [join(process.cwd(), 'scripts/monitoring/ensure-node-exporter')], { encoding: 'utf8', timeout: 900_000 });
const exporterPath = exporter.status === 0 ? exporter.stdout.trim().split('\n').at(-1) : undefined;
const skip = reason !== '' ? reason : tool.path === undefined ? tool.reason
  : exporterPath === undefined ? `node_exporter unavailable: ${exporter.stderr.trim()}` : '';
if (skip !== '' && process.env.FERRY_REQUIRE_INTEGRATION === '1') throw new Error(`FERRY_REQUIRE_INTEGRATION=1 and ${skip}`);

let startedHere = false;
let work = '';

/** node_exporter's ferry-agent.* series, as `name{labels} value` lines with Prometheus's own labels added. */
async function unitSeries(): Promise<{ series: string; value: number }[]> {
  const text = await (await fetch(`http://127.0.0.1:${NODE_EXPORTER_PORT}/metrics`)).text();
  return text.split('\n').filter((line) => line.startsWith('node_systemd_unit_state{name="ferry-agent.')).map((line) => {
    const at = line.lastIndexOf(' ');
    return { series: line.slice(0, at).replace('{', `{job="node",instance="127.0.0.1:${NODE_EXPORTER_PORT}",`), value: Number(line.slice(at + 1)) };
  });
}

/** What Prometheus's `up` of the agent's target would be now: whether its /metrics answers 200. */
async function agentUp(): Promise<number> {
  const answer = await fetch(`http://${AGENT_METRICS}/metrics`, { signal: AbortSignal.timeout(5000) }).catch(() => undefined);
  return answer?.status === 200 ? 1 : 0;
}

interface ExpectedAlert { readonly labels: Readonly<Record<string, string>>; readonly summary: string }

/** An alert's annotations as promtool compares them: the rule's own description and runbook_url, and the summary given. */
function annotationsOf(alertname: string, summary: string): Record<string, string> {
  const rule = (parseYaml(readFileSync(RULES, 'utf8')) as { groups: { rules: { alert?: string; annotations?: Record<string, string> }[] }[] })
    .groups.flatMap((group) => group.rules).find((candidate) => candidate.alert === alertname);
  return { ...rule?.annotations, summary };
}

/** The alerts of ferry-alerts.yml after 20 minutes of what was scraped now: promtool's verdict on `expected`. */
async function verdictAfter20Minutes(expected: Record<string, readonly ExpectedAlert[]>): Promise<{ code: number; output: string; input: string }> {
  const series = [...(await unitSeries()).map(({ series, value }) => ({ series, values: `${value}x20` })),
    { series: `up{job="ferry-agent",instance="${AGENT_METRICS}"}`, values: `${await agentUp()}x20` }];
  const test = { rule_files: [RULES], evaluation_interval: '1m', tests: [{ interval: '1m', input_series: series,
    alert_rule_test: Object.entries(expected).map(([alertname, labels]) => ({ eval_time: '20m', alertname,
      exp_alerts: labels.map((exp) => ({ exp_labels: exp.labels, exp_annotations: annotationsOf(alertname, exp.summary) })) })) }] };
  const file = join(work, 'scraped.test.yml');
  writeFileSync(file, toYaml(test));
  return { ...promtool(tool.path ?? '', ['test', 'rules', file]), input: series.map(({ series: s, values }) => `${s} ${values}`).join('\n') };
}

const systemctl = (...args: string[]) => ctl(['systemctl', ...args]);

describe.skipIf(skip !== '')(`FerryAgentDown on a real socket-activated agent${skip === '' ? '' : ` (SKIPPED: ${skip})`}`, () => {
  beforeAll(async () => {
    startedHere = initPid() === undefined;
    systemdUp();
    work = mkdtempSync(join(tmpdir(), 'ferry-agent-down-'));
    // The agent's metrics port, as an operator's /etc/default/ferry-agent would set it.
    const dropIn = join(work, 'metrics-listen.conf');
    writeFileSync(dropIn, `[Service]\nEnvironment=FERRY_AGENT_METRICS_LISTEN=${AGENT_METRICS}\n`);
    installDropIn(dropIn, DROP_IN);
    // node_exporter inside the private systemd, reading it over systemd's private socket (no D-Bus there).
    const run = ctl(['systemd-run', `--unit=${NODE_EXPORTER_UNIT}`, exporterPath ?? '', '--collector.disable-defaults', '--collector.systemd',
      '--collector.systemd.private', '--collector.systemd.unit-include=ferry-agent\\.(socket|service)', `--web.listen-address=127.0.0.1:${NODE_EXPORTER_PORT}`]);
    if (run.code !== 0) throw new Error(`systemd-run node_exporter: ${run.stderr}`);
    for (let i = 0; i < 50 && (await unitSeries().catch(() => [])).length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 200));
  }, 300_000);

  afterAll(() => {
    systemctl('stop', NODE_EXPORTER_UNIT);
    removeDropIn(DROP_IN, ['ferry-agent.service', 'ferry-agent.socket']);
    systemctl('disable', 'ferry-agent.socket');
    systemctl('reset-failed', 'ferry-agent.service');
    if (work !== '') rmSync(work, { recursive: true, force: true });
    downIfStartedHere(startedHere);
  }, 3 * UNIT_JOB_MS + 3 * COMMAND_MS + SYSTEMD_DOWN_MS);

  it('a node after a reboot, never asked: socket listening, agent not running, its metrics port closed → no FerryAgentDown, no FerryAgentNotScraped', async () => {
    // What the package leaves at boot: the socket enabled and started, the service started by the first request.
    systemctl('stop', 'ferry-agent.service', 'ferry-agent.socket');
    systemctl('reset-failed', 'ferry-agent.service');
    expect(systemctl('enable', '--now', 'ferry-agent.socket').code).toBe(0);
    expect(show('ferry-agent.service', ['ActiveState']).ActiveState).toBe('inactive');
    expect(await agentUp()).toBe(0);
    expect((await unitSeries()).filter(({ value }) => value === 1).map(({ series }) => /name="([^"]+)",state="([^"]+)"/.exec(series)?.slice(1).join(' ')))
      .toEqual(['ferry-agent.service inactive', 'ferry-agent.socket active']);
    const verdict = await verdictAfter20Minutes({ FerryAgentDown: [], FerryAgentNotScraped: [], FerryAgentUnitStateMissing: [] });
    expect(verdict.output, verdict.input).toMatch(/SUCCESS$/);
    markReached('systemd');
  }, INTEGRATION_TEST_MS + 2 * UNIT_JOB_MS + 2 * COMMAND_MS + PROMTOOL_MS);

  it('the first request starts the agent and its port answers → still no alert', async () => {
    const health = await callAgent(insidePath('/run/ferry/agent.sock'), { method: 'GET', path: '/healthz' });
    expect([200, 503]).toContain(health.status);
    expect(show('ferry-agent.service', ['ActiveState']).ActiveState).toBe('active');
    for (let i = 0; i < 50 && (await agentUp()) === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await agentUp()).toBe(1);
    const verdict = await verdictAfter20Minutes({ FerryAgentDown: [], FerryAgentNotScraped: [], FerryAgentUnitStateMissing: [] });
    expect(verdict.output, verdict.input).toMatch(/SUCCESS$/);
  }, 120_000);

  // Stopped but still enabled, as an operator's `systemctl stop` leaves it: the unit stays loaded, node_exporter reports
  // it inactive. (Stopped and disabled, systemd unloads both units and node_exporter reports neither: a node taken out.)
  it('the socket stopped (nova finds nothing) → FerryAgentDown on ferry-agent.socket', async () => {
    expect(systemctl('stop', 'ferry-agent.socket', 'ferry-agent.service').code).toBe(0);
    expect(await agentUp()).toBe(0);
    const verdict = await verdictAfter20Minutes({ FerryAgentDown: [{ labels: { severity: 'critical', job: 'node',
      instance: `127.0.0.1:${NODE_EXPORTER_PORT}`, name: 'ferry-agent.socket' },
    summary: `ferry agent on 127.0.0.1:${NODE_EXPORTER_PORT} is down: ferry-agent.socket is not listening` }], FerryAgentNotScraped: [] });
    expect(verdict.output, verdict.input).toMatch(/SUCCESS$/);
  }, INTEGRATION_TEST_MS + UNIT_JOB_MS + PROMTOOL_MS);
});
