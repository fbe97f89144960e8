import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createHealthProbe } from '../../../src/agent/agent-health.js';
import { createAgentMetrics, TIME_TO_AVAILABLE_BUCKETS } from '../../../src/agent/agent-metrics.js';
import type { HostHealth, HostService } from '../../../src/host/host-service.js';
import { FERRY_VERSION } from '../../../src/metrics/ferry-version.js';
import { fakeClock } from '../../helpers/fake-clock.js';

/** `| \`name\` | type | …` rows of a markdown table: the documented metrics. */
function documentedMetrics(file: string, prefix: string): Map<string, string> {
  const rows = readFileSync(file, 'utf8').split('\n').map((line) => new RegExp(`^\\| \`(${prefix}[a-z_]+)\` \\| (\\w+) \\|`).exec(line));
  return new Map(rows.flatMap((match) => (match ? [[match[1] ?? '', match[2] ?? ''] as const] : [])));
}

async function exported(): Promise<Map<string, string>> {
  const metrics = createAgentMetrics();
  return new Map((await metrics.registry.getMetricsAsJSON()).map((metric) => [metric.name, String(metric.type)]));
}

describe('agent metrics: names and types', () => {
  it('agent metrics: every ferry_agent_* metric is in docs/agent.md with its type, and every documented one exists', async () => {
    const real = new Map([...(await exported())].filter(([name]) => name.startsWith('ferry_agent_')));
    expect(real.size).toBeGreaterThanOrEqual(13);
    expect(Object.fromEntries(real)).toEqual(Object.fromEntries(documentedMetrics('docs/agent.md', 'ferry_agent_')));
  });

  it('agent metrics: every one of ferry\'s own is named ferry_agent_* (the rest are prom-client\'s process_ and nodejs_ defaults)', async () => {
    const names = [...(await exported()).keys()];
    expect(names.filter((name) => !/^(ferry_agent_|process_|nodejs_)/.test(name))).toEqual([]);
  });

  it('agent metrics: prom-client defaults keep their standard names (no ferry_agent_ prefix)', async () => {
    const names = [...(await exported()).keys()];
    expect(names).toEqual(expect.arrayContaining(['process_cpu_seconds_total', 'process_resident_memory_bytes', 'process_start_time_seconds',
      'process_open_fds', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes', 'nodejs_gc_duration_seconds', 'nodejs_version_info',
      'nodejs_active_handles']));
    expect(names.filter((name) => /^ferry_agent_(process|nodejs)_/.test(name))).toEqual([]);
  });

  it('agent metrics: no gauge (or histogram) ends in _total, every counter does', async () => {
    const types = await exported();
    expect([...types].filter(([name, type]) => type !== 'counter' && name.endsWith('_total'))).toEqual([]);
    expect([...types].filter(([name, type]) => type === 'counter' && !name.endsWith('_total'))).toEqual([]);
  });

  it('agent metrics: build_info is 1 with ferry\'s version (package.json) and the running Node', async () => {
    const metrics = createAgentMetrics({ processMetrics: false });
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(FERRY_VERSION).toBe(pkg.version);
    const text = await metrics.registry.getSingleMetricAsString('ferry_agent_build_info');
    expect(text).toContain(`ferry_agent_build_info{version="${pkg.version}",node_version="${process.versions.node}",`
      + `platform="${process.platform}",arch="${process.arch}"} 1`);
  });

  it('agent metrics: time to available buckets go from 10 ms to 30 min, ascending', () => {
    expect(TIME_TO_AVAILABLE_BUCKETS[0]).toBe(0.01);
    expect(TIME_TO_AVAILABLE_BUCKETS.at(-1)).toBe(1800);
    expect([...TIME_TO_AVAILABLE_BUCKETS].sort((a, b) => a - b)).toEqual([...TIME_TO_AVAILABLE_BUCKETS]);
  });
});

describe('agent health probe and the healthy gauge', () => {
  const good: HostHealth = { token: { ok: true }, glance: { ok: true }, fsid: { ok: true, fsid: 'f' }, transfer: { ok: true } };
  const bad: HostHealth = { ...good, glance: { ok: false, code: 'FERRY_UNREACHABLE', message: 'refused' } };
  function serviceAnswering(answers: (HostHealth | Error)[]): HostService & { calls: number } {
    const service = {
      calls: 0,
      defaultStore: () => 'site-b',
      ensure: () => Promise.reject(new Error('not here')),
      status: () => Promise.reject(new Error('not here')),
      health: () => {
        const answer = answers[Math.min(service.calls, answers.length - 1)];
        service.calls += 1;
        return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer as HostHealth);
      },
    };
    return service;
  }
  const gauge = async (metrics: ReturnType<typeof createAgentMetrics>): Promise<string> =>
    (await metrics.registry.getSingleMetricAsString('ferry_agent_healthy')).split('\n').at(-1) ?? '';

  it('health probe: check() names the failing checks and sets the gauge', async () => {
    const metrics = createAgentMetrics({ processMetrics: false });
    const probe = createHealthProbe({ service: serviceAnswering([bad, good]), metrics, timeoutMs: 1000, clock: fakeClock() });
    expect(await probe.check()).toEqual({ ok: false, failing: ['glance'], checks: { ...bad, stores: { ok: true } } });
    expect(await gauge(metrics)).toBe('ferry_agent_healthy 0');
    expect(await probe.check()).toEqual({ ok: true, failing: [], checks: { ...good, stores: { ok: true } } });
    expect(await gauge(metrics)).toBe('ferry_agent_healthy 1');
  });

  it('health probe: a nova patch that no longer applies fails /healthz and shows in ferry_agent_nova_integration', async () => {
    const metrics = createAgentMetrics({ processMetrics: false });
    const lost: HostHealth = { ...good, nova_integration: { ok: false, state: 'failed', code: 'FERRY_NOVA_INTEGRATION', message: 'no longer applies' } };
    const applied: HostHealth = { ...good, nova_integration: { ok: true, state: 'applied' } };
    const probe = createHealthProbe({ service: serviceAnswering([lost, applied, good]), metrics, timeoutMs: 1000, clock: fakeClock() });
    const series = async (): Promise<string> => (await metrics.registry.getSingleMetricAsString('ferry_agent_nova_integration'))
      .split('\n').filter((line) => !line.startsWith('#')).join(' ');
    expect(await probe.check()).toMatchObject({ ok: false, failing: ['nova_integration'] });
    expect(await series()).toBe('ferry_agent_nova_integration{state="failed"} 1');
    expect(await probe.check()).toMatchObject({ ok: true });
    expect(await series()).toBe('ferry_agent_nova_integration{state="applied"} 1');
    // a host without the package's state file has no series at all
    await probe.check();
    expect(await series()).toBe('');
  });

  const seriesOf = async (metrics: ReturnType<typeof createAgentMetrics>, name: string): Promise<string[]> =>
    (await metrics.registry.getSingleMetricAsString(name)).split('\n').filter((line) => line !== '' && !line.startsWith('#'));

  it('health probe: a failed nova patch is its own metric, not ferry_agent_healthy: one nova upgrade must not read as "agent down"', async () => {
    const metrics = createAgentMetrics({ processMetrics: false });
    const lost: HostHealth = { ...good, nova_integration: { ok: false, state: 'failed', code: 'FERRY_NOVA_INTEGRATION', message: 'no longer applies' } };
    const probe = createHealthProbe({ service: serviceAnswering([lost, { ...lost, glance: bad.glance }]), metrics, timeoutMs: 1000, clock: fakeClock() });
    // /healthz still names it (the socket's report and the TCP verdict) ...
    expect(await probe.check()).toMatchObject({ ok: false, failing: ['nova_integration'] });
    // ... but the agent itself answers nova: healthy, with the failing check in its own series
    expect(await gauge(metrics)).toBe('ferry_agent_healthy 1');
    expect(await seriesOf(metrics, 'ferry_agent_health_check')).toContain('ferry_agent_health_check{check="nova_integration"} 0');
    await probe.check();
    expect(await gauge(metrics)).toBe('ferry_agent_healthy 0');
  });

  it('health probe: checks that never settle (one ignored the signal) → unhealthy "probe" by the timeout, and the next scrape checks again — not a scrape hung for good', async () => {
    const clock = fakeClock();
    const metrics = createAgentMetrics({ processMetrics: false });
    let calls = 0;
    const service = { ...serviceAnswering([good]), health: () => { calls += 1; return new Promise<HostHealth>(() => {}); } };
    const probe = createHealthProbe({ service, metrics, timeoutMs: 50, maxAgeMs: 30_000, clock });
    metrics.refreshHealthOnScrape(async () => (await probe.recent()).ok);
    // The test's own bound: without one, a hung probe hangs the test until vitest's limit, not a verdict.
    const scrape = (): Promise<string[] | 'hung'> => Promise.race([seriesOf(metrics, 'ferry_agent_health_check'),
      new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 2_000))]);
    expect(await scrape()).toEqual(['ferry_agent_health_check{check="probe"} 0']);
    clock.advance(30_000);
    expect(await scrape()).toEqual(['ferry_agent_health_check{check="probe"} 0']);
    expect(calls).toBe(2);
  }, 10_000);

  it('health probe: ferry_agent_health_check has one series per check, 1 passing and 0 failing; a probe that threw is check="probe"', async () => {
    const clock = fakeClock();
    const metrics = createAgentMetrics({ processMetrics: false });
    const probe = createHealthProbe({ service: serviceAnswering([bad, new Error('boom')]), metrics, timeoutMs: 1000, maxAgeMs: 30_000, clock });
    metrics.refreshHealthOnScrape(async () => (await probe.recent()).ok);
    expect(await seriesOf(metrics, 'ferry_agent_health_check')).toEqual(['ferry_agent_health_check{check="token"} 1',
      'ferry_agent_health_check{check="glance"} 0', 'ferry_agent_health_check{check="fsid"} 1', 'ferry_agent_health_check{check="transfer"} 1',
      'ferry_agent_health_check{check="stores"} 1']);
    clock.advance(30_000);
    expect(await seriesOf(metrics, 'ferry_agent_health_check')).toEqual(['ferry_agent_health_check{check="probe"} 0']);
    expect(await gauge(metrics)).toBe('ferry_agent_healthy 0');
  });

  it.each([
    { source: 'cluster' as const, series: 'ferry_agent_fsid_source{source="cluster"} 1' },
    { source: 'option' as const, series: 'ferry_agent_fsid_source{source="option"} 1' },
    { source: 'ceph-conf' as const, series: 'ferry_agent_fsid_source{source="ceph-conf"} 1' },
  ])('health probe: the fsid taken from $source → $series (ceph-conf: the cluster could not be asked, the degraded state)', async ({ source, series }) => {
    const metrics = createAgentMetrics({ processMetrics: false });
    const probe = createHealthProbe({ service: serviceAnswering([{ ...good, fsid: { ok: true, fsid: 'f', source } }]), metrics, timeoutMs: 1000,
      clock: fakeClock() });
    metrics.refreshHealthOnScrape(async () => (await probe.recent()).ok);
    expect(await seriesOf(metrics, 'ferry_agent_fsid_source')).toEqual([series]);
    // degraded is still healthy: clones can work, the alert is its own
    expect(await gauge(metrics)).toBe('ferry_agent_healthy 1');
  });

  it('health probe: no fsid yet (the check failed) → no ferry_agent_fsid_source series', async () => {
    const metrics = createAgentMetrics({ processMetrics: false });
    const probe = createHealthProbe({ service: serviceAnswering([{ ...good, fsid: { ok: true, fsid: 'f', source: 'ceph-conf' } },
      { ...good, fsid: { ok: false, code: 'FERRY_CEPH', message: 'no fsid' } }]), metrics, timeoutMs: 1000, clock: fakeClock() });
    await probe.check();
    expect(await seriesOf(metrics, 'ferry_agent_fsid_source')).toEqual(['ferry_agent_fsid_source{source="ceph-conf"} 1']);
    await probe.check();
    expect(await seriesOf(metrics, 'ferry_agent_fsid_source')).toEqual([]);
  });

  it('health probe: nova-compute running the code from before the patch shows in ferry_agent_nova_integration_stale, 1 then 0', async () => {
    const metrics = createAgentMetrics({ processMetrics: false });
    const stale: HostHealth = { ...good, nova_integration: { ok: false, state: 'applied', code: 'FERRY_NOVA_INTEGRATION', message: 'restart',
      nova_compute: { stale: true, pid: 10 } } };
    const restarted: HostHealth = { ...good, nova_integration: { ok: true, state: 'applied', nova_compute: { stale: false, pid: 11 } } };
    const probe = createHealthProbe({ service: serviceAnswering([stale, restarted, good]), metrics, timeoutMs: 1000, clock: fakeClock() });
    expect(await probe.check()).toMatchObject({ ok: false, failing: ['nova_integration'] });
    expect(await seriesOf(metrics, 'ferry_agent_nova_integration_stale')).toEqual(['ferry_agent_nova_integration_stale 1']);
    expect(await probe.check()).toMatchObject({ ok: true });
    expect(await seriesOf(metrics, 'ferry_agent_nova_integration_stale')).toEqual(['ferry_agent_nova_integration_stale 0']);
    // nothing recorded about nova-compute (not running, or no package): 0
    await probe.check();
    expect(await seriesOf(metrics, 'ferry_agent_nova_integration_stale')).toEqual(['ferry_agent_nova_integration_stale 0']);
  });

  it('health probe: a scrape reuses a check younger than maxAgeMs, then checks again', async () => {
    const clock = fakeClock();
    const metrics = createAgentMetrics({ processMetrics: false });
    const service = serviceAnswering([good, bad]);
    const probe = createHealthProbe({ service, metrics, timeoutMs: 1000, maxAgeMs: 30_000, clock });
    metrics.refreshHealthOnScrape(async () => (await probe.recent()).ok);
    expect(await gauge(metrics)).toBe('ferry_agent_healthy 1');
    clock.advance(29_999);
    expect(await gauge(metrics)).toBe('ferry_agent_healthy 1');
    expect(service.calls).toBe(1);
    clock.advance(1);
    expect(await gauge(metrics)).toBe('ferry_agent_healthy 0');
    expect(service.calls).toBe(2);
  });

  it('health probe: concurrent scrapes share one check', async () => {
    const metrics = createAgentMetrics({ processMetrics: false });
    const service = serviceAnswering([good]);
    const probe = createHealthProbe({ service, metrics, timeoutMs: 1000, clock: fakeClock() });
    const verdict = { ok: true, failing: [] };
    expect(await Promise.all([probe.recent(), probe.recent(), probe.recent()])).toEqual([verdict, verdict, verdict]);
    expect(service.calls).toBe(1);
  });

  it('health probe: recent() is the verdict only — ok and the names of failing checks, never a message, fsid or path', async () => {
    const withDetails: HostHealth = { token: { ok: true }, glance: { ok: false, code: 'FERRY_UNREACHABLE', message: 'cannot connect to Glance at http://10.0.0.5:9292' },
      fsid: { ok: true, fsid: '9a9d4c2e-0f4c-4a43-a8a8-2c2f5a3f4b11', source: 'ceph-conf', warnings: ['from /etc/ceph/ceph.conf as client.nova'] },
      transfer: { ok: true } };
    const probe = createHealthProbe({ service: serviceAnswering([withDetails]), metrics: createAgentMetrics({ processMetrics: false }),
      timeoutMs: 1000, clock: fakeClock() });
    expect(await probe.recent()).toStrictEqual({ ok: false, failing: ['glance'] });
  });

  it('health probe: 1,000 verdicts asked in one max age → one check; a socket check() in between refreshes the verdict', async () => {
    const clock = fakeClock();
    const service = serviceAnswering([good, bad]);
    const probe = createHealthProbe({ service, metrics: createAgentMetrics({ processMetrics: false }), timeoutMs: 1000, maxAgeMs: 30_000, clock });
    for (let i = 0; i < 1_000; i += 1) {
      expect(await probe.recent()).toEqual({ ok: true, failing: [] });
      clock.advance(20);
    }
    expect(service.calls).toBe(1);
    await probe.check();
    expect(service.calls).toBe(2);
    expect(await probe.recent()).toEqual({ ok: false, failing: ['glance'] });
    expect(service.calls).toBe(2);
  });

  it('health probe: a check that throws is remembered as failing "probe" for the max age, not retried by every caller', async () => {
    const clock = fakeClock();
    const service = serviceAnswering([new Error('boom'), good]);
    const probe = createHealthProbe({ service, metrics: createAgentMetrics({ processMetrics: false }), timeoutMs: 1000, maxAgeMs: 30_000, clock });
    expect(await probe.recent()).toEqual({ ok: false, failing: ['probe'] });
    clock.advance(29_999);
    expect(await probe.recent()).toEqual({ ok: false, failing: ['probe'] });
    expect(service.calls).toBe(1);
    clock.advance(1);
    expect(await probe.recent()).toEqual({ ok: true, failing: [] });
    expect(service.calls).toBe(2);
  });

  it.each([
    { allowList: undefined, defaultStore: 'site-b', stores: { ok: true } },
    { allowList: ['site-c'], defaultStore: 'site-b', stores: { ok: false, code: 'FERRY_INVALID_OPTION' } },
  ])('health probe: the stores check of an agent of $defaultStore allowing $allowList → $stores.ok', async ({ allowList, defaultStore, stores }) => {
    const service = { ...serviceAnswering([good]), defaultStore: () => defaultStore };
    const probe = createHealthProbe({ service, metrics: createAgentMetrics({ processMetrics: false }), timeoutMs: 1000, allowList, clock: fakeClock() });
    expect((await probe.check()).checks.stores).toMatchObject(stores);
  });

  it('health probe: a check that throws is unhealthy (0), and the scrape still answers', async () => {
    const metrics = createAgentMetrics({ processMetrics: false });
    const probe = createHealthProbe({ service: serviceAnswering([new Error('boom')]), metrics, timeoutMs: 1000, clock: fakeClock() });
    metrics.refreshHealthOnScrape(async () => (await probe.recent()).ok);
    expect(await gauge(metrics)).toBe('ferry_agent_healthy 0');
  });
});
