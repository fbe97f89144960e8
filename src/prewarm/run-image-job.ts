import type { CopyContext } from '../copy/copy-context.js';
import type { CopySnapshot } from '../copy/copy-snapshot.js';
import { copyWaitError } from '../copy/copy-wait-error.js';
import { ENSURE_DEFAULTS } from '../copy/ensure-options.js';
import type { GlanceImage } from '../glance/image.js';
import { hasStore } from '../glance/image.js';
import type { GlanceTask } from '../glance/image-task.js';
import type { Acceptor } from '../wait/verdict.js';
import { waitFor, type WaitOutcome } from '../wait/wait-for.js';
import { classifyPlacement } from './classify-placement.js';
import type { PlannedJob } from './plan-prewarm.js';
import type { JobPhase, PrewarmEvent } from './prewarm-events.js';
import type { ResolvedPrewarmOptions } from './prewarm-options.js';
import type { StoreCatalogue } from './store-catalogue.js';
import { errorResult, judgeRequestedStore, skippedResult, type StoreResult } from './store-result.js';
import type { RunPace } from './run-pace.js';
import { storesSettledAcceptors } from './stores-settled-acceptors.js';

export interface RequestCounters {
  imageReads: number;
  importRequests: number;
  taskReads: number;
}

export interface JobEnvironment {
  readonly options: ResolvedPrewarmOptions;
  readonly catalogue: StoreCatalogue;
  readonly counters: RequestCounters;
  readonly emit: (event: PrewarmEvent) => void;
  /** The run's own import durations: when to read after a request. */
  readonly pace: RunPace;
}

/**
 * When to read first after a 202, as a fraction of the expected duration: late when the run's own recent imports
 * predict it, earlier when only the size-based guess does. Glance sets the lock before it answers 202, so a read at any
 * time sees our task or its result; a read at once would only say "started".
 */
const FIRST_READ_AT = { learnt: 0.75, guessed: 0.5 } as const;

/**
 * Bring one image into its stores. Each round starts from a fresh read of the image: stores now present are done
 * (joined, if this job did not copy them), a lock someone else holds is joined (waited out, no request), otherwise
 * one import is requested — all remaining stores at once (requestMode `image`, allow-failure) or the first of them
 * (`store`) — and followed until its task lets go of the lock; then each store is judged as ensure() judges it.
 * A store that failed is not retried in this run. Per store the result is decided once.
 */
export async function runImageJob(ctx: CopyContext, job: PlannedJob, env: JobEnvironment): Promise<ReadonlyMap<string, StoreResult>> {
  const { clock, glance } = ctx;
  const { options, counters } = env;
  const { signal } = options;
  const rule = { staleAfterMs: options.staleLockAfterMs, finishedGraceMs: ENSURE_DEFAULTS.finishedGraceMs };
  const started = clock.now();
  const results = new Map<string, StoreResult>();
  let remaining = [...job.stores];
  let touchedGlance = false;
  /** The import this job requested and has not seen settle: what may go on inside Glance if the run stops. */
  let pending: { readonly stores: readonly string[]; taskId: string | undefined } | undefined;
  let taskMessage: string | undefined;

  const settle = (stores: readonly string[], make: (store: string) => StoreResult): void => {
    for (const store of stores) if (!results.has(store)) results.set(store, Object.freeze(make(store)));
    remaining = remaining.filter((store) => !results.has(store));
  };
  const progress = (phase: JobPhase, stores: readonly string[], note?: string): void =>
    env.emit(Object.freeze({ type: 'job-progress', imageId: job.imageId, imageName: job.imageName, stores: Object.freeze([...stores]), phase,
      elapsedMs: clock.now() - started, taskMessage, note }));
  const read = (withSignal = true): Promise<GlanceImage> => {
    counters.imageReads += 1;
    return glance.getImage(job.imageId, withSignal ? { signal } : {});
  };

  /** Poll the image (and, in long waits, the lock holder's task) until the stores settle. */
  const waitSettled = async (stores: readonly string[], acceptors: readonly Acceptor<CopySnapshot, CopySnapshot>[],
    watched: string | undefined, phase: JobPhase, firstPollAfterMs = 0): Promise<WaitOutcome<CopySnapshot, CopySnapshot>> => {
    const waitStarted = clock.now();
    let watchedTask = watched;
    let task: GlanceTask | undefined;
    let lastTaskCheck = Number.NEGATIVE_INFINITY;
    let firstDelay = firstPollAfterMs;
    return waitFor(async (pollSignal) => {
      if (firstDelay > 0) {
        await clock.sleep(firstDelay, pollSignal);
        firstDelay = 0;
      }
      const current = await read();
      watchedTask ??= current.importTask;
      if (pending !== undefined && phase === 'copying') pending.taskId ??= watchedTask;
      const now = clock.now();
      if (current.importTask === undefined) {
        task = undefined;
      } else if (now - waitStarted >= ENSURE_DEFAULTS.taskCheckAfterMs && now - lastTaskCheck >= ENSURE_DEFAULTS.taskCheckEveryMs) {
        lastTaskCheck = now;
        counters.taskReads += 1;
        const tasks = await glance.listImageTasks(job.imageId, { signal: pollSignal });
        task = tasks.find((candidate) => candidate.id === current.importTask);
        if (task?.message) taskMessage = task.message;
      }
      return { image: current, watchedTask, task: task?.id === current.importTask ? task : undefined,
        elapsedMs: clock.now() - waitStarted, wallNowMs: clock.wallNow() };
    }, acceptors, {
      deadlineMs: options.timeoutMs,
      delay: { minDelayMs: options.minPollDelayMs, maxDelayMs: options.maxPollDelayMs },
      signal, clock, ...(options.random ? { random: options.random } : {}),
      onPoll: ({ verdict }) => progress(phase, stores, verdict.state === 'retry' ? verdict.note : verdict.state),
    });
  };

  /** A wait that did not settle ends its stores: stuck or timed out (the copy may go on), or interrupted. */
  const settleUnfinished = (stores: readonly string[], outcome: Exclude<WaitOutcome<CopySnapshot, CopySnapshot>, { state: 'success' }>): void => {
    const taskId = outcome.last?.watchedTask ?? outcome.last?.image.importTask;
    const task = taskId === undefined ? {} : { taskId };
    if (outcome.state === 'aborted') {
      settle(stores, () => ({ outcome: 'interrupted', runningInGlance: true, reason: 'the run stopped while Glance was copying', ...task }));
      return;
    }
    const error = copyWaitError(outcome, stores[0] ?? '', rule);
    const failure = outcome.state === 'timeout' ? 'timeout' : 'stuck';
    settle(stores, () => ({ outcome: 'failed', failure, code: error.code, reason: error.message, elapsedMs: outcome.elapsedMs, ...task,
      ...(outcome.state === 'timeout' ? { runningInGlance: true } : {}) }));
  };

  const maxRounds = job.stores.length + ENSURE_DEFAULTS.maxRequestRounds * 2;
  try {
    // The plan's snapshot stands in for a first read: a request on a stale one is answered 409 (busy) or 400 (already
    // present), and both lead to a fresh read; a lock it shows is joined by polling, which reads anyway.
    progress('checking', remaining);
    let image = job.image;
    for (let round = 0; ; round += 1) {
      for (const store of remaining) {
        const verdict = classifyPlacement(image, store, env.catalogue.stores.find((s) => s.id === store), options);
        if (verdict.state === 'present') {
          settle([store], () => ({ outcome: 'joined', reason: `brought into ${store} by an import this run did not start`,
            elapsedMs: clock.now() - started }));
        } else if (verdict.state === 'not-copyable') {
          settle([store], () => skippedResult(verdict));
        }
      }
      if (remaining.length === 0) break;
      if (signal?.aborted) {
        settle(remaining, () => ({ outcome: 'interrupted', runningInGlance: false, reason: 'the run stopped before this copy was requested' }));
        break;
      }
      if (round >= maxRounds) {
        settle(remaining, () => ({ outcome: 'failed', failure: 'gave-up', code: 'FERRY_COPY_FAILED',
          reason: `still not in ${remaining.join(', ')} after ${round} rounds: other imports kept taking the image's lock` }));
        break;
      }

      if (image.importTask !== undefined) {
        // Someone else's import holds the lock: wait for it to let go, without any request, then look again.
        touchedGlance = true;
        const lock = image.importTask;
        const writes = remaining.filter((store) => hasStore(image.importingTo, store));
        progress('joining', writes.length > 0 ? writes : remaining, `import task ${lock}`);
        const outcome = await waitSettled(remaining, storesSettledAcceptors(remaining, rule), lock, 'joining');
        if (outcome.state !== 'success') {
          settleUnfinished(remaining, outcome);
          break;
        }
        image = outcome.value.image;
        continue;
      }

      const batch = options.requestMode === 'store' ? remaining.slice(0, 1) : [...remaining];
      progress('requesting', batch);
      counters.importRequests += 1;
      touchedGlance = true;
      const requested = clock.now();
      pending = { stores: batch, taskId: undefined };
      const answer = await glance.requestCopy(image.id, { stores: batch, ...(batch.length > 1 ? { allStoresMustSucceed: false } : {}) }, { signal });
      ctx.logger.info({ imageId: image.id, stores: batch, answer: answer.kind }, 'copy-image requested');
      if (answer.kind !== 'accepted') {
        pending = undefined;
        // 400 "already present" (a copy that just ended) or 409 busy (one that runs): read again and decide.
        image = await read();
        continue;
      }
      const learnt = env.pace.expectedMs(batch.length);
      const guessed = batch.reduce<number | undefined>((sum, store) => {
        const one = ctx.copyDurations.expectedMs(store, image.size);
        return sum === undefined || one === undefined ? undefined : sum + one;
      }, 0);
      const expected = learnt ?? guessed;
      const firstPollAfterMs = expected === undefined ? 0
        : Math.min(options.maxPollDelayMs, Math.max(options.minPollDelayMs, expected * (learnt === undefined ? FIRST_READ_AT.guessed : FIRST_READ_AT.learnt)));
      const outcome = await waitSettled(batch, storesSettledAcceptors(batch, { ...rule, expectedDurationMs: expected }), undefined, 'copying',
        firstPollAfterMs);
      if (outcome.state !== 'success') {
        // A lock that is stuck, or outlived the deadline, blocks the image's other stores too.
        settleUnfinished(remaining, outcome);
        break;
      }
      pending = undefined;
      const elapsedMs = clock.now() - requested;
      env.pace.record(batch.length, elapsedMs);
      for (const store of batch) {
        const result = judgeRequestedStore(outcome.value, store, rule, elapsedMs);
        if (result.outcome === 'copied') ctx.copyDurations.record(store, image.size, elapsedMs / batch.length);
        settle([store], () => result);
      }
      image = outcome.value.image;
    }
  } catch (error) {
    if (signal?.aborted) {
      settle(remaining, () => ({ outcome: 'interrupted', runningInGlance: false, reason: 'the run stopped' }));
    } else {
      const result = errorResult(error, job.imageId);
      if (result === undefined) throw error;
      settle(remaining, () => result);
    }
  }
  if (signal?.aborted && touchedGlance) await markRunningInGlance(results, read, pending);
  return results;
}

/**
 * After an interruption, ask Glance (one read, without the aborted signal) which of the interrupted stores an import
 * is still writing: that is what goes on, whatever this job believed when it stopped.
 */
async function markRunningInGlance(results: Map<string, StoreResult>, read: (withSignal: boolean) => Promise<GlanceImage>,
  pending: { readonly stores: readonly string[]; readonly taskId: string | undefined } | undefined): Promise<void> {
  const interrupted = [...results].filter(([, result]) => result.outcome === 'interrupted');
  if (interrupted.length === 0) return;
  const image = await read(false).catch(() => undefined);
  if (image === undefined) return;
  for (const [store, result] of interrupted) {
    const lock = image.importTask;
    // Until its flow starts, an accepted import holds the lock but lists no store as importing yet.
    const ours = pending !== undefined && pending.stores.includes(store) && (pending.taskId === undefined || pending.taskId === lock);
    const running = lock !== undefined && (hasStore(image.importingTo, store) || (ours && !hasStore(image.stores, store)));
    results.set(store, Object.freeze({ ...result, runningInGlance: running,
      ...(running ? { taskId: image.importTask, reason: `the run stopped; import task ${image.importTask} goes on copying it inside Glance` }
        : { reason: result.runningInGlance === true ? 'the run stopped; the copy had already ended inside Glance' : result.reason }) }));
  }
}
