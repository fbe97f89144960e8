import type { Clock, ClockTimer } from '../../src/clock/clock.js';

/**
 * A clock whose sleeps advance time at once and are recorded; an abort rejects a sleep like the real one. Timers fire
 * (abort their signal) as soon as time reaches them, by a sleep or by advance().
 */
export interface FakeClock extends Clock {
  readonly sleeps: number[];
  advance(ms: number): void;
}

export function fakeClock(startMs = 0, wallStartMs = Date.UTC(2026, 10, 21, 12, 0, 0)): FakeClock {
  let now = startMs;
  const sleeps: number[] = [];
  const timers = new Set<{ at: number; controller: AbortController }>();
  const fire = (): void => {
    for (const timer of timers) {
      if (timer.at <= now) {
        timers.delete(timer);
        timer.controller.abort(new Error('deadline passed'));
      }
    }
  };
  return {
    sleeps,
    now: () => now,
    wallNow: () => wallStartMs + now - startMs,
    advance(ms) {
      now += ms;
      fire();
    },
    sleep(ms, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason as Error);
      sleeps.push(ms);
      now += ms;
      fire();
      return Promise.resolve();
    },
    timer(ms): ClockTimer {
      const timer = { at: now + ms, controller: new AbortController() };
      timers.add(timer);
      return { signal: timer.controller.signal, clear: () => timers.delete(timer) };
    },
  };
}
