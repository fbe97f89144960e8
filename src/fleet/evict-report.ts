import type { Budget } from './store-budget.js';
import type { BudgetVerdict, EvictionPlan, KeepReason, KeptTally } from './eviction-plan.js';

/** A fence a run wrote and could not lift: it holds the copy (and boots that ask the agent again) until it runs out. */
export interface FenceLeft {
  readonly imageId: string;
  readonly rbdImage: string;
  readonly detail: string;
}

/** What became of a copy the plan chose. */
export type EvictOutcome =
  /** Removed through Glance, and gone from the pool. */
  | 'evicted'
  /** Glance answered success, but the copy is in the pool's RBD trash (glance_store ≥ 4.6 with a clone): no byte freed. */
  | 'trashed'
  /** Kept at the last look (or refused by Glance): `reason` says why. */
  | 'kept'
  /** Someone else removed it first. */
  | 'gone'
  /** A request failed: the copy is where it was, its fence lifted. */
  | 'failed'
  /**
   * Glance refused its removal (403: not the image's owning project, or the policy delete_image_location): the copy is
   * where it was, its fence lifted, and the run went on to the next candidate.
   */
  | 'forbidden';

export const EVICT_OUTCOMES = ['evicted', 'trashed', 'kept', 'gone', 'failed', 'forbidden'] as const satisfies readonly EvictOutcome[];

export interface EvictItem {
  readonly imageId: string;
  readonly imageName: string | null;
  readonly store: string;
  readonly bytes: number;
  readonly lastUsedMs: number | undefined;
  /** What the last use was: its newest clone, a read, the copy itself. */
  readonly lastUse: string;
  readonly clones: number;
  readonly action: 'evict' | 'keep';
  readonly reason: 'idle' | KeepReason;
  readonly detail: string;
  /** For a copy the run took on (absent in a dry run and for copies kept by the plan). */
  readonly outcome?: EvictOutcome;
  readonly outcomeReason?: KeepReason | undefined;
  readonly outcomeDetail?: string;
}

export interface BudgetReport {
  readonly budget: Budget | undefined;
  readonly budgetBytes: number | undefined;
  /** The pool's bytes when planned. */
  readonly usedBytes: number;
  /** Planned (a dry run) or measured: the pool's bytes less what the run freed. */
  readonly afterBytes: number;
  /**
   * Bytes of copies another eviction run took or holds (its live fence, or gone before this run's removal): counted as
   * leaving. The verdict is met when the pool less them is within the budget; the other run's report says whether it was.
   */
  readonly othersBytes: number;
  readonly verdict: BudgetVerdict;
  /** Over the budget after the run, the copies other runs take counted as gone (0 when met). */
  readonly shortfallBytes: number;
  readonly kept: Readonly<Record<KeepReason, KeptTally>>;
}

export interface EvictReport {
  readonly store: string;
  readonly pool: string;
  readonly dryRun: boolean;
  /** The run's id, as its fences name it. */
  readonly run: string;
  readonly idleMs: number;
  readonly graceMs: number;
  /** When the plan was made (Unix ms): the ages in the report count from it. */
  readonly plannedAtMs: number;
  readonly items: readonly EvictItem[];
  readonly budget: BudgetReport;
  readonly counts: Readonly<Record<EvictOutcome | 'planned', number>>;
  /** Bytes of the pool that are no copy Glance lists in this store (other images, leftovers), and of its trash. */
  readonly otherBytes: number;
  readonly trashBytes: number;
  /** Fences the run wrote and could not lift: each holds its copy until it runs out on its own (docs/evict.md). */
  readonly fencesLeft: readonly FenceLeft[];
}

/** What the library reports while it runs; the CLI draws it. */
export type EvictEvent =
  | { readonly type: 'planned'; readonly plan: EvictionPlan }
  | { readonly type: 'fenced'; readonly copies: number; readonly recheckAtMs: number }
  | { readonly type: 'copy-done'; readonly imageId: string; readonly store: string; readonly outcome: EvictOutcome; readonly detail: string };
