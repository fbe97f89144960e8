import type { EvictEvent, EvictReport } from '../fleet/evict-report.js';
import type { FerryErrorCode } from '../errors/error-table.js';
import type { PrewarmOptions } from '../fleet/prewarm-options.js';
import type { PrewarmReport } from '../fleet/prewarm-report.js';
import type { StoreCopiesOptions } from '../rbd/store-copies.js';

// What a sync pass takes and reports: shared by the pass without budgets (sync-once) and with them (sync-with-budgets).

/** An error that ended a pass, or kept a store's budget from being judged. */
export interface PassError {
  readonly code: FerryErrorCode;
  readonly message: string;
}

export type SyncOptions = Omit<PrewarmOptions, 'stores'> & {
  /** The eviction's reads and marks (a runner for tests); the grace and run id default as for ferry evict. */
  readonly evict?: { readonly ceph?: StoreCopiesOptions; readonly run?: string; readonly onProgress?: (event: EvictEvent) => void };
};

export interface PlacementDrift {
  readonly name: string;
  readonly stores: readonly string[];
  /** Images the placement selected (resolved), and named ones Glance does not know. */
  readonly images: number;
  readonly unresolved: number;
  /** (image, store) pairs of this placement not present when planned. */
  readonly drift: number;
}

export interface SyncReport {
  readonly policy: string;
  readonly placements: readonly PlacementDrift[];
  /** (image, store) pairs the policy wants, each counted once however many placements want it. */
  readonly wanted: number;
  /** Pairs not present when planned. */
  readonly driftBefore: number;
  /** Pairs still not present after the run (failed, skipped, interrupted). A dry run changes nothing. */
  readonly driftAfter: number;
  readonly converged: boolean;
  /** The prewarm of the drift. */
  readonly result: PrewarmReport;
  /** Per store with a budget (`stores:` of the policy): its eviction, planned (dry run) or run. */
  readonly budgets: readonly StoreBudget[];
}

/** A store's budget after the pass: its eviction's report, or why the budget could not be judged. */
export type StoreBudget =
  | { readonly store: string; readonly report: EvictReport; readonly error?: undefined }
  | { readonly store: string; readonly report?: undefined; readonly error: PassError };


