/**
 * The pause before the next watch pass. Pure.
 * - a clean pass (no failed copy, no error): the interval;
 * - after `failures` unclean passes in a row: the interval doubled per failure, capped at `maxMs`, so a store that
 *   keeps failing (or a Glance that is down) is not hammered, and the watch still comes back on its own;
 * - ±10 % jitter, so several watchers started together drift apart.
 */
export function nextPassDelay(intervalMs: number, failures: number, maxMs: number, random: () => number): number {
  const base = failures <= 0 ? intervalMs : Math.min(Math.max(maxMs, intervalMs), intervalMs * 2 ** Math.min(failures, 30));
  return Math.round(base * (0.9 + 0.2 * random()));
}
