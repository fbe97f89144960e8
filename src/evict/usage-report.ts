import type { CopyFacts } from '../fleet/copy-facts.js';
import type { Budget } from '../fleet/store-budget.js';
import { planEviction, KEEP_REASONS, type KeepReason, type KeptTally } from './plan-eviction.js';
import type { StoreUsage } from '../fleet/store-usage.js';

// `ferry status --usage`: each store's use against its budget, from the same facts `ferry evict` plans on. Pure.

/**
 * Where a store stands against its budget:
 * - `none`: no budget;
 * - `under`: the pool holds no more than its budget;
 * - `over`: over it, and `ferry evict` (with the store's idle) would bring it under now, counting the copies an eviction
 *   run is removing (their live fence) as leaving;
 * - `unmet`: over it, and evicting every copy that may go would not: what is left is in use, pinned, the last copy,
 *   being imported, not idle yet or another project's (`kept` says which), the case FerryStoreOverBudget pages on.
 */
export type UsageVerdict = 'none' | 'under' | 'over' | 'unmet';

export interface StoreUsageSummary {
  readonly store: string;
  readonly pool: string;
  /** Every byte of the pool: copies, other images, its trash. */
  readonly usedBytes: number;
  readonly copyBytes: number;
  readonly otherBytes: number;
  readonly trashBytes: number;
  readonly budget: Budget | undefined;
  readonly budgetBytes: number | undefined;
  readonly verdict: UsageVerdict;
  /** Bytes over the budget now (0 when under or without one). */
  readonly overBytes: number;
  /** What an eviction now could free: copies idle for `idleMs` that nothing keeps (all of them, not only what the budget needs). */
  readonly evictableBytes: number;
  readonly idleMs: number;
  /** What may not go, by why (everything but under-budget). */
  readonly kept: Readonly<Record<KeepReason, KeptTally>>;
  readonly copies: readonly CopyFacts[];
  /**
   * Image ID → its own pin that does not count here (copy-pins.ts ignoredPins: its owner is not a pin owner), as a
   * plan says it: why a tenant's tagged copy counts as one that may go.
   */
  readonly ignoredPins: ReadonlyMap<string, string>;
  /** Image ID → why its idle copy may not go: another project's (`not-owned`), as a plan says it. */
  readonly notOwned: ReadonlyMap<string, string>;
}

export interface UsageSummaryInput {
  readonly usage: StoreUsage;
  readonly budget: Budget | undefined;
  /** The budget in bytes (budgetBytes of the store's capacity); undefined with no budget. */
  readonly budgetBytes: number | undefined;
  readonly idleMs: number;
  readonly wallNowMs: number;
  /** Image ID → its ignored pin (copy-pins.ts ignoredPins); none when not given. */
  readonly ignoredPins?: ReadonlyMap<string, string>;
  /** Whose copies an eviction may remove (planEviction's removeOwners; undefined: every project's). */
  readonly removeOwners?: ReadonlySet<string> | undefined;
}

const NO_IGNORED_PINS: ReadonlyMap<string, string> = new Map();

/** Pure: one store's usage against its budget, judged with planEviction (no budget: every candidate counted). */
export function summarizeStoreUsage({ usage, budget, budgetBytes, idleMs, wallNowMs, ignoredPins, removeOwners }: UsageSummaryInput): StoreUsageSummary {
  // A look, not a run: no run's own fence to ignore, so any fence keeps its copy.
  const all = planEviction({ store: usage.store, copies: usage.copies, poolBytes: usage.poolBytes, budgetBytes: undefined, idleMs, wallNowMs, run: '',
    removeOwners });
  const afterBytes = usage.poolBytes - all.evictBytes;
  const verdict: UsageVerdict = budgetBytes === undefined ? 'none' : usage.poolBytes <= budgetBytes ? 'under'
    : afterBytes - all.othersBytes <= budgetBytes ? 'over' : 'unmet';
  const notOwned = new Map<string, string>();
  for (const entry of all.copies) if (entry.reason === 'not-owned') notOwned.set(entry.copy.imageId, entry.detail);
  const kept = Object.fromEntries(KEEP_REASONS.map((reason) => [reason, reason === 'under-budget' ? { copies: 0, bytes: 0 } : all.kept[reason]]));
  return Object.freeze({
    store: usage.store, pool: usage.pool, usedBytes: usage.poolBytes, copyBytes: usage.poolBytes - usage.otherBytes,
    otherBytes: usage.otherBytes, trashBytes: usage.trashBytes, budget, budgetBytes, verdict,
    overBytes: budgetBytes === undefined ? 0 : Math.max(0, usage.poolBytes - budgetBytes), evictableBytes: all.evictBytes, idleMs,
    kept: Object.freeze(kept) as Record<KeepReason, KeptTally>, copies: usage.copies, ignoredPins: ignoredPins ?? NO_IGNORED_PINS,
    notOwned,
  });
}
