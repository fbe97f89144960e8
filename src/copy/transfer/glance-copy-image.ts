import { isFerryError, type FerryError } from '../../errors/ferry-error.js';
import type { GlanceImage } from '../../glance/image.js';
import { waitFor } from '../../wait/wait-for.js';
import { copyShared } from '../copy-context.js';
import type { CopyTransfer, PendingImport, TransferEffects, TransferJob, TransferOutcome } from '../copy-job.js';
import { COPY_ENGINE_LIMITS } from '../ensure-options.js';
import { followImport } from '../follow-import.js';
import { noteGlanceAnswer, noteGlanceError } from '../glance-outage.js';
import { judgeOwnImport, type OwnImportVerdict } from '../judge-own-import.js';

/**
 * Glance's own copy: POST /v2/images/{id}/import (copy-image) for the batch, follow the import until its task lets go
 * of the lock, then tell our own task by the 202's request id and judge each store. What the job must remember (our
 * import may run inside Glance, its answer was lost, Glance accepted it) comes back as the outcome's effects, also
 * when an error ends the bring.
 */
export const glanceCopyImage: CopyTransfer = {
  kind: 'glance',
  async bring(job, batch, takingOver) {
    // From the request on, our import may run inside Glance (a stop while it is sent still says so).
    const requested: PendingImport = { stores: batch, taskId: undefined };
    let effects: TransferEffects = { pending: requested };
    try {
      const sent = await requestImport(job, batch, takingOver);
      switch (sent.kind) {
        case 'not-started':
          // 400 "already present" (a copy that just ended) or 409 busy (one that runs, or a lock another client busted
          // first): read again and decide.
          effects = { pending: undefined };
          return { kind: 'not-started', busy: sent.busy, ...(sent.deadLock === true ? { deadLock: true } : {}), image: await job.read(), effects };
        case 'answer-lost':
          // From here on what shows up may be our copy, and a deadline that passes means the answer was lost, not a timeout.
          effects = { pending: requested, unconfirmed: { stores: batch, error: sent.error } };
          return { kind: 'answer-lost', image: await readThrough(job, batch), effects };
        case 'accepted':
          effects = { pending: requested, accepted: { takingOver } };
          return await settleOwnImport(job, batch, sent, (pending) => { effects = { ...effects, pending }; return effects; });
      }
    } catch (error) {
      return { kind: 'stopped', error, effects };
    }
  },
};

type RequestResult =
  | { readonly kind: 'accepted'; readonly requestId: string | undefined; readonly requestedAt: number }
  | { readonly kind: 'not-started'; readonly busy: boolean; readonly deadLock?: boolean }
  | { readonly kind: 'answer-lost'; readonly error: FerryError };

/**
 * The request. An answer lost after the request may have reached Glance (a reset, a gateway's 502/503/504) is
 * `answer-lost`: the image is looked at, through the outage, instead of the request being assumed lost.
 */
async function requestImport<Skip extends string>(job: TransferJob<Skip>, batch: readonly string[], takingOver: string | undefined): Promise<RequestResult> {
  const { ctx, deadline, state } = job;
  job.progress('requesting', batch, takingOver !== undefined ? `taking over the expired lock of task ${takingOver}` : undefined);
  job.counters.importRequests += 1;
  const requestedAt = ctx.clock.now();
  let answer;
  try {
    answer = await ctx.glance.requestCopy(state.image.id, { stores: batch, ...(batch.length > 1 ? { allStoresMustSucceed: false } : {}) },
      { signal: deadline.signal });
    noteGlanceAnswer(job.outage, ctx.clock.wallNow());
  } catch (error) {
    if (!isUnconfirmed(error) || deadline.signal.aborted) throw error;
    noteGlanceError(job.outage, error);
    // The request may have reached Glance: look at the image before asking again (never two imports on a guess).
    ctx.logger.warn({ imageId: state.image.id, stores: batch, code: error.code }, 'the answer to the copy request was lost: looking at the image');
    return { kind: 'answer-lost', error };
  }
  ctx.logger.info({ imageId: state.image.id, stores: batch, answer: answer.kind }, 'copy-image requested');
  if (answer.kind === 'accepted') return { kind: 'accepted', requestId: answer.requestId, requestedAt };
  return { kind: 'not-started', busy: answer.kind === 'busy', ...(answer.kind === 'busy' && answer.deadLock === true ? { deadLock: true } : {}) };
}

/**
 * After a lost answer: read until Glance answers (through an outage, which the job notes), within the deadline.
 * Undefined: it did not answer before the deadline or the stop (the engine words that as FERRY_COPY_UNCONFIRMED).
 */
async function readThrough<Skip extends string>(job: TransferJob<Skip>, stores: readonly string[]): Promise<GlanceImage | undefined> {
  const { ctx, deadline, follow } = job;
  job.progress('requesting', stores, 'the answer to the copy request was lost: looking at the image');
  const read = async (): Promise<GlanceImage> => {
    try {
      const image = await job.read();
      noteGlanceAnswer(job.outage, ctx.clock.wallNow());
      return image;
    } catch (error) {
      noteGlanceError(job.outage, error);
      throw error;
    }
  };
  const outcome = await waitFor(read, [(snapshot: GlanceImage) => ({ state: 'success' as const, value: snapshot })], {
    deadlineMs: deadline.remainingMs(), delay: follow.delay, signal: deadline.signal, clock: ctx.clock,
    ...(job.options.random ? { random: job.options.random } : {}),
  });
  return outcome.state === 'success' ? outcome.value : undefined;
}

/**
 * Follow our accepted import to its end, then judge each store by our own task (the request id). `pending` records
 * what may still run inside Glance as the follow learns it (the task seen, or nothing once it settled).
 */
async function settleOwnImport<Skip extends string>(job: TransferJob<Skip>, batch: readonly string[],
  sent: { readonly requestId: string | undefined; readonly requestedAt: number },
  pending: (now: PendingImport | undefined) => TransferEffects): Promise<TransferOutcome> {
  const { ctx, deadline, options } = job;
  const expected = expectedMs(job, batch);
  const firstDelayMs = options.firstRead === undefined || expected.ms === undefined ? 0
    : Math.min(options.policy.maxPollDelayMs, Math.max(options.policy.minPollDelayMs,
      expected.ms * (expected.learnt ? options.firstRead.learnt : options.firstRead.guessed)));
  job.progress('copying', batch);
  const { outcome, endedAt } = await followImport(job.follow, { stores: batch, watched: undefined, expectedDurationMs: expected.ms, firstDelayMs,
    taskCheckAfterMs: COPY_ENGINE_LIMITS.taskCheckAfterMs });
  if (outcome.state !== 'success') {
    return { kind: 'wait-failed', outcome, effects: pending({ stores: batch, taskId: outcome.last?.watchedTask }) };
  }
  const effects = pending(undefined);
  job.counters.taskReads += 1;
  const tasks = await ctx.glance.listImageTasks(outcome.value.image.id, { signal: deadline.signal });
  const durationMs = endedAt - sent.requestedAt;
  options.pace?.record(batch.length, durationMs);
  const verdicts = new Map<string, OwnImportVerdict>(batch.map((store) => [store, judgeOwnImport(outcome.value, store, job.rule, tasks, sent.requestId)]));
  return { kind: 'ended', transfer: 'glance', snapshot: outcome.value, wait: outcome, verdicts, tasks, elapsedMs: ctx.clock.now() - sent.requestedAt,
    perStoreMs: durationMs / batch.length, effects };
}

/** The expected duration of an import of `stores`: learnt by the caller's run, or guessed from the rates seen per store. */
function expectedMs<Skip extends string>(job: TransferJob<Skip>, stores: readonly string[]): { ms: number | undefined; learnt: boolean } {
  const learnt = job.options.pace?.expectedMs(stores.length);
  if (learnt !== undefined) return { ms: learnt, learnt: true };
  const durations = copyShared(job.ctx).copyDurations;
  const guessed = stores.reduce<number | undefined>((sum, store) => {
    const one = durations.expectedMs(store, job.state.image.size);
    return sum === undefined || one === undefined ? undefined : sum + one;
  }, 0);
  return { ms: guessed, learnt: false };
}

/** A request whose answer was lost after it may have reached the server, or a gateway saying the service is away. */
function isUnconfirmed(error: unknown): error is FerryError {
  if (!isFerryError(error) || error.code === 'FERRY_ABORTED') return false;
  if (error.code === 'FERRY_HTTP' && error.details.retryable === true) return true;
  return error.details.retryable === true && error.details.notSent !== true;
}
