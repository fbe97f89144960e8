import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PrewarmItemReport, PrewarmReport } from '../../../src/fleet/prewarm-report.js';
import { createSyncMetrics } from '../../../src/sync/sync-metrics.js';
import type { SyncReport } from '../../../src/sync/sync-once.js';
import type { WatchPass } from '../../../src/sync/watch-sync.js';

const item = (store: string, outcome: PrewarmItemReport['outcome']): PrewarmItemReport =>
  ({ imageId: 'i', imageName: null, store, planned: 'missing', action: 'copy', outcome, reason: '' });

function pass(number: number, items: PrewarmItemReport[] | undefined, options: { driftAfter?: number; error?: string } = {}): WatchPass {
  const report = items === undefined ? undefined : ({ policy: 'p.yaml', placements: [], wanted: 5, driftBefore: 3, driftAfter: options.driftAfter ?? 0,
    converged: (options.driftAfter ?? 0) === 0, result: { items, counts: { failed: items.filter((i) => i.outcome === 'failed').length } } as unknown as PrewarmReport,
    budgets: [] }) as SyncReport;
  const failed = items?.some((i) => i.outcome === 'failed') ?? false;
  return { number, elapsedMs: 2500, report, error: options.error === undefined ? undefined : { code: options.error as never, message: 'glance down' },
    policyError: undefined, clean: options.error === undefined && !failed, nextInMs: 1000 };
}

const value = async (metrics: ReturnType<typeof createSyncMetrics>, series: string): Promise<number | undefined> => {
  const line = (await metrics.registry.metrics()).split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('sync metrics', () => {
  it('sync metrics: a pass counts its copies by store and outcome, not the pairs already present; drift and wanted are the pass\'s', async () => {
    const metrics = createSyncMetrics({ processMetrics: false });
    metrics.recordPass(pass(1, [item('site-a', 'copied'), item('site-a', 'present'), item('site-b', 'failed'), item('site-b', 'copied')], { driftAfter: 1 }));
    expect(await value(metrics, 'ferry_sync_passes_total{result="failures"}')).toBe(1);
    expect(await value(metrics, 'ferry_sync_copies_total{store="site-a",outcome="copied"}')).toBe(1);
    expect(await value(metrics, 'ferry_sync_copies_total{store="site-b",outcome="copied"}')).toBe(1);
    expect(await value(metrics, 'ferry_sync_copies_total{store="site-b",outcome="failed"}')).toBe(1);
    expect(await value(metrics, 'ferry_sync_copies_total{store="site-a",outcome="present"}')).toBeUndefined();
    expect(await value(metrics, 'ferry_sync_drift_pairs')).toBe(1);
    expect(await value(metrics, 'ferry_sync_wanted_pairs')).toBe(5);
    expect(await value(metrics, 'ferry_sync_pass_duration_seconds_sum')).toBe(2.5);
    expect(await value(metrics, 'ferry_sync_healthy')).toBe(1);
    expect(metrics.health()).toEqual({ ok: true, body: { ok: true, passes: 1, last_pass: { number: 1, clean: false, error: null, drift: 1 } } });
  });

  it('sync metrics: a pass that errs counts its code, keeps the last drift, and turns health to 503/0 until a pass without error', async () => {
    const metrics = createSyncMetrics({ processMetrics: false });
    metrics.recordPass(pass(1, [item('site-a', 'copied')], { driftAfter: 0 }));
    metrics.recordPass(pass(2, undefined, { error: 'FERRY_UNREACHABLE' }));
    expect(await value(metrics, 'ferry_sync_passes_total{result="error"}')).toBe(1);
    expect(await value(metrics, 'ferry_sync_passes_total{result="clean"}')).toBe(1);
    expect(await value(metrics, 'ferry_sync_pass_errors_total{code="FERRY_UNREACHABLE"}')).toBe(1);
    expect(await value(metrics, 'ferry_sync_drift_pairs')).toBe(0);
    expect(await value(metrics, 'ferry_sync_healthy')).toBe(0);
    expect(metrics.health()).toEqual({ ok: false, body: { ok: false, passes: 2,
      last_pass: { number: 2, clean: false, error: { code: 'FERRY_UNREACHABLE' }, drift: null } } });
    // Anyone who reaches the TCP port reads /healthz: the error's message (Glance's URL, the server's own words) stays in
    // the journal.
    expect(JSON.stringify(metrics.health().body)).not.toContain('glance down');
    metrics.recordPass(pass(3, [], { driftAfter: 0 }));
    expect(await value(metrics, 'ferry_sync_healthy')).toBe(1);
    expect(metrics.health().ok).toBe(true);
  });

  it('sync metrics: healthy before the first pass, and the last-pass time is set by a pass', async () => {
    const metrics = createSyncMetrics({ processMetrics: false });
    expect(metrics.health()).toEqual({ ok: true, body: { ok: true, passes: 0 } });
    expect(await value(metrics, 'ferry_sync_last_pass_timestamp_seconds')).toBe(0);
    metrics.recordPass(pass(1, []));
    expect(await value(metrics, 'ferry_sync_last_pass_timestamp_seconds')).toBeGreaterThan(1_700_000_000);
  });

  it('sync metrics: every ferry_sync_* metric is in docs/prewarm.md with its type; defaults standard; no gauge ends in _total', async () => {
    const exported = new Map((await createSyncMetrics().registry.getMetricsAsJSON()).map((metric) => [metric.name, String(metric.type)]));
    const documented = new Map(readFileSync('docs/prewarm.md', 'utf8').split('\n')
      .map((line) => /^\| `(ferry_sync_[a-z_]+)` \| (\w+) \|/.exec(line)).flatMap((match) => (match ? [[match[1] ?? '', match[2] ?? ''] as const] : [])));
    const own = new Map([...exported].filter(([name]) => name.startsWith('ferry_sync_')));
    expect(own.size).toBe(16);
    expect(Object.fromEntries(own)).toEqual(Object.fromEntries(documented));
    expect(exported.has('process_cpu_seconds_total')).toBe(true);
    expect([...exported].filter(([name, type]) => type !== 'counter' && name.endsWith('_total'))).toEqual([]);
  });
});
