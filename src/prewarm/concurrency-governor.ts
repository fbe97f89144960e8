import type { Clock } from '../clock/clock.js';
import { decideConcurrency, startAdaptiveConcurrency, type AdaptiveConcurrency } from './adaptive-concurrency.js';
import type { ConcurrencyChange } from '../fleet/prewarm-report.js';
import type { StoreResult } from './store-result.js';

/** Glance's side of a failed copy: what tells the search it went past what Glance sustains. */
const GLANCE_FAILURES = new Set(['failed', 'rolled-back', 'aborted', 'error', 'timeout']);

/**
 * Collects finished jobs into windows for decideConcurrency and applies its limit through `apply` (the scheduler).
 * A window closes once as many jobs have finished as the limit it ran under.
 */
export interface ConcurrencyGovernor {
  jobEnded(sizeBytes: number | null, results: ReadonlyMap<string, StoreResult>): void;
  readonly reached: number;
  readonly changes: readonly ConcurrencyChange[];
}

export function createConcurrencyGovernor(clock: Clock, start: number, apply: (limit: number) => void): ConcurrencyGovernor {
  const began = clock.now();
  let state: AdaptiveConcurrency = startAdaptiveConcurrency(start);
  let windowStart = began;
  let finished = 0;
  let bytes = 0;
  let failures = 0;
  const changes: ConcurrencyChange[] = [];
  return {
    jobEnded(sizeBytes, results) {
      finished += 1;
      for (const result of results.values()) {
        if (result.outcome === 'copied') bytes += sizeBytes ?? 0;
        if (result.outcome === 'failed' && result.failure !== undefined && GLANCE_FAILURES.has(result.failure)) failures += 1;
      }
      if (finished < state.limit) return;
      const now = clock.now();
      const decision = decideConcurrency(state, { bytes, elapsedMs: now - windowStart, failures });
      state = decision.state;
      changes.push(Object.freeze({ atMs: now - began, limit: state.limit, step: decision.step, why: decision.why }));
      apply(state.limit);
      windowStart = now;
      finished = 0;
      bytes = 0;
      failures = 0;
    },
    get reached() {
      return state.reached;
    },
    changes,
  };
}
