/**
 * How long one import of this run takes, from its request to Glance releasing the lock, learnt from the run's own
 * finished imports. Inside a prewarm that time is mostly waiting for the other imports Glance runs at the same time
 * (one process, one CPU's worth of copying), which a size-based rate cannot know: a run's recent imports are the best
 * guess for its next one. Pure state, no clock.
 */
export interface RunPace {
  /** undefined until an import of this run has finished. */
  expectedMs(storeCount: number): number | undefined;
  record(storeCount: number, durationMs: number): void;
}

export const RUN_PACE_DEFAULTS = {
  /** The median of this many recent imports, per store they wrote. */
  window: 8,
} as const;

export function createRunPace(window: number = RUN_PACE_DEFAULTS.window): RunPace {
  const perStore: number[] = [];
  return {
    expectedMs(storeCount) {
      if (perStore.length === 0 || storeCount <= 0) return undefined;
      const sorted = [...perStore].sort((a, b) => a - b);
      const mid = Math.floor(sorted.length / 2);
      const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
      return median * storeCount;
    },
    record(storeCount, durationMs) {
      if (storeCount <= 0 || !(durationMs > 0)) return;
      perStore.push(durationMs / storeCount);
      if (perStore.length > window) perStore.shift();
    },
  };
}
