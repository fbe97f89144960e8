/**
 * How long Glance takes to copy an image to a store, learnt per store from the copies this process saw. The waiter
 * polls towards the expected end, so a good guess means few reads and prompt detection. Guessing too fast is cheap
 * (the waiter then backs off in proportion to the overrun); too slow delays detection, so the default leans fast.
 */
export interface CopyDurationEstimator {
  expectedMs(store: string, sizeBytes: number | null): number | undefined;
  record(store: string, sizeBytes: number | null, durationMs: number): void;
}

export const COPY_RATE_DEFAULTS = {
  /** Measured here: rbd→rbd 200 MB in 3.1–3.5 s, file→file 2 GiB in 21–29 s; this leans towards the fast end. */
  bytesPerMs: (100 * 1024 * 1024) / 1000,
  /** Task start-up, staging set-up and lock release: a 20 MB rbd copy took 0.8–1.0 s in all. */
  overheadMs: 300,
  /** Weight of the newest observation. */
  smoothing: 0.5,
  /** A copy must have spent at least this long transferring (beyond the fixed cost) to teach the rate. */
  minTransferToLearnMs: 1_000,
} as const;

export function createCopyDurationEstimator(defaults = COPY_RATE_DEFAULTS): CopyDurationEstimator {
  const rates = new Map<string, number>();
  return {
    expectedMs(store, sizeBytes) {
      if (sizeBytes === null || sizeBytes < 0) return undefined;
      const rate = rates.get(store) ?? defaults.bytesPerMs;
      return defaults.overheadMs + sizeBytes / rate;
    },
    record(store, sizeBytes, durationMs) {
      if (sizeBytes === null || sizeBytes <= 0) return;
      const transferMs = durationMs - defaults.overheadMs;
      // Small copies are mostly fixed cost (measured here: 0.4–1.5 s for a few MiB, whatever the store's speed): a
      // slow one would read as a slow store. Only copies with a real transfer phase teach the rate.
      if (transferMs < defaults.minTransferToLearnMs) return;
      const observed = sizeBytes / transferMs;
      const previous = rates.get(store);
      rates.set(store, previous === undefined ? observed : previous + defaults.smoothing * (observed - previous));
    },
  };
}
