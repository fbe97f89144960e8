import type { Budget } from './store-budget.js';
import type { StoreCluster } from './store-cluster.js';
import type { PrewarmSelection } from './prewarm-selection.js';

/** Where something was written in the policy file (1-based), for errors that come up later (an unknown store). */
export interface PolicyPosition {
  readonly line: number;
  readonly column: number;
}

/** One rule of a sync policy: these images must be in these stores. */
export interface SyncPlacement {
  /** The rule's `name`, or `placement N`. */
  readonly name: string;
  readonly selection: PrewarmSelection;
  /** In the order Glance should write them. */
  readonly stores: readonly string[];
  readonly position: PolicyPosition;
  /** Position of each entry of `stores`. */
  readonly storePositions: readonly PolicyPosition[];
}

/** A store's entry under `stores:`: its budget, how idle a copy must be, and its cluster (docs/evict.md, "In a sync policy"). */
export interface StorePolicy {
  readonly store: string;
  readonly budget?: Budget;
  readonly idleMs?: number;
  readonly graceMs?: number;
  /** Where its pool is read (and fenced): needed by budgets and usage rules. */
  readonly cluster?: StoreCluster;
  readonly position: PolicyPosition;
}

/** How a usage rule counts use: live clones across sites, or clones made in the last `days` (boots). */
export const USAGE_MEASURES = ['clones', 'boots'] as const;
export type UsageMeasure = (typeof USAGE_MEASURES)[number];
export const USAGE_DEFAULT_DAYS = 7;

/** `usage:`: keep the `keepMostUsed` most used images in each of `stores` (copied there, and never evicted). */
export interface UsageRule {
  readonly name: string;
  readonly keepMostUsed: number;
  readonly by: UsageMeasure;
  readonly days: number;
  readonly stores: readonly string[];
  /**
   * `owners:`: the projects whose images the rule counts (`*`: every project's); absent, the policy's pin owners. A
   * tenant that boots enough would otherwise have its image copied to every store of the rule and kept there.
   */
  readonly owners?: readonly string[];
  readonly position: PolicyPosition;
}

/** A parsed and validated policy (docs/prewarm.md, "Policy format"). Build it with parseSyncPolicy. */
export interface SyncPolicy {
  /** The file name (or what the caller called the text), named in every message. */
  readonly source: string;
  readonly placements: readonly SyncPlacement[];
  /** `stores:`: budgets and clusters, by store (empty: sync never evicts). */
  readonly stores: ReadonlyMap<string, StorePolicy>;
  readonly usage: readonly UsageRule[];
  /**
   * `pin_owners:`: the projects whose images' own tag ferry-pin or property ferry_pin pin their copies (copy-pins.ts);
   * absent, the project of ferry's credential.
   */
  readonly pinOwners?: readonly string[];
  /**
   * `remove_owners:`: the projects whose images' copies the budgets may remove (`*`: every project's); absent, the
   * project of ferry's credential. Others' copies stay (`not-owned`) and are never sent a DELETE.
   */
  readonly removeOwners?: readonly string[];
}
