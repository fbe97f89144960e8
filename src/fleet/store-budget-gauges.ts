import { Gauge, type Registry } from 'prom-client';
import type { BudgetReport } from './evict-report.js';
import { KEEP_REASONS } from './eviction-plan.js';

/**
 * A store's budget series, one definition for `ferry sync --watch` (prefix ferry_sync, after each pass) and `ferry
 * evict --metrics-file` (ferry_evict, after the run), so the two name and mean them alike: `<prefix>_store_bytes`,
 * `_store_budget_bytes`, `_store_over_budget`, `_store_kept_bytes{reason}`, and the eviction's `<prefix>_fences_left`
 * (docs/prewarm.md, docs/evict.md).
 */
export interface StoreBudgetGauges {
  /** The store's state after a pass or run: `bytes` what its pool holds then, `fencesLeft` the fences it could not lift. */
  record(store: string, budget: BudgetReport, bytes: number, fencesLeft: number): void;
}

export function createStoreBudgetGauges(registry: Registry, prefix: 'ferry_sync' | 'ferry_evict'): StoreBudgetGauges {
  const after = prefix === 'ferry_sync' ? 'the last pass' : 'the last ferry evict run';
  const registers = [registry];
  const storeBytes = new Gauge({ name: `${prefix}_store_bytes`, help: `Bytes the store's pool holds after ${after} (its copies, other images and its trash)`,
    labelNames: ['store'], registers });
  const storeBudget = new Gauge({ name: `${prefix}_store_budget_bytes`, help: 'The store\'s budget in bytes (absent without one)', labelNames: ['store'], registers });
  const overBudget = new Gauge({ name: `${prefix}_store_over_budget`,
    help: `1 when ${after} left the store over its budget because nothing more could go (see ${prefix}_store_kept_bytes), else 0`, labelNames: ['store'], registers });
  const keptBytes = new Gauge({ name: `${prefix}_store_kept_bytes`,
    help: `Bytes of the store's copies that could not go at ${after}, by why (in-use, pinned, last-copy, importing, not-idle, …)`, labelNames: ['store', 'reason'], registers });
  const fencesLeft = new Gauge({ name: `${prefix}_fences_left`,
    help: `Fences ${after} wrote and could not lift (each runs out on its own 2 min after its last look)`, labelNames: ['store'], registers });
  return {
    record(store, budget, bytes, fences) {
      storeBytes.set({ store }, bytes);
      if (budget.budgetBytes !== undefined) storeBudget.set({ store }, budget.budgetBytes);
      overBudget.set({ store }, budget.verdict === 'unmet' ? 1 : 0);
      for (const reason of KEEP_REASONS) keptBytes.set({ store, reason }, budget.kept[reason].bytes);
      fencesLeft.set({ store }, fences);
    },
  };
}
