import { fixedIntervalCost, NOVA_POLL_INTERVAL_MS } from './fixed-interval-cost.js';
import { simulateEnsureWait } from './simulate-ensure-wait.js';
import { roundSummary, summarizeSamples, type SampleSummary } from './summarize-samples.js';

export interface SimulatedRow {
  readonly durationS: number;
  /** ferry's expected duration ÷ the real one; 'none' = size unknown, plain backoff. */
  readonly estimate: number | 'none';
  readonly imageReads: SampleSummary;
  readonly taskReads: SampleSummary;
  readonly delayMs: SampleSummary;
  readonly nova: { readonly reads: number; readonly delayMs: number };
}

export const SIMULATED_DURATIONS_S = [1, 5, 15, 30, 45, 60, 120, 300] as const;
/** 1 = calibrated (the estimator has learnt the store); 0.5/0.25 = the store is 2×/4× slower than guessed. */
export const SIMULATED_ESTIMATES = [1, 0.5, 0.25, 2, 'none'] as const;

/** Runs the real policy `seeds` times per (duration, estimate) on a fake clock; see simulateEnsureWait. */
export async function simulateWaitTable(options: { seeds: number; readLatencyMs: number }): Promise<SimulatedRow[]> {
  const rows: SimulatedRow[] = [];
  for (const durationS of SIMULATED_DURATIONS_S) {
    for (const estimate of SIMULATED_ESTIMATES) {
      const reads: number[] = [];
      const tasks: number[] = [];
      const delays: number[] = [];
      for (let seed = 1; seed <= options.seeds; seed += 1) {
        const outcome = await simulateEnsureWait({ durationMs: durationS * 1000, estimateRatio: estimate === 'none' ? undefined : estimate,
          readLatencyMs: options.readLatencyMs, seed });
        reads.push(outcome.imageReads);
        tasks.push(outcome.taskReads);
        delays.push(outcome.delayMs);
      }
      const nova = fixedIntervalCost(durationS * 1000, NOVA_POLL_INTERVAL_MS);
      rows.push({ durationS, estimate, imageReads: roundSummary(summarizeSamples(reads)), taskReads: roundSummary(summarizeSamples(tasks)),
        delayMs: roundSummary(summarizeSamples(delays), 0), nova: { reads: nova.reads + 1, delayMs: nova.delayMs } });
    }
  }
  return rows;
}
