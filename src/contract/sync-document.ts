import { z } from 'zod';
import { KEEP_REASONS } from '../evict/plan-eviction.js';
import type { StoreBudget, SyncReport } from '../sync/sync-report.js';
import type { WatchSummary } from '../sync/watch-sync.js';
import { evictCopyJsonSchema, evictJsonSchema, evictToJson, type EvictJson } from './evict-document.js';
import { prewarmJsonSchema, prewarmToJson } from './prewarm-document.js';

// `ferry sync --json`: the pass's prewarm and each budgeted store's eviction, documented in docs/cli.md ("ferry sync").

/** What `ferry sync` returns: one pass, or (with --watch) the last pass and the watch's tally. */
export interface SyncOutcome {
  readonly report: SyncReport | undefined;
  readonly watch: WatchSummary | undefined;
}

const count = z.number().int().min(0);
const passError = z.object({ code: z.string(), message: z.string() });

/** `ferry sync --json`; documented in docs/cli.md. */
export const syncJsonSchema = z.object({
  policy: z.string().nullable(),
  wanted: count,
  drift_before: count,
  drift_after: count,
  converged: z.boolean(),
  placements: z.array(z.object({ name: z.string(), stores: z.array(z.string()), images: count, unresolved: count, drift: count })),
  result: prewarmJsonSchema.nullable(),
  watch: z.object({ passes: count, unclean_passes: count, last_error: passError.nullable() }).nullable(),
  /** Per store with a budget (the policy's `stores:`); empty without. */
  budgets: z.array(z.object({
    store: z.string(), pool: z.string().nullable(), budget: z.string().nullable(), budget_bytes: count.nullable(), used_bytes: count.nullable(),
    after_bytes: count.nullable(), others_bytes: count, verdict: z.enum(['none', 'under', 'met', 'unmet']).nullable(), shortfall_bytes: count,
    counts: z.object({ planned: count, evicted: count, trashed: count, kept: count, gone: count, failed: count, forbidden: count }).strict().nullable(),
    kept: z.partialRecord(z.enum(KEEP_REASONS), z.object({ copies: count, bytes: count }).strict()),
    evictions: z.array(evictCopyJsonSchema),
    fences_left: evictJsonSchema.shape.fences_left,
    error: passError.nullable(),
  }).strict()),
});

export type SyncJson = z.infer<typeof syncJsonSchema>;

export function syncToJson({ report, watch }: SyncOutcome): SyncJson {
  return {
    policy: report?.policy ?? null,
    wanted: report?.wanted ?? 0,
    drift_before: report?.driftBefore ?? 0,
    drift_after: report?.driftAfter ?? 0,
    converged: report?.converged ?? false,
    placements: (report?.placements ?? []).map((p) => ({ name: p.name, stores: [...p.stores], images: p.images, unresolved: p.unresolved, drift: p.drift })),
    result: report === undefined ? null : prewarmToJson(report.result),
    watch: watch === undefined ? null
      : { passes: watch.passes, unclean_passes: watch.uncleanPasses, last_error: watch.lastError ?? null },
    budgets: (report?.budgets ?? []).map(budgetToJson),
  };
}

/**
 * The copies a store's eviction planned to remove or acted on: a later round takes copies the plan kept under budget
 * (an earlier candidate was kept at its last look), and those carry an outcome with the action `keep`.
 */
const actedOn = (copy: EvictJson['copies'][number]): boolean => copy.action === 'evict' || copy.outcome !== null;

/** One store's budget in sync's JSON: its eviction report, flattened. */
export function budgetToJson(entry: StoreBudget): SyncJson['budgets'][number] {
  if (entry.report === undefined) {
    return { store: entry.store, pool: null, budget: null, budget_bytes: null, used_bytes: null, after_bytes: null, others_bytes: 0, verdict: null, shortfall_bytes: 0,
      counts: null, kept: {}, evictions: [], fences_left: [], error: entry.error };
  }
  const json = evictToJson(entry.report);
  return { store: entry.store, pool: json.pool, budget: json.budget.budget, budget_bytes: json.budget.budget_bytes, used_bytes: json.budget.used_bytes,
    after_bytes: json.budget.after_bytes, others_bytes: json.budget.others_bytes, verdict: json.budget.verdict, shortfall_bytes: json.budget.shortfall_bytes, counts: json.counts,
    kept: json.budget.kept, evictions: json.copies.filter(actedOn), fences_left: json.fences_left, error: null };
}
