import { Gauge, Registry } from 'prom-client';
import { registerBuildInfo } from '../metrics/standard-metrics.js';
import type { EvictReport } from '../fleet/evict-report.js';
import { createStoreBudgetGauges } from '../fleet/store-budget-gauges.js';

/**
 * What one `ferry evict` run leaves for node_exporter's textfile collector (`--metrics-file`): the store's bytes after
 * it, its budget, whether it stays over because nothing more could go, what kept it there, and what became of the
 * copies the run took on. Named as `ferry sync`'s (`ferry_sync_store_*`) with the one-shot's prefix; a run is not a
 * counter's lifetime, so its evictions are a gauge of the last run (docs/evict.md, "See it").
 */
export interface EvictMetrics {
  readonly registry: Registry;
  /** Set every series from a finished (not dry) run's report, at `wallNowMs`. */
  record(report: EvictReport, wallNowMs: number): void;
}

export function createEvictMetrics(): EvictMetrics {
  const registry = new Registry();
  registerBuildInfo(registry, 'ferry_evict');
  const registers = [registry];
  const budgets = createStoreBudgetGauges(registry, 'ferry_evict');
  const evictions = new Gauge({ name: 'ferry_evict_evictions',
    help: 'Copies the last run took on, by outcome (evicted, trashed, kept, gone, failed, forbidden) and why (idle, or why kept)', labelNames: ['store', 'outcome', 'reason'], registers });
  const lastRun = new Gauge({ name: 'ferry_evict_last_run_timestamp_seconds', help: 'When the last ferry evict run of the store finished (Unix time)',
    labelNames: ['store'], registers });
  return {
    registry,
    record(report, wallNowMs) {
      const { store } = report;
      budgets.record(store, report.budget, report.budget.afterBytes, report.fencesLeft.length);
      // Only what the run did: the file is written anew each run, so a series of an earlier run does not linger.
      const tally = new Map<string, { outcome: string; reason: string; copies: number }>();
      for (const item of report.items) {
        if (item.outcome === undefined) continue;
        const reason = item.outcomeReason ?? item.reason;
        const key = `${item.outcome} ${reason}`;
        const entry = tally.get(key) ?? { outcome: item.outcome, reason, copies: 0 };
        entry.copies += 1;
        tally.set(key, entry);
      }
      for (const { outcome, reason, copies } of tally.values()) evictions.set({ store, outcome, reason }, copies);
      lastRun.set({ store }, Math.floor(wallNowMs / 1000));
    },
  };
}
