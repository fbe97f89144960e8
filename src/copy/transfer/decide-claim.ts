import { verifiedMark, type ExpectedHash } from './rbd-direct-plan.js';

// The claim of one store, as a pure function of one look at its two names (claim-store.ts does the I/O and loops):
// who writes the store, and what an image found under either name is. A mark (`ferry.verified`) only says "maybe
// ours, worth proving": anyone who may write the pool can copy it (the hash it names is Glance's, public). So a found
// copy is proven by reading it back (prove-found-copy.ts) or it is not used: never registered as it stands.

/** What a temporary image found at the start is. */
export type TemporaryVerdict =
  /** Another writer has it open, or wrote it moments ago: wait for it (two writers never both write). */
  | { readonly kind: 'live' }
  /** Marked verified for this hash, protected, nobody on it: an earlier run's finished copy (killed before the rename), or a forgery. */
  | { readonly kind: 'maybe-ours' }
  /** An earlier run's partial image: remove it, then write. */
  | { readonly kind: 'leftover' };

export interface TemporaryFacts {
  readonly watchers: number;
  readonly modifiedAtSec: number | undefined;
  readonly verified: string | undefined;
  readonly protectedSnapshot: boolean;
  /** The writer it names ran on this host and its process is gone. */
  readonly writerGone: boolean;
}

/**
 * A writer between two rbd commands has no watch open, so "no watcher" alone does not prove it dead: a temporary
 * image is a leftover only once it also has not been written for `quietMs` (librbd updates the time at most once a
 * minute, so quietMs must be well above 60 s).
 */
export function judgeTemporary(facts: TemporaryFacts, expected: ExpectedHash, nowSec: number, quietMs: number): TemporaryVerdict {
  if (facts.verified === verifiedMark(expected) && facts.protectedSnapshot && facts.watchers === 0) return { kind: 'maybe-ours' };
  if (facts.watchers > 0) return { kind: 'live' };
  if (facts.writerGone) return { kind: 'leftover' };
  const quiet = facts.modifiedAtSec === undefined || (nowSec - facts.modifiedAtSec) * 1000 >= quietMs;
  return quiet ? { kind: 'leftover' } : { kind: 'live' };
}

/** Who holds the temporary name, when this look's create found it taken. */
export type TemporaryHolding =
  | { readonly kind: 'none' }
  /** Listed in the pool, cannot be opened: its creator was killed inside `rbd create`. */
  | { readonly kind: 'half-created' }
  | { readonly kind: 'image'; readonly facts: TemporaryFacts };

/** One look at a store: Glance's lock first (a store Glance writes is not touched), then both names at once. */
export type ClaimLook =
  | { readonly kind: 'blocked'; readonly by: 'busy' | 'present' }
  | {
      readonly kind: 'names';
      /** An image holds the final name (the image id): its `ferry.verified` image-meta. */
      readonly final: { readonly mark: string | undefined } | undefined;
      /** This look's `rbd create` made the temporary image: this run writes it. */
      readonly created: boolean;
      /** Looked at only when the create found the name taken and the final name is free. */
      readonly temporary: TemporaryHolding | undefined;
    };

/** What the claim remembers from one look to the next. */
export interface ClaimMemory {
  /** The temporary name was held by a half-created image at the last look. */
  readonly halfCreatedSeen: boolean;
}

export const FRESH_CLAIM: ClaimMemory = { halfCreatedSeen: false };

export type ClaimStep =
  | { readonly kind: 'end'; readonly by: 'busy' | 'present' }
  /** The temporary image is ours: write it. */
  | { readonly kind: 'write' }
  /** The final name holds a copy marked for this hash: prove it, then register it; or refuse it (33), never remove it. */
  | { readonly kind: 'prove-final'; readonly discardCreated: boolean }
  /** The final name holds an image ferry did not mark: Glance's or someone's (33). */
  | { readonly kind: 'refuse-final'; readonly discardCreated: boolean }
  /** The temporary image went away since the create failed. */
  | { readonly kind: 'look-again' }
  | { readonly kind: 'wait'; readonly why: 'half-created' | 'live' }
  | { readonly kind: 'remove-temporary'; readonly why: 'half-created' | 'leftover' }
  /** A finished-looking temporary image: prove it (then rename and register it), or remove it and write afresh. */
  | { readonly kind: 'prove-temporary' };

export interface ClaimRule {
  readonly expected: ExpectedHash;
  readonly nowSec: number;
  readonly quietMs: number;
}

/** One look's verdict. Pure; the tables in test/unit/copy/decide-claim.test.ts pin it down. */
export function decideClaim(look: ClaimLook, memory: ClaimMemory, rule: ClaimRule): ClaimStep {
  if (look.kind === 'blocked') return { kind: 'end', by: look.by };
  if (look.final !== undefined) {
    // Renamed by an earlier run (or a writer that just finished) but not registered: ours only if it proves.
    const marked = look.final.mark === verifiedMark(rule.expected);
    return { kind: marked ? 'prove-final' : 'refuse-final', discardCreated: look.created };
  }
  if (look.created) return { kind: 'write' };
  const holding = look.temporary;
  if (holding === undefined || holding.kind === 'none') return { kind: 'look-again' };
  if (holding.kind === 'half-created') {
    // A create in progress (milliseconds), or one whose creator was killed inside it: still so one poll later, it is a
    // dead one's, and only a removal frees the name (else every create says "exists" and every look "absent").
    return memory.halfCreatedSeen ? { kind: 'remove-temporary', why: 'half-created' } : { kind: 'wait', why: 'half-created' };
  }
  const verdict = judgeTemporary(holding.facts, rule.expected, rule.nowSec, rule.quietMs);
  switch (verdict.kind) {
    case 'live':
      return { kind: 'wait', why: 'live' };
    case 'maybe-ours':
      return { kind: 'prove-temporary' };
    case 'leftover':
      return { kind: 'remove-temporary', why: 'leftover' };
  }
}

/** What the next look remembers: a half-created image seen now; unchanged by a look that found the name free again. */
export function nextClaimMemory(step: ClaimStep, memory: ClaimMemory): ClaimMemory {
  if (step.kind === 'wait' && step.why === 'half-created') return { halfCreatedSeen: true };
  if (step.kind === 'look-again') return memory;
  return FRESH_CLAIM;
}
