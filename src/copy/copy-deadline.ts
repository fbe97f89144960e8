import type { Clock } from '../clock/clock.js';

/**
 * One deadline for a whole copy job: its signal aborts every request in flight (retries and their back-off included)
 * when the caller aborts or the time is up, so `--timeout 15` means 15 s, not 15 s plus whatever a hanging request
 * takes. `expired()` tells a deadline abort from the caller's own.
 */
export interface CopyDeadline {
  /** Aborts on the caller's signal or at the deadline. Pass it to every request and sleep of the job. */
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  remainingMs(): number;
  /** True once the time is up (and not because the caller aborted first). */
  expired(): boolean;
  dispose(): void;
}

/** `startedAt`: when the caller's request began (clock.now()), if earlier than now: the deadline counts from there. */
export function startDeadline(clock: Clock, timeoutMs: number, callerSignal: AbortSignal | undefined, startedAt = clock.now()): CopyDeadline {
  const timer = clock.timer(Math.max(0, timeoutMs - (clock.now() - startedAt)));
  const signal = callerSignal === undefined ? timer.signal : AbortSignal.any([callerSignal, timer.signal]);
  return {
    signal,
    timeoutMs,
    remainingMs: () => timeoutMs - (clock.now() - startedAt),
    expired: () => callerSignal?.aborted !== true && (timer.signal.aborted || clock.now() - startedAt >= timeoutMs),
    dispose: () => timer.clear(),
  };
}
