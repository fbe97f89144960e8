import type { StoreDeleteOutcome } from '../glance/glance-client.js';
import { isMarkError, type MarkResult } from '../rbd/copy-fence-marks.js';
import type { PoolEntry } from '../rbd/pool-entry.js';
import type { CopyFacts } from '../fleet/copy-facts.js';
import { FENCE_HOLD_MS, FENCE_KEY, FENCE_SKEW_MS, fenceOf, FOREIGN_FENCE, removalDeadline, removalUnderWay, type EvictFence } from '../fleet/copy-fence.js';
import type { EvictOutcome } from '../fleet/evict-report.js';
import type { KeepReason } from './plan-eviction.js';

// The removal's decisions, pure: what a copy's fence mark, the fence's deadline, Glance's answer to the DELETE and the
// pool's look after it each mean for the copy. run-eviction.ts does the I/O in between and records what these say.

export interface CopyOutcome {
  readonly outcome: EvictOutcome;
  readonly reason?: KeepReason | undefined;
  readonly detail: string;
  /** Bytes the pool no longer holds because of it (an evicted copy's). */
  readonly freedBytes: number;
  /**
   * Bytes someone else took: the copy was gone before this run removed it, or another run's live fence holds it (that
   * run removes it). They count toward the budget, so that this run does not take further copies in their place.
   */
  readonly othersBytes?: number;
}

/**
 * The copy's fence as written (setCopyMarks): undefined when this run holds it (`set`: go on to the last look); else
 * the copy's outcome: gone from the pool, its fence unwritable, or held by another run (whose removal, when under
 * way, takes its bytes) or by a mark not ferry's.
 */
export function decideFenced(copy: CopyFacts, mark: MarkResult | undefined, run: string, wallNowMs: number): CopyOutcome | undefined {
  if (mark === 'absent') return { outcome: 'gone', detail: 'the pool no longer had it when it was fenced', freedBytes: 0, othersBytes: copy.bytes };
  if (isMarkError(mark)) return { outcome: 'failed', detail: `its fence could not be written: ${mark.error}`, freedBytes: 0 };
  if (typeof mark !== 'object') return undefined;
  const held = mark.held === null ? undefined : fenceOf({ [FENCE_KEY]: mark.held });
  return { outcome: 'kept', reason: 'fenced', detail: heldDetail(held), freedBytes: 0,
    ...(removalUnderWay(held, run, wallNowMs) ? { othersBytes: copy.bytes } : {}) };
}

function heldDetail(found: EvictFence | undefined): string {
  if (found === undefined) return 'its fence changed while this run took it over: left alone';
  return found === FOREIGN_FENCE ? `it carries a mark ${FENCE_KEY} not in ferry's format: left alone`
    : `another eviction run holds its fence (${found.by}, run ${found.run}): left to it`;
}

/** Kept, not removed: the fence ran out before this copy's turn came (a round's earlier removals took that long). */
export function decideFenceExpired(fence: EvictFence, wallNowMs: number): CopyOutcome | undefined {
  if (wallNowMs <= removalDeadline(fence)) return undefined;
  return { outcome: 'kept', reason: 'fenced', detail: `its fence expired before its turn came (removals end ${Math.round((FENCE_HOLD_MS - FENCE_SKEW_MS) / 1000)} s `
    + 'after the last look): not removed, left for the next run', freedBytes: 0 };
}

/** Glance's answer to the copy's DELETE (a 403 included, as `forbidden`): `removed` (the pool is checked after), or the copy's outcome. */
export function decideDeleteAnswer(copy: CopyFacts, answer: StoreDeleteOutcome | { readonly kind: 'forbidden'; readonly message: string }): CopyOutcome | 'removed' {
  switch (answer.kind) {
    case 'forbidden':
      return { outcome: 'forbidden', detail: `${answer.message} (owner ${copy.owner ?? '(none)'}): the account may not remove it; `
        + 'the run went on to the next candidate (docs/evict.md, "Credentials")', freedBytes: 0 };
    case 'removed':
      return 'removed';
    case 'not-in-store':
      return { outcome: 'gone', detail: `Glance: ${answer.message}`, freedBytes: 0, othersBytes: copy.bytes };
    case 'last-location':
      return { outcome: 'kept', reason: 'last-copy', detail: `Glance refused: ${answer.message}`, freedBytes: 0 };
    case 'in-use':
      return { outcome: 'kept', reason: 'in-use', detail: `Glance refused: ${answer.message}`, freedBytes: 0 };
    case 'not-active':
      return { outcome: 'kept', reason: 'not-active', detail: `Glance refused: ${answer.message}`, freedBytes: 0 };
  }
}

/**
 * A copy Glance removed, as the pool shows it after (undefined: the pool could not be checked): evicted (gone, or
 * copied anew since), trashed (a clone appeared at the last moment: no byte freed), or failed (still there).
 */
export function decideRemoved(copy: CopyFacts, entry: PoolEntry | undefined): CopyOutcome {
  if (entry === undefined) return { outcome: 'evicted', detail: 'removed through Glance (not checked in the pool)', freedBytes: copy.bytes };
  if (entry.kind === 'absent' && entry.trashedMs !== undefined) {
    return { outcome: 'trashed', detail: 'Glance moved it to the pool\'s RBD trash (a clone appeared at the last moment): its clones keep working, no byte was freed',
      freedBytes: 0 };
  }
  if (entry.kind === 'absent') return { outcome: 'evicted', detail: 'removed through Glance; gone from the pool', freedBytes: copy.bytes };
  if (copiedAnew(copy, entry)) {
    return { outcome: 'evicted', detail: 'removed through Glance; copied anew since (a boot or a copy asked for it here): the pool holds the new copy', freedBytes: 0 };
  }
  return { outcome: 'failed', detail: 'Glance answered that it removed it, but the pool still holds it', freedBytes: 0 };
}

/**
 * Whether the pool's image of the removed copy's name is a newer one (created after the copy the plan saw): the removal
 * went through and something (a boot's ensure, a prewarm) had Glance copy the image into the store again meanwhile.
 * Only the report's wording and the bytes counted freed depend on it, never a removal.
 */
function copiedAnew(copy: CopyFacts, entry: PoolEntry): boolean {
  return entry.kind === 'image' && entry.createdMs !== undefined && copy.copiedMs !== undefined && entry.createdMs > copy.copiedMs;
}
