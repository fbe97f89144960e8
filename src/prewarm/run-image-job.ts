import { copyPolicyOf } from '../config/copy-policy.js';
import type { CopyContext } from '../copy/copy-context.js';
import { runCopyJob } from '../copy/copy-engine.js';
import { jobDeadlineMs } from '../copy/job-deadline.js';
import type { CopyTransfer } from '../copy/copy-job.js';
import type { CopyCounters } from '../copy/follow-import.js';
import { classifyPlacement, type NotCopyableReason } from '../fleet/classify-placement.js';
import type { PlannedJob } from './plan-prewarm.js';
import type { PrewarmEvent } from '../fleet/prewarm-events.js';
import type { ResolvedPrewarmOptions } from './prewarm-options.js';
import type { StoreCatalogue } from '../fleet/store-catalogue.js';
import { skippedResult, type StoreResult } from './store-result.js';
import type { RunPace } from './run-pace.js';

export type RequestCounters = CopyCounters;

export interface JobEnvironment {
  readonly options: ResolvedPrewarmOptions;
  readonly catalogue: StoreCatalogue;
  readonly counters: RequestCounters;
  readonly emit: (event: PrewarmEvent) => void;
  /** The run's own import durations: when to read after a request. */
  readonly pace: RunPace;
  /** How missing stores are brought, made once per run (the direct transfer's per-cluster bounds span its jobs). */
  readonly transfer: CopyTransfer;
}

/**
 * When to read first after a 202, as a fraction of the expected duration: late when the run's own recent imports
 * predict it, earlier when only the size-based guess does. Glance sets the lock before it answers 202, so a read at any
 * time sees our task or its result; a read at once would only say "started".
 */
const FIRST_READ_AT = { learnt: 0.75, guessed: 0.5 } as const;

/**
 * Bring one image into its stores through the copy engine: one import for all missing stores (requestMode `image`,
 * allow-failure) or one per store (`store`); locks of others joined; each store judged as ensure() judges it; the
 * deadline (--timeout per store asked, jobDeadlineMs) covers the whole job. A store that failed is not retried in this run.
 */
export async function runImageJob(ctx: CopyContext, job: PlannedJob, env: JobEnvironment): Promise<ReadonlyMap<string, StoreResult>> {
  const { options } = env;
  const result = await runCopyJob<NotCopyableReason>(ctx, job.image, {
    stores: job.stores,
    // The plan's snapshot stands in for a first read: a request on a stale one is answered 409 (busy) or 400 (already
    // present), and both lead to a fresh read; a lock it shows is joined by polling, which reads anyway.
    classify: (image, store) => {
      const verdict = classifyPlacement(image, store, env.catalogue.stores.find((s) => s.id === store), options);
      if (verdict.state === 'present') return { kind: 'present' };
      if (verdict.state === 'not-copyable') return { kind: 'settled', result: skippedResult(verdict) };
      return { kind: 'missing' };
    },
    requestMode: options.requestMode,
    policy: { ...copyPolicyOf(options), timeoutMs: jobDeadlineMs(options.timeoutMs, job.stores.length) },
    transfer: env.transfer,
    signal: options.signal, counters: env.counters, random: options.random,
    pace: env.pace, firstRead: FIRST_READ_AT,
    onProgress: (event) => env.emit(Object.freeze({ type: 'job-progress', imageId: job.imageId, imageName: job.imageName,
      stores: event.stores, phase: event.phase, elapsedMs: event.elapsedMs, taskMessage: event.taskMessage, note: event.note })),
  });
  return result.results;
}
