import { isFerryError, type FerryError } from '../errors/ferry-error.js';
import type { GlanceImage } from '../glance/image.js';
import { hasStore } from '../glance/image.js';
import type { GlanceTask } from '../glance/image-task.js';
import { waitFor } from '../wait/wait-for.js';
import { copyShared, type CopyContext } from './copy-context.js';
import { startDeadline, type CopyDeadline } from './copy-deadline.js';
import { failedError, failedReason, gaveUpError, stuckError, timeoutError, unconfirmedError, type Leftover, type WaitSeen } from './copy-errors.js';
import type { CopySnapshot } from './copy-snapshot.js';
import { copyState, type StaleRule } from './copy-state.js';
import { ENSURE_DEFAULTS } from './ensure-options.js';
import { followImport, type CopyCounters, type FollowEnvironment, type GlanceOutage } from './follow-import.js';
import { judgeOwnImport, type OwnImportVerdict } from './judge-own-import.js';
import { errorResult, type StoreCopyResult } from './store-copy-result.js';

/** Where one store stands before a round: the caller's own rule (clonable for ensure, placement for prewarm). */
export type StorePlacement<Skip extends string> =
  | { readonly kind: 'present' }
  | { readonly kind: 'missing' }
  /** The caller decides this store now (not copyable: skipped); the engine passes the result on. */
  | { readonly kind: 'settled'; readonly result: StoreCopyResult<Skip> };

export type CopyJobPhase = 'checking' | 'requesting' | 'copying' | 'joining';

export interface CopyJobProgress {
  readonly phase: CopyJobPhase;
  readonly stores: readonly string[];
  readonly elapsedMs: number;
  readonly polls: number;
  readonly taskMessage: string | undefined;
  readonly note: string | undefined;
}

/** How long a job's imports take, learnt by the caller across jobs (prewarm's run pace). */
export interface ImportPace {
  expectedMs(storeCount: number): number | undefined;
  record(storeCount: number, durationMs: number): void;
}

export interface CopyJobOptions<Skip extends string> {
  /** The stores to bring the image into, in the order Glance should write them. */
  readonly stores: readonly string[];
  readonly classify: (image: GlanceImage, store: string) => StorePlacement<Skip>;
  /** `image`: one import naming every missing store (allow-failure); `store`: one store per import. */
  readonly requestMode: 'image' | 'store';
  readonly timeoutMs: number;
  readonly minPollDelayMs: number;
  readonly maxPollDelayMs: number;
  readonly staleLockAfterMs: number;
  /** Make Glance bust a lock it would release anyway (expired by its own rule), then follow our own import. */
  readonly takeOverExpired: boolean;
  /** The caller's signal; the deadline is added to it. */
  readonly signal?: AbortSignal | undefined;
  /** A deadline the caller started earlier (to cover its own reads); otherwise the job starts one. */
  readonly deadline?: CopyDeadline;
  readonly counters?: CopyCounters;
  readonly random?: (() => number) | undefined;
  /** Learnt import durations of the caller's run: for the first read after a request. */
  readonly pace?: ImportPace;
  /** First read after an accepted request at this fraction of the expected duration (learnt / only guessed); none when absent. */
  readonly firstRead?: { readonly learnt: number; readonly guessed: number };
  readonly onProgress?: (event: CopyJobProgress) => void;
  /** Is a failed store's target taken by a leftover RBD image? Asked only after Glance failed a copy to that store. */
  readonly findLeftover?: (store: string, image: GlanceImage, signal: AbortSignal) => Promise<Leftover | undefined>;
}

export interface CopyJobResult<Skip extends string> {
  /** The last snapshot of the image the job read. */
  readonly image: GlanceImage;
  readonly results: ReadonlyMap<string, StoreCopyResult<Skip>>;
  /** The job waited on an import someone else ran (or was told the image was busy). */
  readonly joinedOther: boolean;
  /** The task whose expired lock this job made Glance bust. */
  readonly tookOver: string | undefined;
  readonly counters: CopyCounters;
  readonly elapsedMs: number;
}

/** The import this job requested and has not seen settle: what may go on inside Glance if the job stops. */
interface PendingImport {
  readonly stores: readonly string[];
  taskId: string | undefined;
}

/**
 * The one copy engine. Bring `image` into `options.stores`, round after round, each from a fresh snapshot:
 * - stores the caller calls present are done (`present` at first, later `joined` or `copied`);
 * - a lock someone else holds is joined: waited out without a request, then looked at again;
 * - otherwise one import is requested (all missing stores at once, or the first) and followed until its task lets go
 *   of the lock; our own task is told by its request id, so a 202 whose task Glance aborted (the lock race between
 *   API workers) is not mistaken for our copy: another task's copy is `joined`, no copy at all is another round;
 * - a lock that proves stuck ends the job, unless Glance's own rule would release it: then (takeOverExpired) the job
 *   sends the import that makes Glance bust it and follows its own copy;
 * - a request whose answer was lost (reset, 502/503/504) is looked up on the image instead of being assumed lost;
 * - one deadline for the whole job cuts every request in flight.
 * Rounds are bounded. Every store ends with one result; errors are results too (the caller may rethrow them).
 */
export async function runCopyJob<Skip extends string>(ctx: CopyContext, first: GlanceImage, options: CopyJobOptions<Skip>): Promise<CopyJobResult<Skip>> {
  const { clock, glance, logger } = ctx;
  const started = clock.now();
  const deadline = options.deadline ?? startDeadline(clock, options.timeoutMs, options.signal);
  const ownDeadline = options.deadline === undefined;
  const counters: CopyCounters = options.counters ?? { imageReads: 0, importRequests: 0, taskReads: 0 };
  const rule: StaleRule = { staleAfterMs: options.staleLockAfterMs, finishedGraceMs: ENSURE_DEFAULTS.finishedGraceMs };
  const results = new Map<string, StoreCopyResult<Skip>>();
  const outage: GlanceOutage = { refused: false, backAtWallMs: undefined, warned: false };
  let remaining = [...options.stores];
  let image = first;
  let joinedOther = false;
  let touchedGlance = false;
  let tookOver: string | undefined;
  let pending: PendingImport | undefined;
  let taskMessage: string | undefined;
  let phase: CopyJobPhase = 'checking';
  let phaseStores: readonly string[] = remaining;
  /** A lock we proved expired: the next round asks Glance to bust it instead of joining it. */
  let expiredLock: string | undefined;
  /** The last request's answer was lost: what shows up next may be its copy. */
  let unconfirmed: { readonly stores: readonly string[]; readonly error: FerryError } | undefined;
  /** Why a store is `joined`: the task seen bringing it. */
  const broughtBy = new Map<string, string>();
  let lastWait: WaitSeen = { elapsedMs: 0 };

  const elapsed = (): number => clock.now() - started;
  const progress = (next: CopyJobPhase, stores: readonly string[], note?: string): void => {
    phase = next;
    phaseStores = stores;
    options.onProgress?.(Object.freeze({ phase: next, stores: Object.freeze([...stores]), elapsedMs: elapsed(), polls: counters.imageReads,
      taskMessage, note }));
  };
  const settle = (stores: readonly string[], make: (store: string) => StoreCopyResult<Skip>): void => {
    for (const store of stores) if (!results.has(store)) results.set(store, Object.freeze(make(store)));
    remaining = remaining.filter((store) => !results.has(store));
  };
  const settleError = (stores: readonly string[], error: FerryError): void => {
    settle(stores, () => errorResult(error, image.id) ?? { outcome: 'failed', failure: 'error', code: error.code, reason: error.message, error });
  };
  /** One image read; `afterStop` reads without the job's (aborted) signal, to say what goes on after an interruption. */
  const read = async (mode: 'within-deadline' | 'afterStop' = 'within-deadline'): Promise<GlanceImage> => {
    counters.imageReads += 1;
    return glance.getImage(image.id, mode === 'afterStop' ? {} : { signal: deadline.signal });
  };
  const env: FollowEnvironment = {
    ctx, imageId: first.id, deadline, counters, rule, outage, random: options.random,
    delay: { minDelayMs: options.minPollDelayMs, maxDelayMs: options.maxPollDelayMs },
    onPoll: (note) => progress(phase, phaseStores, note),
    onTaskMessage: (message) => { taskMessage = message; },
  };
  const expectedMs = (stores: readonly string[]): { ms: number | undefined; learnt: boolean } => {
    const learnt = options.pace?.expectedMs(stores.length);
    if (learnt !== undefined) return { ms: learnt, learnt: true };
    const guessed = stores.reduce<number | undefined>((sum, store) => {
      const one = copyShared(ctx).copyDurations.expectedMs(store, image.size);
      return sum === undefined || one === undefined ? undefined : sum + one;
    }, 0);
    return { ms: guessed, learnt: false };
  };

  /** A wait that did not settle: stuck (maybe to take over), timed out, or interrupted. Returns true to go on. */
  const waitFailed = (outcome: Exclude<Awaited<ReturnType<typeof followImport>>['outcome'], { state: 'success' }>, stores: readonly string[]): boolean => {
    lastWait = outcome;
    if (outcome.last !== undefined) image = outcome.last.image;
    if (outcome.state === 'aborted') {
      if (deadline.expired()) settleError(remaining, timeoutError(remaining, outcome.last?.image ?? image, deadline.timeoutMs, outcome, taskMessage));
      else settle(remaining, () => ({ outcome: 'interrupted', runningInGlance: true, reason: 'the run stopped while Glance was copying',
        ...(outcome.last?.watchedTask ? { taskId: outcome.last.watchedTask } : {}) }));
      return false;
    }
    if (outcome.state === 'timeout') {
      settleError(remaining, timeoutError(remaining, outcome.last?.image ?? image, deadline.timeoutMs, outcome, taskMessage));
      return false;
    }
    const last = outcome.last;
    const stuck = last === undefined ? undefined
      : stores.map((store) => copyState(last, store, rule)).find((state) => state.kind === 'stuck');
    if (last !== undefined && stuck !== undefined && stuck.kind === 'stuck') {
      if (stuck.expired && options.takeOverExpired && expiredLock !== stuck.taskId) {
        logger.warn({ imageId: image.id, taskId: stuck.taskId, cause: stuck.cause }, 'import lock expired by Glance\'s rule: taking it over');
        expiredLock = stuck.taskId;
        return true;
      }
      // The lock blocks the image's other stores too.
      settleError(remaining, stuckError(stuck, remaining, last, options.takeOverExpired, outcome));
      return false;
    }
    // storesSettledAcceptors fails a wait only on a stuck lock: anything else is a defect here, not Glance's doing.
    throw new Error(`copy engine: a wait failed without a stuck lock (${outcome.reason})`);
  };

  const maxRounds = options.stores.length + ENSURE_DEFAULTS.maxRequestRounds * 2;
  try {
    progress('checking', remaining);
    for (let round = 0; ; round += 1) {
      const placements = new Map(remaining.map((store) => [store, options.classify(image, store)] as const));
      const unnamed = remaining.filter((store) => placements.get(store)?.kind === 'present' && touchedGlance && !broughtBy.has(store));
      if (unnamed.length > 0) await nameBringers(unnamed);
      for (const store of remaining) {
        const placement = placements.get(store)!;
        if (placement.kind === 'present') {
          const taskId = broughtBy.get(store);
          settle([store], () => (touchedGlance
            ? { outcome: 'joined', reason: `brought into ${store} by ${taskId ? `import task ${taskId}` : 'an import'} this job did not start`
                + (unconfirmed ? ' (the answer to our own request was lost: it may have been ours)' : ''),
              elapsedMs: elapsed(), ...(taskId ? { taskId } : {}) }
            : { outcome: 'present', reason: `already in ${store}` }));
        } else if (placement.kind === 'settled') {
          settle([store], () => placement.result);
        }
      }
      if (remaining.length === 0) break;
      if (deadline.signal.aborted) throw deadline.signal.reason;
      if (round >= maxRounds) {
        settleError(remaining, gaveUpError(remaining, image.id, counters.importRequests, joinedOther));
        break;
      }

      const lock = image.importTask;
      if (lock !== undefined && lock !== expiredLock) {
        // Someone else's import holds the lock: wait for it to let go, without any request, then look again.
        touchedGlance = true;
        joinedOther = true;
        const writes = remaining.filter((store) => hasStore(image.importingTo, store));
        progress('joining', writes.length > 0 ? writes : remaining, `import task ${lock}`);
        const { outcome } = await followImport(env, { stores: remaining, watched: lock, taskCheckAfterMs: 0 });
        if (outcome.state !== 'success') {
          if (!waitFailed(outcome, remaining)) break;
          continue;
        }
        lastWait = outcome;
        image = outcome.value.image;
        for (const store of writes) broughtBy.set(store, lock);
        continue;
      }

      const batch = options.requestMode === 'store' ? remaining.slice(0, 1) : [...remaining];
      progress('requesting', batch, lock !== undefined ? `taking over the expired lock of task ${lock}` : undefined);
      counters.importRequests += 1;
      touchedGlance = true;
      const requested = clock.now();
      pending = { stores: batch, taskId: undefined };
      let answer;
      try {
        answer = await glance.requestCopy(image.id, { stores: batch, ...(batch.length > 1 ? { allStoresMustSucceed: false } : {}) },
          { signal: deadline.signal });
      } catch (error) {
        if (!isUnconfirmed(error) || deadline.signal.aborted) throw error;
        // The request may have reached Glance: look at the image before asking again (never two imports on a guess).
        logger.warn({ imageId: image.id, stores: batch, code: error.code }, 'the answer to the copy request was lost: looking at the image');
        unconfirmed = { stores: batch, error };
        image = await readThrough(batch, error);
        continue;
      }
      ctx.logger.info({ imageId: image.id, stores: batch, answer: answer.kind }, 'copy-image requested');
      if (answer.kind !== 'accepted') {
        pending = undefined;
        // 400 "already present" (a copy that just ended) or 409 busy (one that runs, or a lock another client busted
        // first): read again and decide.
        if (answer.kind === 'busy') joinedOther = true;
        image = await read();
        continue;
      }
      if (lock !== undefined) tookOver = lock;
      expiredLock = undefined;
      unconfirmed = undefined;
      const expected = expectedMs(batch);
      const firstDelayMs = options.firstRead === undefined || expected.ms === undefined ? 0
        : Math.min(options.maxPollDelayMs, Math.max(options.minPollDelayMs,
          expected.ms * (expected.learnt ? options.firstRead.learnt : options.firstRead.guessed)));
      progress('copying', batch);
      const { outcome, endedAt } = await followImport(env, { stores: batch, watched: undefined, expectedDurationMs: expected.ms, firstDelayMs,
        taskCheckAfterMs: ENSURE_DEFAULTS.taskCheckAfterMs });
      if (outcome.state !== 'success') {
        pending.taskId ??= outcome.last?.watchedTask;
        if (!waitFailed(outcome, batch)) break;
        continue;
      }
      lastWait = outcome;
      pending = undefined;
      image = outcome.value.image;
      counters.taskReads += 1;
      const tasks = await glance.listImageTasks(image.id, { signal: deadline.signal });
      const durationMs = endedAt - requested;
      options.pace?.record(batch.length, durationMs);
      for (const store of batch) {
        const verdict = judgeOwnImport(outcome.value, store, rule, tasks, answer.requestId);
        await settleJudged(store, verdict, tasks, outcome.value, durationMs / batch.length, clock.now() - requested);
      }
    }
  } catch (error) {
    if (options.signal?.aborted === true) {
      settle(remaining, () => ({ outcome: 'interrupted', runningInGlance: false, reason: 'the run stopped' }));
    } else if (deadline.expired()) {
      settleError(remaining, unconfirmed !== undefined
        ? unconfirmedError(unconfirmed.stores, image.id, unconfirmed.error, deadline.timeoutMs)
        : timeoutError(remaining, image, deadline.timeoutMs, { ...lastWait, elapsedMs: elapsed() }, taskMessage));
    } else if (isFerryError(error)) {
      settleError(remaining, error);
    } else {
      throw error;
    }
  } finally {
    if (ownDeadline) deadline.dispose();
  }
  if (options.signal?.aborted === true && touchedGlance) await markRunningInGlance(results, () => read('afterStop'), pending);
  return Object.freeze({ image, results, joinedOther, tookOver, counters, elapsedMs: elapsed() });

  /**
   * Which task brought stores that showed up while this job waited (a 409, a 400, a join that saw no store being
   * written): the lock holder, or else the newest successful import task, naming each. One task read; best effort (a refusal leaves them unnamed).
   */
  async function nameBringers(stores: readonly string[]): Promise<void> {
    counters.taskReads += 1;
    const tasks = await glance.listImageTasks(image.id, { signal: deadline.signal }).catch(() => [] as readonly GlanceTask[]);
    for (const store of stores) {
      // The lock holder counts too: an import writing several stores shows the first ones before it ends.
      const brought = tasks.filter((task) => (task.status === 'success' || task.id === image.importTask)
        && (task.stores.length === 0 || task.stores.includes(store)))
        .sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt))[0];
      if (brought !== undefined) broughtBy.set(store, brought.id);
    }
  }

  /** After a lost answer: read until Glance answers (through an outage), within the deadline. */
  async function readThrough(stores: readonly string[], cause: FerryError): Promise<GlanceImage> {
    progress('requesting', stores, 'the answer to the copy request was lost: looking at the image');
    const outcome = await waitFor(() => read(), [(snapshot: GlanceImage) => ({ state: 'success' as const, value: snapshot })], {
      deadlineMs: deadline.remainingMs(), delay: env.delay, signal: deadline.signal, clock, ...(options.random ? { random: options.random } : {}),
    });
    if (outcome.state === 'success') return outcome.value;
    throw unconfirmedError(stores, image.id, cause, deadline.timeoutMs);
  }

  async function settleJudged(store: string, verdict: OwnImportVerdict, tasks: readonly GlanceTask[], snapshot: CopySnapshot,
    perStoreMs: number, elapsedMs: number): Promise<void> {
    switch (verdict.kind) {
      case 'copied':
        copyShared(ctx).copyDurations.record(store, image.size, perStoreMs);
        settle([store], () => ({ outcome: 'copied', reason: `copied to ${store}`, elapsedMs, ...(verdict.taskId ? { taskId: verdict.taskId } : {}) }));
        return;
      case 'joined':
        joinedOther = true;
        settle([store], () => ({ outcome: 'joined', elapsedMs, taskId: verdict.taskId,
          reason: `our import task ${verdict.ownTaskId} was aborted by Glance; task ${verdict.taskId} brought ${store}` }));
        return;
      case 'lost':
        // Glance aborted our task and no other brought the store: ask again next round (bounded).
        logger.info({ imageId: image.id, store, taskId: verdict.ownTaskId }, 'our import task was aborted without a copy: requesting again');
        return;
      case 'failed': {
        const failing = verdict.taskId === undefined ? undefined : tasks.find((t) => t.id === verdict.taskId);
        const leftover = verdict.failure === 'failed' && options.findLeftover
          ? await options.findLeftover(store, snapshot.image, deadline.signal).catch((error: unknown) => {
            logger.warn({ store, error: (error as Error).message }, 'could not check the target pool for a leftover RBD image');
            return undefined;
          })
          : undefined;
        const error = failedError(verdict.failure, store, snapshot.image, failing, snapshot.image.failedImport, leftover, { ...lastWait, elapsedMs });
        settle([store], () => ({ outcome: 'failed', failure: verdict.failure, code: error.code, error, elapsedMs,
          reason: leftover === undefined ? failedReason(verdict.failure, store, snapshot.image.failedImport) : error.message,
          ...(verdict.taskId ? { taskId: verdict.taskId } : {}) }));
      }
    }
  }
}

/** A request whose answer was lost after it may have reached the server, or a gateway saying the service is away. */
function isUnconfirmed(error: unknown): error is FerryError {
  if (!isFerryError(error) || error.code === 'FERRY_ABORTED') return false;
  if (error.code === 'FERRY_HTTP' && error.details.retryable === true) return true;
  return error.details.retryable === true && error.details.notSent !== true;
}

/**
 * After an interruption, ask Glance (one read, without the aborted signal) which of the interrupted stores an import
 * is still writing: that is what goes on, whatever this job believed when it stopped.
 */
async function markRunningInGlance<Skip extends string>(results: Map<string, StoreCopyResult<Skip>>, read: () => Promise<GlanceImage>,
  pending: PendingImport | undefined): Promise<void> {
  const interrupted = [...results].filter(([, result]) => result.outcome === 'interrupted');
  if (interrupted.length === 0) return;
  const image = await read().catch(() => undefined);
  if (image === undefined) {
    // Glance did not answer: keep what the job believed, with the task of its own pending import when it knew it.
    for (const [store, result] of interrupted) {
      if (result.runningInGlance === true && result.taskId === undefined && pending?.taskId !== undefined && pending.stores.includes(store)) {
        results.set(store, Object.freeze({ ...result, taskId: pending.taskId }));
      }
    }
    return;
  }
  for (const [store, result] of interrupted) {
    const lock = image.importTask;
    // Until its flow starts, an accepted import holds the lock but lists no store as importing yet.
    const ours = pending !== undefined && pending.stores.includes(store) && (pending.taskId === undefined || pending.taskId === lock);
    const running = lock !== undefined && (hasStore(image.importingTo, store) || (ours && !hasStore(image.stores, store)));
    results.set(store, Object.freeze({ ...result, runningInGlance: running,
      ...(running ? { taskId: lock, reason: `the run stopped; import task ${lock} goes on copying it inside Glance` }
        : { reason: result.runningInGlance === true ? 'the run stopped; the copy had already ended inside Glance' : result.reason }) }));
  }
}
