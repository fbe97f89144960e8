import type { CopyFacts } from './copy-facts.js';

// What an eviction plan is (evict/plan-eviction.ts makes one): the vocabulary evict, sync and the reports share.

/** Why a copy stays, in the order they are judged: the first that applies is the one reported. */
export const KEEP_REASONS = ['not-active', 'importing', 'in-use', 'clones-unknown', 'not-in-pool', 'last-copy', 'pinned', 'fenced',
  'not-idle', 'not-owned', 'under-budget'] as const;
export type KeepReason = (typeof KEEP_REASONS)[number];

export interface PlannedCopy {
  readonly copy: CopyFacts;
  readonly action: 'evict' | 'keep';
  /** `idle` for a copy chosen; else why it stays. */
  readonly reason: 'idle' | KeepReason;
  readonly detail: string;
}

export interface EvictionInput {
  readonly store: string;
  /** Every copy Glance lists in the store. */
  readonly copies: readonly CopyFacts[];
  /** Every byte the pool holds: the copies, and images that are none (leftovers, other tools' images, the trash). */
  readonly poolBytes: number;
  /** The store's budget in bytes; undefined: every idle candidate goes. */
  readonly budgetBytes: number | undefined;
  readonly idleMs: number;
  readonly wallNowMs: number;
  /** This run's id: its own fences do not keep a copy. */
  readonly run: string;
  /** Copies of an image removed (or planned to be) in other stores: counted off its locations, so one always stays. */
  readonly removedElsewhere?: ReadonlyMap<string, number>;
  /**
   * The remove owners: the projects whose images' copies this run may remove (project-owners.ts; `*` every project).
   * Another project's idle copy stays (`not-owned`) and is never sent a DELETE: Glance's policy lets the evicting
   * account remove only its own project's. Undefined: every project's (a caller that knows its account may).
   */
  readonly removeOwners?: ReadonlySet<string> | undefined;
}

export type BudgetVerdict =
  /** No budget: every idle candidate goes. */
  | 'none'
  /** The pool is under its budget as it is: nothing goes. */
  | 'under'
  /** The planned removals bring it under. */
  | 'met'
  /** Even with every candidate gone it stays over. */
  | 'unmet';

export interface KeptTally {
  readonly copies: number;
  readonly bytes: number;
}

export interface EvictionPlan {
  readonly store: string;
  readonly idleMs: number;
  readonly wallNowMs: number;
  /** The copies to remove, least recently used first, then the ones kept (grouped by reason, least recently used first). */
  readonly copies: readonly PlannedCopy[];
  readonly poolBytes: number;
  readonly budgetBytes: number | undefined;
  /** Bytes the planned removals free. */
  readonly evictBytes: number;
  /** The pool after the planned removals. */
  readonly afterBytes: number;
  /**
   * Bytes of copies another eviction run is removing (fleet/copy-fence.ts removalUnderWay): counted as leaving with that
   * run, so that two runs on one store do not both free the budget's worth (the second would remove copies nobody
   * needed gone).
   */
  readonly othersBytes: number;
  readonly budget: BudgetVerdict;
  /** The plan's remove owners (EvictionInput.removeOwners): the last look judges with them again. */
  readonly removeOwners: ReadonlySet<string> | undefined;
  /** What stays, by reason: why a budget cannot be met. */
  readonly kept: Readonly<Record<KeepReason, KeptTally>>;
}
