import type { ConcurrencyStep } from '../fleet/prewarm-report.js';

/**
 * How many imports prewarm keeps in flight when `--concurrency` is not given: it looks for the concurrency Glance
 * sustains instead of a fixed number. Pure; run-prewarm-plan.ts feeds it one window at a time.
 *
 * A window ends each time as many copies have finished as the limit allows at once (one "generation" of work), so
 * each limit is judged on work done under it. Its throughput is the bytes those copies brought per second. Rules, in
 * order:
 * 0. the first window is a warm-up, not judged: it holds the run's start (first reads, the first imports' staging);
 *    judged, it made every run look as if more in flight bought more (measured: 9.6 → 15.5 MiB/s from 4 to 5, and
 *    the run at 6–7 then took 33 % longer than fixed 4);
 * 1. a copy in the window failed on Glance's side (a 5xx that outlived the retries, a staging disk that ran full,
 *    an import Glance aborted): one step down — Glance is past what it sustains;
 * 2. the throughput dropped by more than `dropRatio` below the best seen: back to the limit that did best;
 * 3. it grew by at least `growRatio` over the previous window (or this is the first judged window): one step up, up
 *    to the ceiling — more in flight still bought more;
 * 4. otherwise hold: a plateau, Glance runs what it can and more would only queue inside it.
 * Additive steps both ways: Glance's bound moves slowly (workers, disks), and a halving would waste half of it.
 */
export interface AdaptiveConcurrency {
  readonly limit: number;
  readonly floor: number;
  readonly ceiling: number;
  /** The previous window's throughput (bytes/s); undefined before the first window. */
  readonly previous: number | undefined;
  /** The best window so far, and the limit it ran under. */
  readonly best: { readonly limit: number; readonly throughput: number } | undefined;
  /** The highest limit in force so far: what the report calls the concurrency reached. */
  readonly reached: number;
  /** The warm-up window is over. */
  readonly warm: boolean;
}

export interface ConcurrencyWindow {
  readonly bytes: number;
  readonly elapsedMs: number;
  /** Copies that Glance failed (not refusals by policy, not skipped images). */
  readonly failures: number;
}

export type { ConcurrencyStep } from '../fleet/prewarm-report.js';

export interface ConcurrencyDecision {
  readonly state: AdaptiveConcurrency;
  readonly step: ConcurrencyStep;
  readonly why: string;
}

export const ADAPTIVE_DEFAULTS = {
  /** Where the search starts: the fixed default measured before (bench/RESULTS.md, "prewarm"). */
  start: 4,
  floor: 1,
  /** 16 in flight ran 15–30 % slower than 4 on the dev cloud: past this, more only queues inside Glance. */
  ceiling: 12,
  /** One more in flight is +20–25 % at 4–5: a window that gains less than 10 % says Glance is near its bound. */
  growRatio: 0.1,
  dropRatio: 0.15,
} as const;

export function startAdaptiveConcurrency(start: number = ADAPTIVE_DEFAULTS.start, ceiling: number = ADAPTIVE_DEFAULTS.ceiling,
  floor: number = ADAPTIVE_DEFAULTS.floor): AdaptiveConcurrency {
  const limit = Math.min(Math.max(start, floor), ceiling);
  return { limit, floor, ceiling, previous: undefined, best: undefined, reached: limit, warm: false };
}

export function decideConcurrency(state: AdaptiveConcurrency, window: ConcurrencyWindow,
  ratios: { readonly growRatio: number; readonly dropRatio: number } = ADAPTIVE_DEFAULTS): ConcurrencyDecision {
  const throughput = window.elapsedMs > 0 ? (window.bytes * 1000) / window.elapsedMs : 0;
  if (!state.warm) {
    return { state: { ...state, warm: true }, step: 'hold', why: `${mibPerS(throughput)} MiB/s at ${state.limit}: the warm-up window (the run's start), not judged` };
  }
  const best = state.best === undefined || throughput > state.best.throughput ? { limit: state.limit, throughput } : state.best;
  const next = (limit: number, step: ConcurrencyStep, why: string, ceiling = state.ceiling): ConcurrencyDecision => ({
    state: { ...state, limit, ceiling, previous: throughput, best, reached: Math.max(state.reached, limit) }, step, why,
  });
  // A limit that failed or dropped is not tried again in this run: without that the search would swing up and back.
  const below = Math.max(state.floor, state.limit - 1);
  const rate = `${mibPerS(throughput)} MiB/s at ${state.limit}`;
  if (window.failures > 0) {
    return next(below, below < state.limit ? 'down' : 'hold', `${window.failures} cop${window.failures === 1 ? 'y' : 'ies'} failed in Glance (${rate}): one step down`, below);
  }
  if (state.best !== undefined && throughput < state.best.throughput * (1 - ratios.dropRatio) && state.best.limit !== state.limit) {
    return next(state.best.limit, 'back-to-best', `${rate}, below the best ${mibPerS(state.best.throughput)} MiB/s at ${state.best.limit}: back to ${state.best.limit}`,
      Math.max(state.best.limit, below));
  }
  if (state.previous === undefined || throughput >= state.previous * (1 + ratios.growRatio)) {
    if (state.limit >= state.ceiling) return next(state.limit, 'hold', `${rate}: at the ceiling ${state.ceiling}`);
    return next(state.limit + 1, 'up', `${rate}${state.previous === undefined ? '' : `, up from ${mibPerS(state.previous)}`}: one more in flight`);
  }
  return next(state.limit, 'hold', `${rate}, no better than ${mibPerS(state.previous)}: Glance runs what it can`);
}

function mibPerS(bytesPerS: number): string {
  return (bytesPerS / (1024 * 1024)).toFixed(1);
}
