import { fixedIntervalCost, NOVA_POLL_INTERVAL_MS } from './fixed-interval-cost.js';
import { seededRandom, simulateEnsureWait } from './simulate-ensure-wait.js';
import { roundSummary, summarizeSamples, type SampleSummary } from './summarize-samples.js';

export interface SimulatedRow {
  readonly durationS: number;
  /** ferry's expected duration ÷ the real one; 'none' = size unknown, plain backoff. */
  readonly estimate: number | 'none';
  readonly imageReads: SampleSummary;
  readonly taskReads: SampleSummary;
  readonly delayMs: SampleSummary;
  /** nova's fixed 15 s poller over the same durations; reads include one before the request, as ferry's do. */
  readonly nova: { readonly readsMean: number; readonly delayMeanMs: number; readonly delayMaxMs: number };
}

export const SIMULATED_DURATIONS_S = [1, 5, 15, 30, 60, 120, 300] as const;
/** 1 = calibrated (the estimator has learnt the store); 0.5 = the copy takes twice as long as guessed; 2 = half as long. */
export const SIMULATED_ESTIMATES = [1, 0.8, 1.25, 0.5, 2, 0.25, 'none'] as const;

/**
 * Runs the real policy `seeds` times per (duration, estimate) on a fake clock; see simulateEnsureWait. Each seed's
 * duration is drawn uniformly within ±10 % of the row's, so a fixed-interval poller is not judged on durations that
 * happen to be exact multiples of its interval.
 */
export async function simulateWaitTable(options: { seeds: number; readLatencyMs: number }): Promise<SimulatedRow[]> {
  const rows: SimulatedRow[] = [];
  for (const durationS of SIMULATED_DURATIONS_S) {
    for (const estimate of SIMULATED_ESTIMATES) {
      const reads: number[] = [];
      const tasks: number[] = [];
      const delays: number[] = [];
      const novaCosts: { reads: number; delayMs: number }[] = [];
      for (let seed = 1; seed <= options.seeds; seed += 1) {
        const durationMs = durationS * 1000 * (0.9 + 0.2 * seededRandom(seed + 1_000_000)());
        novaCosts.push(fixedIntervalCost(durationMs, NOVA_POLL_INTERVAL_MS));
        const outcome = await simulateEnsureWait({ durationMs, estimateRatio: estimate === 'none' ? undefined : estimate,
          readLatencyMs: options.readLatencyMs, seed });
        reads.push(outcome.imageReads);
        tasks.push(outcome.taskReads);
        delays.push(outcome.delayMs);
      }
      const novaReads = summarizeSamples(novaCosts.map((c) => c.reads + 1));
      const novaDelays = summarizeSamples(novaCosts.map((c) => c.delayMs));
      rows.push({ durationS, estimate, imageReads: roundSummary(summarizeSamples(reads)), taskReads: roundSummary(summarizeSamples(tasks)),
        delayMs: roundSummary(summarizeSamples(delays), 0), nova: { readsMean: Math.round(novaReads.mean * 10) / 10, delayMeanMs: Math.round(novaDelays.mean),
          delayMaxMs: Math.round(novaDelays.max) } });
    }
  }
  return rows;
}
