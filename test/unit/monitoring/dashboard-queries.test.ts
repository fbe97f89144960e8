import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { createAgentMetrics } from '../../../src/agent/agent-metrics.js';
import { createEvictMetrics } from '../../../src/evict/evict-metrics.js';
import { createSyncMetrics } from '../../../src/sync/sync-metrics.js';
import { grafanaVariableMetricNames, promqlMetricNames } from '../../helpers/promql-metric-names.js';

interface Panel { readonly title?: string; readonly type: string; readonly targets?: readonly { readonly expr?: string }[]; readonly panels?: readonly Panel[] }
interface Dashboard {
  readonly panels: readonly Panel[];
  readonly templating: { readonly list: readonly { readonly name: string; readonly type: string; readonly query?: string | { readonly query: string } }[] };
}

/** Every series name the real registries of the agent, the sync watch and ferry evict's --metrics-file expose (a histogram as its _bucket/_sum/_count). */
async function exportedSeriesNames(): Promise<Set<string>> {
  const metrics = [...await createAgentMetrics().registry.getMetricsAsJSON(), ...await createSyncMetrics().registry.getMetricsAsJSON(),
    ...await createEvictMetrics().registry.getMetricsAsJSON()];
  return new Set(metrics.flatMap((metric) => (String(metric.type) === 'histogram' || String(metric.type) === 'summary'
    ? [`${metric.name}_bucket`, `${metric.name}_sum`, `${metric.name}_count`, metric.name] : [metric.name])));
}

const dashboard = JSON.parse(readFileSync('packaging/monitoring/ferry-dashboard.json', 'utf8')) as Dashboard;
const allPanels = (panels: readonly Panel[]): Panel[] => panels.flatMap((panel) => [panel, ...allPanels(panel.panels ?? [])]);
const queries = allPanels(dashboard.panels).flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel: panel.title ?? '', expr: target.expr ?? '' })));

describe('promqlMetricNames', () => {
  it.each([
    { expr: 'up', names: ['up'] },
    { expr: 'sum by (le, store) (rate(ferry_agent_time_to_available_seconds_bucket{source!="present",instance=~"$instance"}[$__rate_interval]))',
      names: ['ferry_agent_time_to_available_seconds_bucket'] },
    { expr: 'histogram_quantile(0.95, sum without (pod) (rate(a_bucket[5m]))) > 300', names: ['a_bucket'] },
    { expr: 'a / on (instance) group_left (version) b or c unless d', names: ['a', 'b', 'c', 'd'] },
    { expr: 'time() - max by (instance) (x_seconds offset 5m)', names: ['x_seconds'] },
    { expr: '{__name__="ferry_sync_healthy", job="s"} == bool 0', names: ['ferry_sync_healthy'] },
    { expr: 'label_replace(m, "dst", "$1", "src", "(.*)")', names: ['m'] },
    { expr: 'rate(m{path="/metrics by (x)"}[${__range}])', names: ['m'] },
    { expr: 'sum(rate(nope_total[1h:5m]))', names: ['nope_total'] },
    { expr: '1 + 2', names: [] },
  ])('promqlMetricNames($expr)', ({ expr, names }) => {
    expect(promqlMetricNames(expr)).toEqual(names);
  });

  it.each([
    { query: 'label_values(ferry_agent_build_info, instance)', names: ['ferry_agent_build_info'] },
    { query: 'label_values(ferry_agent_build_info{job="ferry-agent"}, instance)', names: ['ferry_agent_build_info'] },
    { query: 'label_values(instance)', names: [] },
    { query: 'query_result(count by (version) (ferry_agent_build_info))', names: ['ferry_agent_build_info'] },
  ])('grafanaVariableMetricNames($query)', ({ query, names }) => {
    expect(grafanaVariableMetricNames(query)).toEqual(names);
  });
});

describe('packaging/monitoring/ferry-dashboard.json', () => {
  it('dashboard: every panel but rows has a query, and every query names at least one metric', () => {
    const panels = allPanels(dashboard.panels).filter((panel) => panel.type !== 'row');
    expect(panels.length).toBeGreaterThanOrEqual(23);
    expect(panels.filter((panel) => (panel.targets ?? []).length === 0).map((panel) => panel.title)).toEqual([]);
    expect(queries.filter(({ expr }) => promqlMetricNames(expr).length === 0)).toEqual([]);
  });

  it('dashboard: every metric a query names is one the agent, the sync watch or ferry evict exports (from the real registries)', async () => {
    const exported = await exportedSeriesNames();
    const unknown = queries.flatMap(({ panel, expr }) => promqlMetricNames(expr).filter((name) => !exported.has(name)).map((name) => `${panel}: ${name}`));
    const variables = dashboard.templating.list.filter((variable) => variable.type === 'query')
      .flatMap((variable) => grafanaVariableMetricNames(typeof variable.query === 'string' ? variable.query : variable.query?.query ?? '')
        .filter((name) => !exported.has(name)).map((name) => `$${variable.name}: ${name}`));
    expect([...unknown, ...variables]).toEqual([]);
  });

  it('dashboard: the new agent metrics and the sync watch have panels', () => {
    const named = new Set(queries.flatMap(({ expr }) => promqlMetricNames(expr)));
    for (const name of ['ferry_agent_build_info', 'ferry_agent_healthy', 'ferry_agent_copied_bytes_total', 'ferry_agent_time_to_available_seconds_bucket',
      'ferry_agent_waits_in_flight', 'ferry_agent_max_waits', 'process_resident_memory_bytes', 'ferry_sync_passes_total', 'ferry_sync_copies_total',
      'ferry_sync_drift_pairs', 'ferry_agent_health_check', 'ferry_agent_nova_integration', 'ferry_agent_fsid_source']) expect(named).toContain(name);
  });

  it('dashboard: the store budgets have panels, from sync\'s passes and from ferry evict\'s runs alike', () => {
    const named = new Set(queries.flatMap(({ expr }) => promqlMetricNames(expr)));
    const budgets = ['store_bytes', 'store_budget_bytes', 'store_kept_bytes'];
    for (const name of [...budgets.flatMap((suffix) => [`ferry_sync_${suffix}`, `ferry_evict_${suffix}`]), 'ferry_sync_evictions_total', 'ferry_evict_evictions']) {
      expect(named).toContain(name);
    }
  });
});

describe('packaging/monitoring/ferry-alerts.yml', () => {
  const rules = (parseYaml(readFileSync('packaging/monitoring/ferry-alerts.yml', 'utf8')) as
    { groups: { rules: { alert?: string; record?: string; expr: string }[] }[] }).groups.flatMap((group) => group.rules);
  /** Series the rules read that ferry does not export: Prometheus's `up`, node_exporter's systemd collector, the package's nova check. */
  const OTHERS = ['up', 'node_systemd_unit_state', 'ferry_agent_nova_integration_stale'];

  it('alert rules: the fleet, the agent, nova, sync and the store budgets', () => {
    expect(rules.map((rule) => rule.alert ?? rule.record)).toEqual(['ferry:fleet_check_failing', 'FerryFleetCheckFailing', 'FerryAgentDown',
      'FerryAgentUnhealthy', 'FerryAgentNotScraped', 'FerryAgentUnitStateMissing', 'FerryAgentFsidUnconfirmed', 'FerryCopiesFailing',
      'FerryTimeToAvailableHigh', 'FerryAgentWaitsSaturated', 'FerryNovaIntegrationBroken', 'FerryNovaComputeStale', 'FerrySyncFailing',
      'FerrySyncDriftStuck', 'FerryStoreOverBudget']);
  });

  it('alert rules: every metric an expression names is exported, recorded by the rules, or one of the others named', async () => {
    const known = new Set([...await exportedSeriesNames(), ...OTHERS, ...rules.flatMap((rule) => (rule.record === undefined ? [] : [rule.record]))]);
    const unknown = rules.flatMap((rule) => promqlMetricNames(rule.expr).filter((name) => !known.has(name))
      .map((name) => `${rule.alert ?? rule.record}: ${name}`));
    expect(unknown).toEqual([]);
  });
});
