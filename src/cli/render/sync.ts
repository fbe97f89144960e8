import { z } from 'zod';
import { formatBytes } from '../../fleet/store-budget.js';
import { KEEP_REASONS } from '../../evict/plan-eviction.js';
import type { StoreBudget, SyncReport } from '../../sync/sync-report.js';
import { evictCopyJsonSchema, evictJsonSchema, evictToJson, type EvictJson } from '../reports/evict-json.js';
import type { WatchPass, WatchSummary } from '../../sync/watch-sync.js';
import type { TextStyle } from '../output/text-style.js';
import { fencesLeftLines } from './evict.js';
import { prewarmJsonSchema, prewarmToJson } from './prewarm-json.js';
import { renderPrewarm, seconds, table } from './prewarm.js';

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

export function renderSync({ report, watch }: SyncOutcome, style: TextStyle): string {
  const lines: string[] = [];
  if (watch !== undefined) {
    lines.push(`${style.bold('watch')} ended after ${watch.passes} pass${watch.passes === 1 ? '' : 'es'} (${watch.uncleanPasses} unclean)`
      + (watch.lastError ? `; last error ${watch.lastError.code}: ${watch.lastError.message}` : ''), '');
  }
  if (report === undefined) return lines.concat(style.warn('no pass completed')).join('\n');
  const verdict = report.converged ? style.good('converged') : report.result.dryRun ? style.warn('drift (dry run)') : style.bad('not converged');
  lines.push(`${style.bold('sync')} ${report.policy}: ${verdict} · ${report.wanted} (image, store) pairs wanted · drift ${report.driftBefore} before, `
    + `${report.driftAfter} after`, '',
  table(['placement', 'images', 'stores', 'drift'], report.placements.map((p) =>
    [p.name, `${p.images}${p.unresolved > 0 ? style.bad(` +${p.unresolved} unresolved`) : ''}`, p.stores.join(', '), String(p.drift)])),
  '', renderPrewarm(report.result, style));
  if (report.budgets.length > 0) {
    lines.push('', table(['store', 'pool', 'budget', 'before', 'after', 'verdict', 'evicted'], report.budgets.map((entry) => entry.report === undefined
      ? [entry.store, '', '', '', '', style.bad(`${entry.error.code}: ${entry.error.message}`), '']
      : [entry.store, entry.report.pool, entry.report.budget.budget?.text ?? '', formatBytes(entry.report.budget.usedBytes),
        formatBytes(entry.report.budget.afterBytes), entry.report.budget.verdict === 'unmet' ? style.bad('unmet') : entry.report.budget.verdict,
        String(entry.report.counts.evicted)])));
    for (const entry of report.budgets) lines.push(...fencesLeftLines(entry.report?.fencesLeft ?? [], style, entry.store));
  }
  return lines.join('\n');
}

/** The one log line per watch pass. */
export function describePass(pass: WatchPass): string {
  const next = `next in ${seconds(pass.nextInMs)}${pass.clean ? '' : ' (backing off)'}`;
  const policy = pass.policyError ? ` · policy not reloaded: ${pass.policyError.message}` : '';
  if (pass.report === undefined) {
    return `pass ${pass.number} · error ${pass.error?.code ?? '?'}: ${pass.error?.message ?? ''} · ${next}${policy}`;
  }
  const { report } = pass;
  const c = report.result.counts;
  return `pass ${pass.number} · ${report.wanted} wanted · drift ${report.driftBefore} → ${report.driftAfter} · copied ${c.copied + c.joined}`
    + ` · failed ${c.failed} · skipped ${c.skipped} · ${seconds(pass.elapsedMs)} · ${next}${policy}`;
}
