import type { PrewarmSelection } from '../prewarm/prewarm-selection.js';

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

/** A parsed and validated policy (docs/prewarm.md, "Policy format"). Build it with parseSyncPolicy. */
export interface SyncPolicy {
  /** The file name (or what the caller called the text), named in every message. */
  readonly source: string;
  readonly placements: readonly SyncPlacement[];
}
