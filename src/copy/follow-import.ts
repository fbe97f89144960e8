import { isFerryError, type FerryError } from '../errors/ferry-error.js';
import type { GlanceImage } from '../glance/image.js';
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
  /** Every image Glance answered with (the job keeps the evidence its deadline's judgement needs). */
  readonly onImage?: (image: GlanceImage) => void;
  /** Locks Glance refused to bust when the job asked (JobState.refusedTakeOvers): their tasks exist. */
  readonly refusedTakeOvers: ReadonlySet<string>;
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
  const { deadline } = env;
  const watch = new ImportWatch(env, request);
  const outcome = await waitFor((signal) => watch.read(signal),
    storesSettledAcceptors(request.stores, { ...env.rule, expectedDurationMs: request.expectedDurationMs }), {
      deadlineMs: deadline.remainingMs(),
      delay: env.delay,
      signal: deadline.signal,
      clock: env.ctx.clock,
      ...(env.random ? { random: env.random } : {}),
      ...(request.firstDelayMs !== undefined && request.firstDelayMs > 0 ? { firstDelayMs: request.firstDelayMs } : {}),
      onPoll: ({ verdict }) => env.onPoll(watch.note(verdict.state === 'retry' ? verdict.note ?? 'waiting' : verdict.state)),
    });
  return { outcome, endedAt: watch.endedAt() };
}

/** What one wait remembers between its reads: the lock holder and its task, when reads happened, Glance being away. */
class ImportWatch {
  private watchedTask: string | undefined;
  private task: GlanceTask | undefined;
  private lockTaskMissing = false;
  private lockSeen: { id: string; since: number } | undefined;
  private lastTaskCheck = Number.NEGATIVE_INFINITY;
  private forceTaskCheck = false;
  private readonly waitStarted: number;
  private previousReadAt: number;
  private lastReadAt: number;
  private lastError: FerryError | undefined;

  constructor(private readonly env: FollowEnvironment, private readonly request: FollowRequest) {
    this.watchedTask = request.watched;
    this.waitStarted = env.ctx.clock.now();
    this.previousReadAt = this.waitStarted;
    this.lastReadAt = this.waitStarted;
  }

  /** One poll: the image, the lock holder's task when due, and the snapshot the acceptors judge. */
  async read(signal: AbortSignal | undefined): Promise<CopySnapshot> {
    const { clock } = this.env.ctx;
    this.previousReadAt = this.lastReadAt;
    this.lastReadAt = clock.now();
    this.env.counters.imageReads += 1;
    const image = await this.fromGlance(() => this.env.ctx.glance.getImage(this.env.imageId, { signal }));
    this.env.onImage?.(image);
    this.watchedTask ??= image.importTask;
    const now = clock.now();
    const lock = image.importTask;
    if (lock === undefined) {
      this.lockSeen = undefined;
      this.task = undefined;
      this.lockTaskMissing = false;
    } else {
      if (this.lockSeen?.id !== lock) this.lockSeen = { id: lock, since: now };
      if (this.taskCheckDue(now)) await this.readLockTask(lock, now, signal);
    }
    // A task Glance would not bust exists: when it is not in our list, it is not missing but another project's.
    const exists = lock !== undefined && this.env.refusedTakeOvers.has(lock);
    return {
      image, watchedTask: this.watchedTask, task: this.task?.id === lock ? this.task : undefined,
      lockTaskMissing: this.lockTaskMissing && lock !== undefined && !exists, lockTaskUnseen: this.lockTaskMissing && exists,
      lockHeldMs: this.lockSeen === undefined ? 0 : now - this.lockSeen.since,
      glanceBackAtWallMs: this.env.outage.backAtWallMs, elapsedMs: clock.now() - this.waitStarted, wallNowMs: clock.wallNow(),
    };
  }

  /** The progress note after a poll: the waiter's own, or that Glance does not answer. */
  note(waiterNote: string): string {
    if (this.lastError === undefined) return waiterNote;
    const leftS = Math.max(0, Math.round(this.env.deadline.remainingMs() / 1000));
    return `Glance does not answer (${this.lastError.code}); waiting up to ${leftS} s more`;
  }

  /** When the awaited change most likely happened: midway between the last two reads. */
  endedAt(): number {
    return (this.previousReadAt + this.lastReadAt) / 2;
  }

  private taskCheckDue(now: number): boolean {
    return this.forceTaskCheck
      || (now - this.waitStarted >= this.request.taskCheckAfterMs && now - this.lastTaskCheck >= COPY_ENGINE_LIMITS.taskCheckEveryMs);
  }

  private async readLockTask(lock: string, now: number, signal: AbortSignal | undefined): Promise<void> {
    this.forceTaskCheck = false;
    this.lastTaskCheck = now;
    this.env.counters.taskReads += 1;
    const tasks = await this.fromGlance(() => this.env.ctx.glance.listImageTasks(this.env.imageId, { signal }));
    this.task = tasks.find((candidate) => candidate.id === lock);
    this.lockTaskMissing = this.task === undefined;
    if (this.task?.message) this.env.onTaskMessage(this.task.message);
  }

  /** Every Glance call of the wait: an outage it shows is noted, and an answer after one means glance-api restarted. */
  private async fromGlance<T>(call: () => Promise<T>): Promise<T> {
    let answer: T;
    try {
      answer = await call();
    } catch (error) {
      this.noteFailure(error);
      throw error;
    }
    this.lastError = undefined;
    if (noteGlanceAnswer(this.env.outage, this.env.ctx.clock.wallNow())) {
      // Glance was away (refused connections, a gateway's 502/503/504) and answers again: look at the lock holder at once.
      this.forceTaskCheck = true;
      this.env.ctx.logger.warn({ imageId: this.env.imageId }, 'Glance answers again after an outage (glance-api restarted?)');
    }
    return answer;
  }

  private noteFailure(error: unknown): void {
    if (!isFerryError(error) || error.details.retryable !== true) return;
    const { outage, deadline, ctx, imageId } = this.env;
    this.lastError = error;
    noteGlanceError(outage, error);
    if (!outage.warned) {
      outage.warned = true;
      ctx.logger.warn({ imageId, code: error.code, remainingMs: Math.round(deadline.remainingMs()) },
        `Glance does not answer (${error.message}); still waiting until the deadline`);
    }
  }
}
