import type { CopyContext } from '../copy/copy-context.js';
import type { PlanItem, PlannedJob, PrewarmPlan } from './plan-prewarm.js';
import type { PrewarmEvent } from '../fleet/prewarm-events.js';
import type { ResolvedPrewarmOptions } from './prewarm-options.js';
import { countOutcomes, type PrewarmItemReport, type PrewarmReport, type RunningCopy } from '../fleet/prewarm-report.js';
import { runImageJob, type RequestCounters } from './run-image-job.js';
import { waitForWindow } from './wait-for-window.js';
import { createRunPace } from './run-pace.js';
import { sourceClusters } from '../config/build-ceph-cluster.js';
import type { CopyTransfer } from '../copy/copy-job.js';
import { chooseTransfer } from '../copy/transfer/choose-transfer.js';
import { createSlotScheduler } from './slot-scheduler.js';
import { createConcurrencyGovernor, type ConcurrencyGovernor } from './concurrency-governor.js';
import type { StoreCatalogue } from '../fleet/store-catalogue.js';
import type { StoreResult } from './store-result.js';

/**
 * Carry out a plan: every image with work is one job, run under the global and per-store limits. Items that need no
 * work are decided at once. On abort no job starts any more; running jobs stop waiting and report what goes on
 * inside Glance. A dry run decides nothing and sends nothing.
 */
export async function runPrewarmPlan(ctx: CopyContext, plan: PrewarmPlan, catalogue: StoreCatalogue,
  options: ResolvedPrewarmOptions): Promise<PrewarmReport> {
  const { clock } = ctx;
  const started = clock.now();
  const counters: RequestCounters = { imageReads: 0, importRequests: 0, taskReads: 0 };
  const emit = (event: PrewarmEvent): void => options.onProgress?.(event);
  const decided = new Map<string, PrewarmItemReport>();
  const key = (imageId: string, store: string): string => `${imageId}\u0000${store}`;
  const decide = (item: PlanItem, withError: StoreResult | undefined): void => {
    // The coded error stays with the library caller of the engine; a report keeps its code and reason.
    const outcome = withError === undefined ? { outcome: undefined, reason: item.detail } : withoutError(withError);
    const report: PrewarmItemReport = Object.freeze({ imageId: item.imageId, imageName: item.imageName, store: item.store, planned: item.state,
      action: item.action, ...outcome });
    decided.set(key(item.imageId, item.store), report);
    if (withError !== undefined) emit(Object.freeze({ type: 'item-done', item: report }));
  };

  emit(Object.freeze({ type: 'planned', plan }));
  for (const item of plan.items) {
    if (options.dryRun) decide(item, undefined);
    else if (item.action === 'none') decide(item, { outcome: 'present', reason: item.detail });
    else if (item.action === 'skip') {
      decide(item, item.reason === 'unresolved'
        ? { outcome: 'failed', failure: 'unresolved', code: item.unresolvedCode ?? 'FERRY_IMAGE_NOT_FOUND', reason: item.detail }
        : { outcome: 'skipped', ...(item.reason ? { skipReason: item.reason } : {}), reason: item.detail });
    }
  }

  let aborted = false;
  let governor: ConcurrencyGovernor | undefined;
  if (!options.dryRun && plan.jobs.length > 0) {
    const scheduler = createSlotScheduler({ global: options.concurrency, perStore: options.perStoreConcurrency });
    // No --concurrency: the limit follows the throughput of finished copies (adaptive-concurrency.ts).
    if (options.adaptiveConcurrency) governor = createConcurrencyGovernor(clock, options.concurrency, (limit) => scheduler.setGlobal(limit));
    const pace = createRunPace();
    const transfer = runTransfer(options);
    const onAbort = (): void => emit(Object.freeze({ type: 'aborting', running: scheduler.running, queued: scheduler.queued }));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const planned = new Map(plan.items.map((item) => [key(item.imageId, item.store), item]));
    const itemOf = (job: PlannedJob, store: string): PlanItem | undefined => planned.get(key(job.imageId, store));
    try {
      const settled = await Promise.allSettled(plan.jobs.map((job) => scheduler.run(job.stores, async () => {
        const results: ReadonlyMap<string, StoreResult> = options.signal?.aborted
          ? new Map(job.stores.map((store) => [store, { outcome: 'interrupted', runningInGlance: false,
            reason: 'the run stopped before this copy started' }]))
          : await waitForWindow(ctx, options).then(() => runImageJob(ctx, job, { options, catalogue, counters, emit, pace, transfer }));
        for (const [store, result] of results) {
          const item = itemOf(job, store);
          if (item !== undefined) decide(item, result);
        }
        governor?.jobEnded(job.image.size, results);
        emit(Object.freeze({ type: 'job-done', imageId: job.imageId }));
      })));
      // A job ends in a result per store; anything thrown is a defect, surfaced once every job has ended.
      const defect = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (defect !== undefined) throw defect.reason;
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
    }
    aborted = options.signal?.aborted === true;
  }

  const items = plan.items.map((item) => decided.get(key(item.imageId, item.store))
    ?? Object.freeze({ imageId: item.imageId, imageName: item.imageName, store: item.store, planned: item.state, action: item.action,
      outcome: 'interrupted' as const, runningInGlance: false, reason: 'never started' }));
  return Object.freeze({
    stores: Object.freeze([...options.stores]),
    dryRun: options.dryRun,
    aborted,
    elapsedMs: clock.now() - started,
    requestMode: options.requestMode,
    concurrency: options.concurrency,
    concurrencyMode: options.adaptiveConcurrency ? 'adaptive' : 'fixed',
    concurrencyReached: governor?.reached ?? options.concurrency,
    concurrencyChanges: Object.freeze([...(governor?.changes ?? [])]),
    perStoreConcurrency: options.perStoreConcurrency,
    storeTypesKnown: plan.storeTypesKnown,
    plan: plan.counts,
    counts: countOutcomes(items),
    items: Object.freeze(items),
    runningInGlance: runningCopies(items),
    requests: Object.freeze({ ...counters }),
  });
}

function withoutError({ error: _error, ...rest }: StoreResult): Omit<StoreResult, 'error'> {
  return rest;
}

/** Interrupted items whose copy goes on inside Glance, one entry per image and task. */
function runningCopies(items: readonly PrewarmItemReport[]): readonly RunningCopy[] {
  const copies = new Map<string, { imageId: string; imageName: string | null; stores: string[]; taskId: string }>();
  for (const item of items) {
    if (item.outcome !== 'interrupted' || item.runningInGlance !== true || item.taskId === undefined) continue;
    const entry = copies.get(`${item.imageId}\u0000${item.taskId}`)
      ?? { imageId: item.imageId, imageName: item.imageName, stores: [], taskId: item.taskId };
    entry.stores.push(item.store);
    copies.set(`${item.imageId}\u0000${item.taskId}`, entry);
  }
  return Object.freeze([...copies.values()].map((copy) => Object.freeze({ ...copy, stores: Object.freeze(copy.stores) })));
}

/**
 * The run's transfer. In prewarm and sync every cluster named by --source-ceph-conf is both read from and written to
 * (an operator's host that owns the sites), plus the local store's cluster when --ceph-conf names it.
 */
function runTransfer(options: ResolvedPrewarmOptions): CopyTransfer {
  const user = options.localCluster?.user;
  const targets = sourceClusters(options, user);
  if (options.localCluster !== undefined && options.localStore !== undefined) targets.set(options.localStore, options.localCluster);
  return chooseTransfer(options, targets, user, { perClusterLimit: options.perClusterTransfers, bytesPerSecond: options.bytesPerSecond,
    ...(options.fanOut === undefined ? {} : { fanOut: { perHolder: options.fanOut, originCopies: options.fanOut } }) });
}
