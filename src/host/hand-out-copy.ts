import type { Clock } from '../clock/clock.js';
import type { EnsureOutcome } from '../copy/ensure-result.js';
import { FENCE_HOLD_MS } from '../evict/evict-fence.js';
import { EVICT_DEFAULTS } from '../evict/evict-options.js';
import { judgeHandOut } from '../evict/judge-hand-out.js';
import type { CopyLook } from '../rbd/copy-look.js';
import type { CloneTarget } from '../rbd/location-verdict.js';

/**
 * How the agent waits on a copy it must not hand out yet: a look every `pollMs`, a fence honoured while its last look
 * is closer than `marginMs`, and after `maxWaitMs` the copy is handed out as it is (what nova would have cloned
 * without ferry; a live eviction never holds a fence that long: docs/evict.md, "Boot safety").
 */
export const HAND_OUT_DEFAULTS = { pollMs: 500, marginMs: EVICT_DEFAULTS.answerMarginMs, maxWaitMs: FENCE_HOLD_MS + 30_000 } as const;

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
  readonly ensure: () => Promise<EnsureOutcome>;
  /** The copy as the pool has it now; undefined when it cannot be read. */
  readonly look: (target: CloneTarget) => Promise<CopyLook | undefined>;
  readonly clock: Clock;
  readonly signal: AbortSignal;
  readonly onWait?: (why: string, target: CloneTarget) => void;
}

/**
 * The agent's answer to nova. A first ask is one ensure, no look: a copy handed out and cloned at once is kept by the
 * eviction (its last look sees the clone, or Glance refuses the removal), and a clone that fails because the copy
 * went first comes back as a retry (docs/evict.md, "Boot safety"). Only a retry looks at the copy before it is handed
 * out: one an eviction removed while Glance still lists it, or is removing, is waited out and ensured again (a fresh
 * copy once Glance drops the location).
 */
export async function ensureToHandOut(steps: HandOutSteps): Promise<EnsureOutcome> {
  if (steps.failedClone === undefined) return steps.ensure();
  const started = steps.clock.now();
  for (;;) {
    const outcome = await steps.ensure();
    if (!outcome.needed) return outcome;
    const verdict = judgeHandOut(await steps.look(outcome.target), steps.clock.wallNow(), HAND_OUT_DEFAULTS.marginMs);
    if (verdict.kind === 'hand-out' || steps.clock.now() - started >= HAND_OUT_DEFAULTS.maxWaitMs) return outcome;
    steps.onWait?.(verdict.why, outcome.target);
    await steps.clock.sleep(HAND_OUT_DEFAULTS.pollMs, steps.signal);
  }
}
