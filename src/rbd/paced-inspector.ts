import type { DiffStreamInspector } from './rbd-streams.js';

/**
 * How long a stream that has passed `bytes` since `startedMs` must wait before more may pass at `bytesPerSecond`
 * (--rate-limit): 0 when it is on or behind its schedule.
 */
export function paceDelayMs(bytes: number, bytesPerSecond: number, startedMs: number, nowMs: number): number {
  if (bytesPerSecond <= 0) return 0;
  return Math.max(0, startedMs + (bytes / bytesPerSecond) * 1000 - nowMs);
}

/**
 * The rbd CLI pipe's pacing: wraps the stream's inspector (the hasher) so that the pipe pauses export-diff while the
 * bytes are ahead of the schedule, and resumes it when the schedule (or the inner inspector) catches up.
 */
export function pacedInspector(inner: DiffStreamInspector, bytesPerSecond: number, now: () => number = () => performance.now()): DiffStreamInspector {
  const startedMs = now();
  let bytes = 0;
  let listener: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const early = (): boolean => paceDelayMs(bytes, bytesPerSecond, startedMs, now()) > 0;
  return {
    push(chunk) {
      bytes += chunk.length;
      inner.push(chunk);
    },
    behind() {
      if (inner.behind?.() === true) return true;
      if (!early()) return false;
      timer ??= setTimeout(() => {
        timer = undefined;
        listener?.();
      }, paceDelayMs(bytes, bytesPerSecond, startedMs, now()));
      return true;
    },
    onDrain(next) {
      listener = next;
      inner.onDrain?.(next);
    },
  };
}
