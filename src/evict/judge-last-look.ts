import type { CopyFacts } from '../fleet/copy-facts.js';
import { removalDeadline } from '../fleet/copy-fence.js';
import { keepReason, type KeepReason } from './plan-eviction.js';

/** The last look before a removal: send it, or keep the copy (why). */
export type LastLook =
  | { readonly verdict: 'remove' }
  | { readonly verdict: 'keep'; readonly reason: KeepReason; readonly detail: string };

export interface LastLookContext {
  readonly run: string;
  readonly idleMs: number;
  readonly wallNowMs: number;
  /** The plan's remove owners (undefined: every project's). */
  readonly removeOwners?: ReadonlySet<string> | undefined;
}

/**
 * Pure: judged on the image read again from Glance (still listing the copy: the caller saw to it) and the copy read
 * again from Ceph after the grace period, right before the DELETE. Every rule of the plan again (a clone made meanwhile, trash included, an import started, a
 * location gone elsewhere), and two of its own: the fence must still be this run's (another run, or a person, took
 * over), and the removal must come before the fence's deadline (after it, agents no longer wait for this run).
 */
export function judgeLastLook(fresh: CopyFacts, context: LastLookContext): LastLook {
  const fence = fresh.fence;
  if (fresh.inPool === 'yes' && (fence === undefined || fence.run !== context.run)) {
    return { verdict: 'keep', reason: 'fenced', detail: fence === undefined ? 'its fence was lifted by someone else: it stays'
      : `another eviction took it over (${fence.by})` };
  }
  if (fence !== undefined && context.wallNowMs > removalDeadline(fence)) {
    return { verdict: 'keep', reason: 'fenced', detail: 'its fence ran out before its turn came: left for the next run' };
  }
  // The image as read now: its locations are Glance's count at this moment, nothing planned elsewhere to subtract.
  const keep = keepReason(fresh, { idleMs: context.idleMs, wallNowMs: context.wallNowMs, run: context.run, removeOwners: context.removeOwners });
  return keep === undefined ? { verdict: 'remove' } : { verdict: 'keep', ...keep };
}
