/** Order statistics of one measured quantity (nearest-rank percentiles). */
export interface SampleSummary {
  readonly n: number;
  readonly min: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function summarizeSamples(values: readonly number[]): SampleSummary {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.length === 0 ? Number.NaN : sorted.reduce((sum, v) => sum + v, 0) / sorted.length;
  return { n: sorted.length, min: sorted[0] ?? Number.NaN, p50: percentile(sorted, 50), p90: percentile(sorted, 90),
    p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? Number.NaN, mean };
}

/** Rounded copy for printing and JSON (values in the unit given, e.g. ms). */
export function roundSummary(summary: SampleSummary, digits = 1): SampleSummary {
  const f = 10 ** digits;
  const r = (v: number): number => Math.round(v * f) / f;
  return { n: summary.n, min: r(summary.min), p50: r(summary.p50), p90: r(summary.p90), p99: r(summary.p99), max: r(summary.max),
    mean: r(summary.mean) };
}
