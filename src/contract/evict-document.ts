import { z } from 'zod';
import { EVICT_OUTCOMES, type EvictReport } from '../fleet/evict-report.js';
import { KEEP_REASONS } from '../evict/plan-eviction.js';

// `ferry evict --json`: the plan and what became of it, documented in docs/cli.md ("ferry evict") and docs/evict.md.

const count = z.number().int().min(0);
const bytes = z.number().int().min(0);
const reason = z.enum(['idle', ...KEEP_REASONS]);

export const evictCopyJsonSchema = z.object({
  image: z.string(), name: z.string().nullable(), store: z.string(), bytes,
  last_used: z.string().nullable(), last_use: z.string(), clones: count,
  action: z.enum(['evict', 'keep']), reason, detail: z.string(),
  outcome: z.enum(EVICT_OUTCOMES).nullable(), outcome_reason: z.enum(KEEP_REASONS).nullable(), outcome_detail: z.string().nullable(),
}).strict();

export const evictJsonSchema = z.object({
  store: z.string(), pool: z.string(), dry_run: z.boolean(), run: z.string(), planned_at: z.string(), idle_seconds: count, grace_seconds: count,
  budget: z.object({
    budget: z.string().nullable(), budget_bytes: bytes.nullable(), used_bytes: bytes, after_bytes: bytes,
    /** Copies another eviction run took or holds (its live fence): counted as leaving in the verdict. */
    others_bytes: bytes,
    verdict: z.enum(['none', 'under', 'met', 'unmet']), shortfall_bytes: bytes,
    /** The reasons copies stay, those with at least one copy. */
    kept: z.partialRecord(z.enum(KEEP_REASONS), z.object({ copies: count, bytes }).strict()),
  }).strict(),
  copies: z.array(evictCopyJsonSchema),
  counts: z.object({ planned: count, evicted: count, trashed: count, kept: count, gone: count, failed: count, forbidden: count }).strict(),
  other_bytes: bytes, trash_bytes: bytes,
  /** Fences the run could not lift (empty when every one was lifted or went with its copy). */
  fences_left: z.array(z.object({ image: z.string(), rbd_image: z.string(), detail: z.string() }).strict()),
}).strict();

export type EvictJson = z.infer<typeof evictJsonSchema>;

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());

export function evictToJson(report: EvictReport): EvictJson {
  return {
    store: report.store, pool: report.pool, dry_run: report.dryRun, run: report.run, planned_at: new Date(report.plannedAtMs).toISOString(),
    idle_seconds: Math.round(report.idleMs / 1000), grace_seconds: Math.round(report.graceMs / 1000),
    budget: {
      budget: report.budget.budget?.text ?? null, budget_bytes: report.budget.budgetBytes ?? null, used_bytes: report.budget.usedBytes,
      after_bytes: report.budget.afterBytes, others_bytes: report.budget.othersBytes, verdict: report.budget.verdict, shortfall_bytes: report.budget.shortfallBytes,
      kept: Object.fromEntries(KEEP_REASONS.filter((key) => report.budget.kept[key].copies > 0).map((key) => [key, { ...report.budget.kept[key] }])),
    },
    copies: report.items.map((item) => ({
      image: item.imageId, name: item.imageName, store: item.store, bytes: item.bytes, last_used: iso(item.lastUsedMs), last_use: item.lastUse,
      clones: item.clones, action: item.action, reason: item.reason, detail: item.detail, outcome: item.outcome ?? null,
      outcome_reason: item.outcomeReason ?? null, outcome_detail: item.outcomeDetail ?? null,
    })),
    counts: { ...report.counts },
    other_bytes: report.otherBytes, trash_bytes: report.trashBytes,
    fences_left: report.fencesLeft.map((left) => ({ image: left.imageId, rbd_image: left.rbdImage, detail: left.detail })),
  };
}
