import type { Clock } from '../../src/clock/clock.js';

/** A clock whose sleeps advance time at once and are recorded; an abort rejects a sleep like the real one. */
export interface FakeClock extends Clock {
  readonly sleeps: number[];
  advance(ms: number): void;
}

export function fakeClock(startMs = 0, wallStartMs = Date.UTC(2026, 10, 21, 12, 0, 0)): FakeClock {
  let now = startMs;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    wallNow: () => wallStartMs + now - startMs,
    advance(ms) {
      now += ms;
    },
    sleep(ms, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason as Error);
      sleeps.push(ms);
      now += ms;
      return Promise.resolve();
    },
  };
}
