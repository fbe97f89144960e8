import { FENCE_ANSWER_MARGIN_MS } from './copy-fence.js';
import type { BudgetBase } from './store-budget.js';

// An eviction's defaults: `ferry evict`'s, and those of a sync policy's stores (idle, grace) and of `ferry status --usage`.

export const EVICT_DEFAULTS = {
  /**
   * 24 h, as nova's image cache keeps an unused base image (remove_unused_original_minimum_age_seconds = 86400): a
   * copy that no instance was cloned from and nobody read for a day goes first; the cost of a wrong guess is one
   * slower boot, which brings it back (docs/evict.md, "Idle").
   */
  idleMs: 24 * 3_600_000,
  /**
   * The fence's grace: a boot handed the copy just before the fence must have cloned it by the last look. nova clones
   * within a second of the agent's answer (measured: docs/evict.md, "Boot safety"); 30 s leaves a loaded host margin.
   */
  graceMs: 30_000,
  budgetOf: 'pool' as BudgetBase,
  /** The agent hands out a fenced copy only while its last look is at least this far ahead (the fence's rule). */
  answerMarginMs: FENCE_ANSWER_MARGIN_MS,
} as const;
