import { setTimeout as sleepTimer } from 'node:timers/promises';

/**
 * Time, passed in. Decision code never calls Date.now() or setTimeout itself, so tests drive it with a fake clock.
 * `now()` is monotonic milliseconds (not wall time); `wallNow()` is epoch milliseconds, for comparing with
 * timestamps a server sent. `sleep` rejects with the signal's reason when aborted. `timer(ms)` gives a signal that
 * aborts once `ms` have passed on this clock: a deadline that cuts requests in flight.
 */
export interface Clock {
  now(): number;
  wallNow(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  timer(ms: number): ClockTimer;
}

export interface ClockTimer {
  readonly signal: AbortSignal;
  /** Stop the timer (its signal then never aborts). */
  clear(): void;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  wallNow: () => Date.now(),
  sleep: async (ms, signal) => {
    await sleepTimer(Math.max(0, ms), undefined, signal ? { signal } : undefined);
  },
  timer(ms) {
    const controller = new AbortController();
    const handle = setTimeout(() => controller.abort(new Error(`deadline of ${Math.round(ms)} ms passed`)), Math.max(0, ms));
    // A deadline never keeps the process alive on its own.
    handle.unref();
    return { signal: controller.signal, clear: () => clearTimeout(handle) };
  },
};
