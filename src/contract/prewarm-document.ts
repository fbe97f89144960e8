import { z } from 'zod';
import type { NotCopyableReason, PlanState } from '../fleet/classify-placement.js';
import { REQUEST_MODES } from '../prewarm/prewarm-options.js';
import { FAILURE_KINDS, ITEM_OUTCOMES, type PrewarmReport } from '../fleet/prewarm-report.js';

const PLAN_STATES = ['present', 'copying', 'failed-earlier', 'missing', 'not-copyable'] as const satisfies readonly PlanState[];
const SKIP_REASONS = ['unresolved', 'unknown-store', 'read-only-store', 'not-active', 'formats-unset', 'stores-hidden', 'not-raw'] as const satisfies readonly NotCopyableReason[];
const count = z.number().int().min(0);

/** `ferry prewarm --json` (and the `result` of `ferry sync --json`); documented in docs/cli.md and docs/prewarm.md. */
export const prewarmJsonSchema = z.object({
  stores: z.array(z.string()),
  dry_run: z.boolean(),
  aborted: z.boolean(),
  seconds: z.number(),
  request_mode: z.enum(REQUEST_MODES),
  /** fixed: the --concurrency limit; adaptive: where the search started. */
  concurrency: z.number().int(),
  /** adaptive when --concurrency was not given: the limit followed Glance's throughput. */
  concurrency_mode: z.enum(['fixed', 'adaptive']),
  /** The highest limit in force during the run. */
  concurrency_reached: z.number().int(),
  /** adaptive: each window's decision (limit after it, up/down/back-to-best/hold, why), in order. */
  concurrency_changes: z.array(z.object({ seconds: z.number(), limit: z.number().int(), step: z.enum(['up', 'down', 'back-to-best', 'hold']),
    why: z.string() })),
  per_store_concurrency: z.number().int(),
  store_types_known: z.boolean(),
  plan: z.object({ present: count, copying: count, failed_earlier: count, missing: count, not_copyable: count }),
  counts: z.object({ copied: count, joined: count, present: count, failed: count, skipped: count, interrupted: count }),
  /** The copied items by the transfer that brought them: Glance's copy-image, or the direct RBD transfer (--transfer). */
  transfers: z.object({ glance: count, rbd: count }).optional(),
  items: z.array(z.object({
    image: z.string(),
    name: z.string().nullable(),
    store: z.string(),
    planned: z.enum(PLAN_STATES),
    action: z.enum(['none', 'copy', 'join', 'skip']),
    outcome: z.enum(ITEM_OUTCOMES).nullable(),
    failure: z.enum(FAILURE_KINDS).nullable(),
    skip_reason: z.enum(SKIP_REASONS).nullable(),
    code: z.string().nullable(),
    reason: z.string(),
    seconds: z.number().nullable(),
    /** A copied item: which transfer brought it (glance: copy-image; rbd: the direct transfer). Otherwise null. --json only. */
    transfer: z.enum(['glance', 'rbd']).nullable(),
    task: z.string().nullable(),
    running_in_glance: z.boolean(),
  })),
  running_in_glance: z.array(z.object({ image: z.string(), name: z.string().nullable(), stores: z.array(z.string()), task: z.string() })),
  requests: z.object({ image_reads: count, import_requests: count, task_reads: count }),
});

export type PrewarmJson = z.infer<typeof prewarmJsonSchema>;

const seconds = (ms: number): number => Math.round(ms) / 1000;

export function prewarmToJson(report: PrewarmReport): PrewarmJson {
  return {
    stores: [...report.stores],
    dry_run: report.dryRun,
    aborted: report.aborted,
    seconds: seconds(report.elapsedMs),
    request_mode: report.requestMode,
    concurrency: report.concurrency,
    concurrency_mode: report.concurrencyMode,
    concurrency_reached: report.concurrencyReached,
    concurrency_changes: report.concurrencyChanges.map((change) => ({ seconds: seconds(change.atMs), limit: change.limit, step: change.step,
      why: change.why })),
    per_store_concurrency: report.perStoreConcurrency,
    store_types_known: report.storeTypesKnown,
    plan: { present: report.plan.present, copying: report.plan.copying, failed_earlier: report.plan['failed-earlier'],
      missing: report.plan.missing, not_copyable: report.plan['not-copyable'] },
    counts: { ...report.counts },
    transfers: {
      glance: report.items.filter((item) => item.outcome === 'copied' && item.transfer !== 'rbd').length,
      rbd: report.items.filter((item) => item.outcome === 'copied' && item.transfer === 'rbd').length,
    },
    items: report.items.map((item) => ({
      image: item.imageId,
      name: item.imageName,
      store: item.store,
      planned: item.planned,
      action: item.action,
      outcome: item.outcome ?? null,
      failure: item.failure ?? null,
      skip_reason: item.skipReason ?? null,
      code: item.code ?? null,
      reason: item.reason,
      seconds: item.elapsedMs === undefined ? null : seconds(item.elapsedMs),
      transfer: item.outcome === 'copied' ? item.transfer ?? 'glance' : null,
      task: item.taskId ?? null,
      running_in_glance: item.runningInGlance === true,
    })),
    running_in_glance: report.runningInGlance.map((copy) => ({ image: copy.imageId, name: copy.imageName, stores: [...copy.stores],
      task: copy.taskId })),
    requests: { image_reads: report.requests.imageReads, import_requests: report.requests.importRequests,
      task_reads: report.requests.taskReads },
  };
}
