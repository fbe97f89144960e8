export interface DelayPolicy {
  /** Floor of every delay, and the first one. */
  readonly minDelayMs: number;
  /** Cap of every delay (nova's fixed poll interval maps here). */
  readonly maxDelayMs: number;
  /** Growth of the backoff ceiling per attempt. */
  readonly factor: number;
  /** A last poll should land this long before the deadline, so a late success is still seen. */
  readonly deadlineSlackMs: number;
}

// The generic waiter's own fallback; the copy engine always passes its CopyPolicy's delays (the same 100 ms and 15 s).
export const DELAY_DEFAULTS: DelayPolicy = { minDelayMs: 100, maxDelayMs: 15_000, factor: 1.6, deadlineSlackMs: 50 };

/**
 * The sleep before poll `attempt + 1` (attempt counts polls made, from 1). Pure.
 * - Without an estimate: random between the minimum and an exponentially growing ceiling ("full jitter" above the
 *   floor), capped at the maximum.
 * - With an estimate of the time left (`etaMs`): sleep about half of it, so polls close in on the expected end
 *   (few reads for a long copy, prompt detection at its end). Once the estimate is overdue (`etaMs` ≤ 0), sleep
 *   about half of the overrun, so a wrong estimate still costs only logarithmically many reads.
 *   Always within [minimum, maximum].
 * - Near the deadline the sleep is shortened so that a last poll lands just before it; 0 = no time left for one.
 */
export function nextDelay(attempt: number, remainingMs: number, policy: DelayPolicy, random: () => number, etaMs?: number): number {
  const { minDelayMs, maxDelayMs, factor } = policy;
  let delay: number;
  if (etaMs !== undefined) {
    const jitter = 0.9 + 0.2 * random();
    delay = Math.min(maxDelayMs, Math.max(minDelayMs, (Math.abs(etaMs) / 2) * jitter));
  } else {
    const ceiling = Math.min(maxDelayMs, minDelayMs * Math.pow(factor, Math.max(0, attempt - 1)));
    delay = minDelayMs + (ceiling - minDelayMs) * random();
  }
  const latest = remainingMs - policy.deadlineSlackMs;
  if (latest <= 0) return 0;
  return Math.round(Math.min(delay, latest));
}
