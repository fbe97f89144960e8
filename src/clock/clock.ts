import { setTimeout as sleepTimer } from 'node:timers/promises';

/**
 * Time, passed in. Decision code never calls Date.now() or setTimeout itself, so tests drive it with a fake clock.
 * `now()` is monotonic milliseconds (not wall time); `wallNow()` is epoch milliseconds, for comparing with
 * timestamps a server sent. `sleep` rejects with the signal's reason when aborted.
 */
export interface Clock {
  now(): number;
  wallNow(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  wallNow: () => Date.now(),
  sleep: async (ms, signal) => {
    await sleepTimer(Math.max(0, ms), undefined, signal ? { signal } : undefined);
  },
};
