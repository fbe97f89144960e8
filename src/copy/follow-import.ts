import { isFerryError, type FerryError } from '../errors/ferry-error.js';
import type { GlanceTask } from '../glance/image-task.js';
import { waitFor, type WaitOutcome } from '../wait/wait-for.js';
import { storesSettledAcceptors } from './copy-acceptors.js';
import type { CopyContext } from './copy-context.js';
import type { CopyDeadline } from './copy-deadline.js';
import type { CopySnapshot } from './copy-snapshot.js';
import type { StaleRule } from './copy-state.js';
import { COPY_ENGINE_LIMITS } from './ensure-options.js';
import { noteGlanceAnswer, noteGlanceError, type GlanceOutage } from './glance-outage.js';

/** Requests a copy job made, by kind (prewarm adds up its jobs'). */
export interface CopyCounters {
  imageReads: number;
  importRequests: number;
  taskReads: number;
}

export interface FollowEnvironment {
  readonly ctx: CopyContext;
  readonly imageId: string;
  readonly deadline: CopyDeadline;
  readonly counters: CopyCounters;
  readonly rule: StaleRule;
  readonly delay: { readonly minDelayMs: number; readonly maxDelayMs: number };
  readonly random: (() => number) | undefined;
  readonly outage: GlanceOutage;
  /** Progress: the waiter's note after each poll. */
  readonly onPoll: (note: string) => void;
  /** Glance's task message when a task read brought one. */
  readonly onTaskMessage: (message: string) => void;
}

export interface FollowRequest {
  readonly stores: readonly string[];
  /** The lock holder to wait out (joined import); undefined: the first holder seen (our own request's task). */
  readonly watched: string | undefined;
  readonly expectedDurationMs?: number | undefined;
  /** Sleep before the first read: an import just accepted is known to be running. */
  readonly firstDelayMs?: number;
  /** Read the lock holder's task once the wait is this old (0 for a joined lock: it may be stuck already). */
  readonly taskCheckAfterMs: number;
}

export interface FollowResult {
  readonly outcome: WaitOutcome<CopySnapshot, CopySnapshot>;
  /** When the awaited change most likely happened: midway between the last read before it and the read that saw it. */
  readonly endedAt: number;
}

/**
 * The one wait of the copy engine: poll the image (and, when it matters, the lock holder's task) until the stores
 * settle, a lock proves stuck, or the deadline passes. Reads Glance refuses or cannot answer count as retries, and the
 * wait says so in its progress and log; the deadline stays the deadline.
 * (The read that saw the end is late by up to one sleep: learning from it would teach the duration estimator our own
 * detection delay as copy time, so `endedAt` is the midpoint.)
 */
export async function followImport(env: FollowEnvironment, request: FollowRequest): Promise<FollowResult> {
  const { ctx, deadline, counters, outage } = env;
  const { clock, glance, logger } = ctx;
  const waitStarted = clock.now();
  let watchedTask = request.watched;
  let task: GlanceTask | undefined;
  let lockTaskMissing = false;
  let lockSeen: { id: string; since: number } | undefined;
  let lastTaskCheck = Number.NEGATIVE_INFINITY;
  let forceTaskCheck = false;
  let previousReadAt = waitStarted;
  let lastReadAt = waitStarted;
  let lastError: FerryError | undefined;

  const poll = async (signal: AbortSignal | undefined): Promise<CopySnapshot> => {
    previousReadAt = lastReadAt;
    lastReadAt = clock.now();
    counters.imageReads += 1;
    let current;
    try {
      current = await glance.getImage(env.imageId, { signal });
    } catch (error) {
      noteOutage(error);
      throw error;
    }
    lastError = undefined;
    if (noteGlanceAnswer(outage, clock.wallNow())) {
      // Glance was away (refused connections, a gateway's 502/503/504) and answers again: glance-api was restarted.
      // Look at the lock holder at once.
      forceTaskCheck = true;
      logger.warn({ imageId: env.imageId }, 'Glance answers again after an outage (glance-api restarted?)');
    }
    watchedTask ??= current.importTask;
    const now = clock.now();
    const lock = current.importTask;
    if (lock === undefined) {
      lockSeen = undefined;
      task = undefined;
      lockTaskMissing = false;
    } else {
      if (lockSeen?.id !== lock) lockSeen = { id: lock, since: now };
      if (forceTaskCheck || (now - waitStarted >= request.taskCheckAfterMs && now - lastTaskCheck >= COPY_ENGINE_LIMITS.taskCheckEveryMs)) {
        forceTaskCheck = false;
        lastTaskCheck = now;
        counters.taskReads += 1;
        const tasks = await glance.listImageTasks(env.imageId, { signal });
        task = tasks.find((candidate) => candidate.id === lock);
        lockTaskMissing = task === undefined;
        if (task?.message) env.onTaskMessage(task.message);
      }
    }
    return {
      image: current, watchedTask, task: task?.id === lock ? task : undefined,
      lockTaskMissing: lockTaskMissing && lock !== undefined, lockHeldMs: lockSeen === undefined ? 0 : now - lockSeen.since,
      glanceBackAtWallMs: outage.backAtWallMs, elapsedMs: clock.now() - waitStarted, wallNowMs: clock.wallNow(),
    };
  };

  const noteOutage = (error: unknown): void => {
    if (!isFerryError(error) || error.details.retryable !== true) return;
    lastError = error;
    noteGlanceError(outage, error);
    if (!outage.warned) {
      outage.warned = true;
      logger.warn({ imageId: env.imageId, code: error.code, remainingMs: Math.round(deadline.remainingMs()) },
        `Glance does not answer (${error.message}); still waiting until the deadline`);
    }
  };

  const outcome = await waitFor(poll, storesSettledAcceptors(request.stores, { ...env.rule, expectedDurationMs: request.expectedDurationMs }), {
    deadlineMs: deadline.remainingMs(),
    delay: env.delay,
    signal: deadline.signal,
    clock,
    ...(env.random ? { random: env.random } : {}),
    ...(request.firstDelayMs !== undefined && request.firstDelayMs > 0 ? { firstDelayMs: request.firstDelayMs } : {}),
    onPoll: ({ verdict }) => env.onPoll(lastError !== undefined
      ? `Glance does not answer (${lastError.code}); waiting up to ${Math.max(0, Math.round(deadline.remainingMs() / 1000))} s more`
      : verdict.state === 'retry' ? verdict.note ?? 'waiting' : verdict.state),
  });
  return { outcome, endedAt: (previousReadAt + lastReadAt) / 2 };
}
