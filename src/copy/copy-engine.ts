import type { CopyPolicy } from '../config/copy-policy.js';
import { isFerryError, type FerryError } from '../errors/ferry-error.js';
import type { GlanceImage } from '../glance/image.js';
import { hasStore } from '../glance/image.js';
import type { GlanceTask } from '../glance/image-task.js';
import { copyShared, type CopyContext } from './copy-context.js';
import { startDeadline } from './copy-deadline.js';
import { failedError, failedReason, gaveUpError, stuckError, timeoutError, unconfirmedError } from './copy-errors.js';
import type { CopyJob, CopyJobOptions, CopyJobPhase, CopyJobResult, FailedWait, JobState, PendingImport, TransferEffects, TransferOutcome } from './copy-job.js';
import { batchingMode, decideRound, judgeWaitFailure, storesToName, type RoundAction } from './copy-round.js';
import type { StaleRule } from './copy-state.js';
import { COPY_ENGINE_LIMITS } from './ensure-options.js';
import { followImport, type CopyCounters } from './follow-import.js';
import { judgeStoreAtDeadline } from './judge-at-deadline.js';
import { noOutage } from './glance-outage.js';
import type { OwnImportVerdict } from './judge-own-import.js';
import { errorResult, type StoreCopyResult } from './store-copy-result.js';
import { glanceCopyImage } from './transfer/glance-copy-image.js';

export type { CopyJobOptions, CopyJobPhase, CopyJobProgress, CopyJobResult, ImportPace } from './copy-job.js';
export type { StorePlacement } from './copy-round.js';

/**
 * The one copy engine. Bring `image` into `options.stores`, round after round, each from a fresh snapshot:
 * - one round's decision is a pure function of what was read (decideRound): settle what is present, join a lock
 *   someone else holds (wait it out without a request, then look again), or hand the missing stores to the transfer
 *   (Glance's copy-image by default: request, follow, tell our own task by its request id);
 * - a wait that does not settle is judged purely too (judgeWaitFailure): a stuck lock ends the job, unless Glance's own
 *   rule would release it: then (takeOverExpired) the next transfer makes Glance bust it;
 * - an outage seen in any step (refused connections, a gateway's 502/503/504) followed by answers again counts as a
 *   glance-api restart: a task that has not moved since is dead (FERRY_COPY_STUCK, cause glance-restarted);
 * - one deadline for the whole job cuts every request in flight.
 * Rounds are bounded. Every store ends with one result; errors are results too (the caller may rethrow them).
 */
export async function runCopyJob<Skip extends string>(ctx: CopyContext, first: GlanceImage, options: CopyJobOptions<Skip>): Promise<CopyJobResult<Skip>> {
  const job = startJob(ctx, first, options);
  const transfer = options.transfer ?? glanceCopyImage;
  const maxRounds = options.stores.length + COPY_ENGINE_LIMITS.maxRequestRounds * 2;
  try {
    job.progress('checking', job.state.remaining);
    for (let round = 0; ; round += 1) {
      const next = await decideAndSettle(job, round, maxRounds);
      if (next.kind === 'done') break;
      if (job.deadline.signal.aborted) throw job.deadline.signal.reason;
      if (next.kind === 'give-up') {
        settleError(job, next.stores, gaveUpError(next.stores, job.state.image.id, job.counters.importRequests, job.state.joinedOther));
        break;
      }
      job.state.touchedGlance = true;
      const goOn = next.kind === 'join' ? await joinImport(job, next)
        : await applyTransfer(job, next.batch, await transfer.bring(job, next.batch, next.takingOver));
      if (!goOn) break;
    }
  } catch (error) {
    settleAfterThrow(job, error);
  } finally {
    if (options.deadline === undefined) job.deadline.dispose();
  }
  if (options.signal?.aborted === true && job.state.touchedGlance) await markRunningInGlance(job.state.results, () => job.read('afterStop'), job.state.pending);
  const { state } = job;
  return Object.freeze({ image: state.image, results: state.results, joinedOther: state.joinedOther, tookOver: state.tookOver,
    counters: job.counters, elapsedMs: job.elapsed() });
}

function startJob<Skip extends string>(ctx: CopyContext, first: GlanceImage, options: CopyJobOptions<Skip>): CopyJob<Skip> {
  const { clock } = ctx;
  const policy: CopyPolicy = options.policy;
  const started = clock.now();
  const deadline = options.deadline ?? startDeadline(clock, policy.timeoutMs, options.signal);
  const counters: CopyCounters = options.counters ?? { imageReads: 0, importRequests: 0, taskReads: 0 };
  const rule: StaleRule = { staleAfterMs: policy.staleLockAfterMs, finishedGraceMs: COPY_ENGINE_LIMITS.finishedGraceMs };
  const outage = noOutage();
  const state: JobState<Skip> = {
    image: first, remaining: [...options.stores], results: new Map(), joinedOther: false, touchedGlance: false, tookOver: undefined,
    pending: undefined, taskMessage: undefined, phase: 'checking', phaseStores: options.stores, expiredLock: undefined,
    refusedTakeOvers: new Set(), unconfirmed: undefined, broughtBy: new Map(), importingSeen: new Set(), lastWait: { elapsedMs: 0 },
  };
  const elapsed = (): number => clock.now() - started;
  const progress = (phase: CopyJobPhase, stores: readonly string[], note?: string): void => {
    state.phase = phase;
    state.phaseStores = stores;
    options.onProgress?.(Object.freeze({ phase, stores: Object.freeze([...stores]), elapsedMs: elapsed(), polls: counters.imageReads,
      taskMessage: state.taskMessage, note }));
  };
  return {
    ctx, options, deadline, counters, rule, outage, state, elapsed, progress,
    follow: {
      ctx, imageId: first.id, deadline, counters, rule, outage, random: options.random,
      delay: { minDelayMs: policy.minPollDelayMs, maxDelayMs: policy.maxPollDelayMs },
      onPoll: (note) => progress(state.phase, state.phaseStores, note),
      onTaskMessage: (message) => { state.taskMessage = message; },
      onImage: (image) => { for (const store of image.importingTo) state.importingSeen.add(store); },
      refusedTakeOvers: state.refusedTakeOvers,
    },
    read: async (mode = 'within-deadline') => {
      counters.imageReads += 1;
      return ctx.glance.getImage(state.image.id, mode === 'afterStop' ? {} : { signal: deadline.signal });
    },
  };
}

/** One round: name the bringers of stores that showed up, then apply the pure decision's settlements. */
async function decideAndSettle<Skip extends string>(job: CopyJob<Skip>, round: number, maxRounds: number): Promise<RoundAction> {
  const { state, options } = job;
  const placements = new Map(state.remaining.map((store) => [store, options.classify(state.image, store)] as const));
  const unnamed = storesToName({ remaining: state.remaining, placements, touchedGlance: state.touchedGlance, broughtBy: state.broughtBy });
  if (unnamed.length > 0) await nameBringers(job, unnamed);
  const decision = decideRound({
    remaining: state.remaining, placements, touchedGlance: state.touchedGlance, broughtBy: state.broughtBy,
    answerLost: state.unconfirmed !== undefined, elapsedMs: job.elapsed(), round, maxRounds, lock: state.image.importTask,
    importingTo: state.image.importingTo, expiredLock: state.expiredLock,
    requestMode: batchingMode(options.transfer?.kind ?? 'glance', options.requestMode),
  });
  for (const [store, result] of decision.settle) settle(job, [store], () => result);
  return decision.next;
}

/** Someone else's import holds the lock: wait for it to let go, without any request. Returns false to end the job. */
async function joinImport<Skip extends string>(job: CopyJob<Skip>, join: Extract<RoundAction, { kind: 'join' }>): Promise<boolean> {
  const { state } = job;
  state.joinedOther = true;
  job.progress('joining', join.writes.length > 0 ? join.writes : join.stores, `import task ${join.lock}`);
  const { outcome } = await followImport(job.follow, { stores: join.stores, watched: join.lock, taskCheckAfterMs: 0 });
  if (outcome.state !== 'success') return waitFailed(job, outcome, join.stores);
  state.lastWait = outcome;
  state.image = outcome.value.image;
  for (const store of join.writes) state.broughtBy.set(store, join.lock);
  return true;
}

/** What the transfer reported, applied to the job (its effects first, whatever the outcome). Returns false to end the job. */
async function applyTransfer<Skip extends string>(job: CopyJob<Skip>, batch: readonly string[], outcome: TransferOutcome): Promise<boolean> {
  const { state } = job;
  recordEffects(state, outcome.effects);
  switch (outcome.kind) {
    case 'stopped':
      throw outcome.error;
    case 'answer-lost':
      // Glance did not answer again before the deadline (or the stop): the copy may be running inside it.
      if (outcome.image === undefined) throw unconfirmedFailure(job);
      state.image = outcome.image;
      return true;
    case 'not-started':
      state.image = outcome.image;
      if (outcome.deadLock === true && state.expiredLock !== undefined && outcome.image.importTask !== undefined) {
        // Glance busted the expired lock, then left it to a task it never stored: ask again at once, which busts that.
        job.ctx.logger.warn({ imageId: state.image.id, taskId: state.expiredLock, deadLock: outcome.image.importTask },
          'Glance released the expired lock but left it to a task it never created (this identity does not own the image): asking again');
        state.tookOver ??= state.expiredLock;
        state.expiredLock = outcome.image.importTask;
        return true;
      }
      if (outcome.busy) state.joinedOther = true;
      if (outcome.busy && state.expiredLock !== undefined && outcome.image.importTask === state.expiredLock) {
        // Glance would not bust it: its task exists (another project's, when we could not find it). Join it instead.
        job.ctx.logger.warn({ imageId: state.image.id, taskId: state.expiredLock },
          'Glance refused to release the import lock: its task exists, though this identity cannot see it; waiting for it instead');
        state.refusedTakeOvers.add(state.expiredLock);
        state.expiredLock = undefined;
      }
      return true;
    case 'wait-failed':
      return waitFailed(job, outcome.outcome, batch);
    case 'ended':
      state.lastWait = outcome.wait;
      state.image = outcome.snapshot.image;
      if ([...outcome.verdicts.values()].some((verdict) => verdict.kind === 'failed' && verdict.failure === 'aborted')) await throwIfDeletedMeanwhile(job);
      for (const [store, verdict] of outcome.verdicts) await settleJudged(job, store, verdict, outcome);
      return true;
  }
}

/** A transfer's effects, recorded in their order: a lost answer, then an acceptance (which resolves it), then what may run in Glance. */
function recordEffects<Skip extends string>(state: JobState<Skip>, effects: TransferEffects): void {
  if (effects.unconfirmed !== undefined) state.unconfirmed = effects.unconfirmed;
  if (effects.accepted !== undefined) {
    // The first lock busted for this job is the one it took over (a dead lock Glance left on the way is not).
    if (effects.accepted.takingOver !== undefined) state.tookOver ??= effects.accepted.takingOver;
    state.expiredLock = undefined;
    state.unconfirmed = undefined;
  }
  state.pending = effects.pending;
}

/** The request whose answer was lost never showed up before the deadline: the one wording of it. */
function unconfirmedFailure<Skip extends string>(job: CopyJob<Skip>): FerryError {
  const { state, deadline } = job;
  const lost = state.unconfirmed;
  if (lost === undefined) throw new Error('copy engine: an unconfirmed failure without a lost answer');
  return unconfirmedError(lost.stores, state.image.id, lost.error, deadline.timeoutMs);
}

/**
 * An import that ended without our store in either list (`aborted`: Glance's flow died without its own clean-up) may
 * be an image deletion still under way: Glance removes the data, failing the copy that reads it, before the record.
 * Read the image again for a moment (COPY_ENGINE_LIMITS.deletionRecheckPausesMs): a 404 ends the job as
 * FERRY_IMAGE_NOT_FOUND (20), as at any other read. Anything else (the deadline, an interruption, an outage) stops
 * looking, and the failure is reported as seen. A store Glance itself marked failed is reported at once: that is
 * the boot path's usual failure (nova waits on it), and Glance's clean-up saved the image after the failure.
 */
async function throwIfDeletedMeanwhile<Skip extends string>(job: CopyJob<Skip>): Promise<void> {
  for (const pauseMs of COPY_ENGINE_LIMITS.deletionRecheckPausesMs) {
    try {
      await job.ctx.clock.sleep(pauseMs, job.deadline.signal);
      await job.read();
    } catch (error) {
      if (isFerryError(error) && error.code === 'FERRY_IMAGE_NOT_FOUND') throw error;
      return;
    }
  }
}

/** A wait that did not settle: stuck (maybe to take over), timed out, or interrupted. Returns true to go on. */
function waitFailed<Skip extends string>(job: CopyJob<Skip>, outcome: FailedWait, stores: readonly string[]): boolean {
  const { state } = job;
  state.lastWait = outcome;
  if (outcome.last !== undefined) state.image = outcome.last.image;
  const verdict = judgeWaitFailure(outcome, stores, job.rule,
    { deadlineExpired: job.deadline.expired(), takeOverExpired: job.options.policy.takeOverExpired, expiredLock: state.expiredLock,
      refusedTakeOvers: state.refusedTakeOvers });
  switch (verdict.kind) {
    case 'timeout': {
      const image = outcome.last?.image ?? state.image;
      settleAtDeadline(job, image, (open) => timeoutError(open, image, job.deadline.timeoutMs, outcome, state.taskMessage, outcome.last));
      return false;
    }
    case 'interrupted':
      settle(job, state.remaining, () => ({ outcome: 'interrupted', runningInGlance: true, reason: 'the run stopped while Glance was copying',
        ...(verdict.taskId ? { taskId: verdict.taskId } : {}) }));
      return false;
    case 'take-over':
      job.ctx.logger.warn({ imageId: state.image.id, taskId: verdict.lock }, 'import lock expired by Glance\'s rule: taking it over');
      state.expiredLock = verdict.lock;
      return true;
    case 'stuck':
      // The lock blocks the image's other stores too.
      settleError(job, state.remaining, stuckError(verdict.state, state.remaining, verdict.snapshot, job.options.policy.takeOverExpired, outcome));
      return false;
  }
}

/** Our own import ended: record what it brought, or why not. */
async function settleJudged<Skip extends string>(job: CopyJob<Skip>, store: string, verdict: OwnImportVerdict,
  ended: Extract<TransferOutcome, { kind: 'ended' }>): Promise<void> {
  const { state, ctx } = job;
  const { elapsedMs, transfer } = ended;
  switch (verdict.kind) {
    case 'copied':
      copyShared(ctx).copyDurations.record(store, state.image.size, ended.perStoreMs);
      settle(job, [store], () => ({ outcome: 'copied', reason: `copied to ${store}`, elapsedMs, transfer,
        ...(verdict.taskId ? { taskId: verdict.taskId } : {}) }));
      return;
    case 'refused':
      settleError(job, [store], verdict.error);
      return;
    case 'joined':
      state.joinedOther = true;
      settle(job, [store], () => ({ outcome: 'joined', elapsedMs, taskId: verdict.taskId,
        reason: `our import task ${verdict.ownTaskId} was aborted by Glance; task ${verdict.taskId} brought ${store}` }));
      return;
    case 'lost':
      // Glance aborted our task and no other brought the store: ask again next round (bounded).
      ctx.logger.info({ imageId: state.image.id, store, taskId: verdict.ownTaskId }, 'our import task was aborted without a copy: requesting again');
      return;
    case 'failed': {
      const { snapshot, tasks } = ended;
      const failing = verdict.taskId === undefined ? undefined : tasks.find((t) => t.id === verdict.taskId);
      const leftover = verdict.failure === 'failed' && job.options.findLeftover
        ? await job.options.findLeftover(store, snapshot.image, job.deadline.signal).catch((error: unknown) => {
          ctx.logger.warn({ store, error: (error as Error).message }, 'could not check the target pool for a leftover RBD image');
          return undefined;
        })
        : undefined;
      const error = failedError(verdict.failure, store, snapshot.image, failing, snapshot.image.failedImport, leftover, { ...state.lastWait, elapsedMs });
      settle(job, [store], () => ({ outcome: 'failed', failure: verdict.failure, code: error.code, error, elapsedMs,
        reason: leftover === undefined ? failedReason(verdict.failure, store, snapshot.image.failedImport) : error.message,
        ...(verdict.taskId ? { taskId: verdict.taskId } : {}) }));
    }
  }
}

/**
 * Which task brought stores that showed up while this job waited (a 409, a 400, a join that saw no store being
 * written): the lock holder, or else the newest successful import task, naming each. One task read; best effort (a
 * refusal leaves them unnamed).
 */
async function nameBringers<Skip extends string>(job: CopyJob<Skip>, stores: readonly string[]): Promise<void> {
  const { state } = job;
  job.counters.taskReads += 1;
  const tasks = await job.ctx.glance.listImageTasks(state.image.id, { signal: job.deadline.signal }).catch(() => [] as readonly GlanceTask[]);
  for (const store of stores) {
    // The lock holder counts too: an import writing several stores shows the first ones before it ends.
    const brought = tasks.filter((task) => (task.status === 'success' || task.id === state.image.importTask)
      && (task.stores.length === 0 || task.stores.includes(store)))
      .sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt))[0];
    if (brought !== undefined) state.broughtBy.set(store, brought.id);
  }
}

function settle<Skip extends string>(job: CopyJob<Skip>, stores: readonly string[], make: (store: string) => StoreCopyResult<Skip>): void {
  const { state } = job;
  for (const store of stores) if (!state.results.has(store)) state.results.set(store, Object.freeze(make(store)));
  state.remaining = state.remaining.filter((store) => !state.results.has(store));
}

function settleError<Skip extends string>(job: CopyJob<Skip>, stores: readonly string[], error: FerryError): void {
  settle(job, stores, () => errorResult(error, job.state.image.id) ?? { outcome: 'failed', failure: 'error', code: error.code, reason: error.message, error });
}

/**
 * The deadline passed with stores open: each is reported by what Glance last said of it (judgeStoreAtDeadline): in
 * the image's stores → copied (ours) or joined; failed by this import → failed; otherwise the timeout, naming only
 * those stores. A 2-store job used to report a store Glance had finished as timed out with the other.
 */
function settleAtDeadline<Skip extends string>(job: CopyJob<Skip>, image: GlanceImage, timedOut: (open: readonly string[]) => FerryError): void {
  const { state } = job;
  const facts = { image, pending: state.pending, importingSeen: state.importingSeen, broughtBy: state.broughtBy };
  const elapsedMs = job.elapsed();
  for (const store of [...state.remaining]) {
    const verdict = judgeStoreAtDeadline(store, facts);
    const task = verdict.kind !== 'timeout' && verdict.taskId !== undefined ? { taskId: verdict.taskId } : {};
    if (verdict.kind === 'present' && verdict.ours) {
      settle(job, [store], () => ({ outcome: 'copied', reason: `copied to ${store} (in the image's stores when the deadline passed)`, elapsedMs,
        transfer: job.options.transfer?.kind ?? 'glance', ...task }));
    } else if (verdict.kind === 'present') {
      state.joinedOther = true;
      settle(job, [store], () => ({ outcome: 'joined', reason: `another import brought ${store} (in the image's stores when the deadline passed)`,
        elapsedMs, ...task }));
    } else if (verdict.kind === 'failed') {
      const error = failedError('failed', store, image, undefined, image.failedImport, undefined, { ...state.lastWait, elapsedMs });
      settle(job, [store], () => ({ outcome: 'failed', failure: 'failed', code: error.code, error, elapsedMs,
        reason: failedReason('failed', store, image.failedImport), ...task }));
    }
  }
  if (state.remaining.length > 0) settleError(job, state.remaining, timedOut(state.remaining));
}

/** The job ended on a throw: an interruption, the deadline (cutting a request in flight), or a coded error. */
function settleAfterThrow<Skip extends string>(job: CopyJob<Skip>, error: unknown): void {
  const { state, deadline } = job;
  if (job.options.signal?.aborted === true) {
    settle(job, state.remaining, () => ({ outcome: 'interrupted', runningInGlance: false, reason: 'the run stopped' }));
  } else if (deadline.expired() && state.unconfirmed !== undefined) {
    settleError(job, state.remaining, unconfirmedFailure(job));
  } else if (deadline.expired()) {
    settleAtDeadline(job, state.image, (open) => timeoutError(open, state.image, deadline.timeoutMs, { ...state.lastWait, elapsedMs: job.elapsed() },
      state.taskMessage));
  } else if (isFerryError(error)) {
    settleError(job, state.remaining, error);
  } else {
    throw error;
  }
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
