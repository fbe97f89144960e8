import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { HealthAnswer } from '../metrics/metrics-listener.js';
import { collectStandardMetrics, registerBuildInfo } from '../metrics/standard-metrics.js';
import { createStoreBudgetGauges } from '../fleet/store-budget-gauges.js';
import type { StoreBudget } from './sync-report.js';
import type { WatchPass } from './watch-sync.js';

/** What `ferry sync --watch --metrics-listen` exposes: the passes, the copies they made, their failures, the drift, and each budgeted store's bytes, budget and evictions. */
export interface SyncMetrics {
  readonly registry: Registry;
  /** Count one finished pass (the watch loop's onPass). */
  recordPass(pass: WatchPass): void;
  /**
   * `GET /healthz`: healthy until a pass ends in an error (Glance down, credentials), again after a pass without. The
   * error by its code only (the TCP port is unauthenticated).
   */
  health(): HealthAnswer;
}

/** Seconds: a pass over a converged policy is a few reads; one that copies takes as long as its copies. */
export const SYNC_PASS_BUCKETS = [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600] as const;

export function createSyncMetrics(options: { readonly processMetrics?: boolean } = {}): SyncMetrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectStandardMetrics(registry);
  registerBuildInfo(registry, 'ferry_sync');
  const registers = [registry];
  const passes = new Counter({ name: 'ferry_sync_passes_total', help: 'Finished sync passes by result: clean, failures (some copy failed), error (the pass failed)',
    labelNames: ['result'], registers });
  const passErrors = new Counter({ name: 'ferry_sync_pass_errors_total', help: 'Passes that ended in an error, by error code', labelNames: ['code'], registers });
  const copies = new Counter({ name: 'ferry_sync_copies_total',
    help: 'Copies the passes made or tried, by store and outcome (copied, joined, failed, skipped, interrupted)', labelNames: ['store', 'outcome'], registers });
  const drift = new Gauge({ name: 'ferry_sync_drift_pairs', help: '(image, store) pairs the policy wants that were not in place after the last pass', registers });
  const wanted = new Gauge({ name: 'ferry_sync_wanted_pairs', help: '(image, store) pairs the policy wanted at the last pass', registers });
  const duration = new Histogram({ name: 'ferry_sync_pass_duration_seconds', help: 'Duration of a sync pass', buckets: [...SYNC_PASS_BUCKETS], registers });
  const lastPass = new Gauge({ name: 'ferry_sync_last_pass_timestamp_seconds', help: 'When the last pass finished (Unix time)', registers });
  const healthy = new Gauge({ name: 'ferry_sync_healthy', help: 'Whether the last pass ended without an error: 1 or 0', registers });
  // Budgets (the policy's stores:): what each store's pool holds after the pass, its budget, whether the pass could not
  // bring it under (everything left in use, pinned, the last copy, importing or not idle), and what the evictions did.
  const storeBudgets = createStoreBudgetGauges(registry, 'ferry_sync');
  const evictions = new Counter({ name: 'ferry_sync_evictions_total',
    help: 'Copies the passes took on to evict, by store, outcome (evicted, trashed, kept, gone, failed, forbidden) and why (idle, or why kept)',
    labelNames: ['store', 'outcome', 'reason'], registers });
  const budgetErrors = new Counter({ name: 'ferry_sync_budget_errors_total', help: 'Stores whose budget a pass could not judge or enforce, by error code',
    labelNames: ['store', 'code'], registers });
  healthy.set(1);
  let last: WatchPass | undefined;
  const recordBudgets = (budgets: readonly StoreBudget[]): void => {
    for (const { store, report, error } of budgets) {
      if (report === undefined) {
        budgetErrors.inc({ store, code: error.code });
        continue;
      }
      storeBudgets.record(store, report.budget, report.budget.afterBytes, report.fencesLeft.length);
      for (const item of report.items) {
        if (item.outcome !== undefined) evictions.inc({ store, outcome: item.outcome, reason: item.outcomeReason ?? item.reason });
      }
    }
  };
  return {
    registry,
    recordPass(pass) {
      last = pass;
      const result = pass.error !== undefined || pass.report === undefined ? 'error' : pass.clean ? 'clean' : 'failures';
      passes.inc({ result });
      if (pass.error !== undefined) passErrors.inc({ code: pass.error.code });
      // Items in place already (`present`) are not copies; a dry run has no outcomes.
      for (const item of pass.report?.result.items ?? []) {
        if (item.outcome !== undefined && item.outcome !== 'present') copies.inc({ store: item.store, outcome: item.outcome });
      }
      if (pass.report !== undefined) {
        drift.set(pass.report.driftAfter);
        wanted.set(pass.report.wanted);
        recordBudgets(pass.report.budgets);
      }
      duration.observe(pass.elapsedMs / 1000);
      lastPass.setToCurrentTime();
      healthy.set(result === 'error' ? 0 : 1);
    },
    health() {
      const ok = last?.error === undefined;
      return { ok, body: { ok, passes: last?.number ?? 0, ...(last === undefined ? {} : { last_pass: {
        // The code only: anyone who reaches the port reads this, and a message can carry Glance's URL and the server's
        // own words. The journal has the message.
        number: last.number, clean: last.clean, error: last.error === undefined ? null : { code: last.error.code },
        drift: last.report?.driftAfter ?? null } }) } };
    },
  };
}
