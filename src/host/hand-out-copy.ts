import type { Clock } from '../clock/clock.js';
import type { EnsureOutcome } from '../copy/ensure-result.js';
import { FENCE_ANSWER_MARGIN_MS, FENCE_HOLD_MS } from '../fleet/copy-fence.js';
import { judgeHandOut } from '../fleet/judge-hand-out.js';
import type { CopyLook } from '../rbd/copy-look.js';
import type { CloneTarget } from '../rbd/location-verdict.js';
import type { DelayPolicy } from '../wait/next-delay.js';
import type { Acceptor } from '../wait/verdict.js';
import { waitFor } from '../wait/wait-for.js';

/**
 * How the agent waits on a copy it must not hand out yet.
 * - `delay`: the house waiter's backoff between looks (each look is an image read and a python3/librados process):
 *   0.5 s at first, as an eviction's removal through Glance takes a second or two, growing to 5 s for a fence held
 *   longer, with the waiter's jitter (51-73 looks in `maxWaitMs`, median 59, in 1 000 simulated waits; 300 at a fixed 0.5 s).
 * - `marginMs`: a fence is honoured while its last look is closer than this.
 * - `maxWaitMs`: after it the copy is handed out as it is (what nova would have cloned without ferry); a live eviction
 *   never holds a fence that long (docs/evict.md, "Boot safety").
 * - `answerMarginMs`: each caller is answered this long before its own deadline (shared-hand-out.ts).
 */
export const HAND_OUT_DEFAULTS = {
  delay: { minDelayMs: 500, maxDelayMs: 5_000, factor: 1.6, deadlineSlackMs: 50 } satisfies DelayPolicy,
  marginMs: FENCE_ANSWER_MARGIN_MS,
  maxWaitMs: FENCE_HOLD_MS + 30_000,
  answerMarginMs: 5_000,
} as const;

/** The clone source nova could not clone (`retry_after_failed_clone` in the agent's request: docs/agent.md). */
export interface FailedClone {
  readonly pool: string;
  readonly image: string;
  readonly snapshot: string;
}

export interface HandOutSteps {
  /** Set when nova asks again because its clone of what it was handed failed (the source went away); else a first ask. */
  readonly failedClone?: FailedClone | undefined;
  /** One ensure of the image into the store (copies it when Glance has no clonable location there). */
  readonly ensure: (signal: AbortSignal) => Promise<EnsureOutcome>;
  /** The copy as the pool has it now; undefined when it cannot be read. */
  readonly look: (target: CloneTarget, signal: AbortSignal) => Promise<CopyLook | undefined>;
  readonly clock: Clock;
  readonly signal: AbortSignal;
  /** For the tests: the waiter's jitter (default Math.random). */
  readonly random?: () => number;
  readonly onWait?: (why: string, target: CloneTarget) => void;
}

/** One poll of the wait: what the ensure answered, and the copy as the pool has it. */
interface HandOutSnapshot {
  readonly outcome: EnsureOutcome;
  readonly look?: CopyLook | undefined;
}

/**
 * The agent's answer to nova. A first ask is one ensure, no look: a copy handed out and cloned at once is kept by the
 * eviction (its last look sees the clone, or Glance refuses the removal), and a clone that fails because the copy
 * went first comes back as a retry (docs/evict.md, "Boot safety"). Only a retry looks at the copy before it is handed
 * out: one an eviction removed while Glance still lists it, or is removing, is waited out and ensured again (a fresh
 * copy once Glance drops the location), for at most `maxWaitMs`; then it is handed out as it is.
 */
export async function ensureToHandOut(steps: HandOutSteps): Promise<EnsureOutcome> {
  if (steps.failedClone === undefined) return steps.ensure(steps.signal);
  const { clock, signal } = steps;
  const poll = async (): Promise<HandOutSnapshot> => {
    const outcome = await steps.ensure(signal);
    return outcome.needed ? { outcome, look: await steps.look(outcome.target, signal) } : { outcome };
  };
  const handOut: Acceptor<HandOutSnapshot, EnsureOutcome> = ({ outcome, look }) => {
    if (!outcome.needed) return { state: 'success', value: outcome };
    const verdict = judgeHandOut(look, clock.wallNow(), HAND_OUT_DEFAULTS.marginMs);
    if (verdict.kind === 'hand-out') return { state: 'success', value: outcome };
    steps.onWait?.(verdict.why, outcome.target);
    return { state: 'retry', note: verdict.why };
  };
  const waited = await waitFor(poll, [handOut], { deadlineMs: HAND_OUT_DEFAULTS.maxWaitMs, delay: HAND_OUT_DEFAULTS.delay,
    signal, clock, ...(steps.random ? { random: steps.random } : {}) });
  if (waited.state === 'success') return waited.value;
  if (waited.state === 'aborted') throw signal.reason as Error;
  // Out of time (or a verdict no acceptor gives): the copy as the last ensure gave it, what nova would have tried.
  if (waited.last === undefined) throw new Error(`ensureToHandOut: the wait ended (${waited.reason}) before any answer`);
  return waited.last.outcome;
}
