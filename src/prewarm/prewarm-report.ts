import type { FerryErrorCode } from '../errors/error-table.js';
import type { NotCopyableReason, PlanState } from './classify-placement.js';
import type { PlanAction } from './plan-prewarm.js';
import type { RequestMode } from './prewarm-options.js';

/**
 * How one (image, store) ended:
 * - copied: this run asked Glance and the copy landed;
 * - joined: not there when planned, brought in by an import someone else ran (this run waited for it);
 * - present: already there when planned;
 * - failed: see `failure`;
 * - skipped: not copyable (see `skipReason`);
 * - interrupted: the run was stopped first; `runningInGlance` says whether a copy goes on inside Glance.
 */
export const ITEM_OUTCOMES = ['copied', 'joined', 'present', 'failed', 'skipped', 'interrupted'] as const;
export type ItemOutcome = (typeof ITEM_OUTCOMES)[number];

/**
 * Why an item failed: Glance failed the copy (`failed`), rolled it back with another store (`rolled-back`), ended the
 * import without it (`aborted`: a staging quota, a busted lock), a lock stopped moving (`stuck`), the deadline passed
 * (`timeout`), the image was deleted during the run (`image-deleted`), a named image does not exist (`unresolved`),
 * Glance refused the request (`refused`: 403, not active, unknown store), another error (`error`), or imports of
 * others kept taking the image's lock (`gave-up`).
 */
export const FAILURE_KINDS = ['failed', 'rolled-back', 'aborted', 'stuck', 'timeout', 'image-deleted', 'unresolved', 'refused', 'error',
  'gave-up'] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

export interface PrewarmItemReport {
  /** The image ID; for an unresolved name, the reference as given. */
  readonly imageId: string;
  readonly imageName: string | null;
  readonly store: string;
  readonly planned: PlanState;
  readonly action: PlanAction;
  /** undefined in a dry run. */
  readonly outcome: ItemOutcome | undefined;
  readonly failure?: FailureKind;
  readonly skipReason?: NotCopyableReason;
  /** The ferry error code behind a failure, when there is one. */
  readonly code?: FerryErrorCode;
  /** For an operator: the plan's reason, or what happened. */
  readonly reason: string;
  /** copied, joined, failed: from the request (or the join) to Glance releasing the lock. */
  readonly elapsedMs?: number;
  readonly taskId?: string;
  /** interrupted: a copy towards this store goes on inside Glance. */
  readonly runningInGlance?: boolean;
}

/** A copy that goes on inside Glance after the run stopped (Ctrl-C): running the command again joins it. */
export interface RunningCopy {
  readonly imageId: string;
  readonly imageName: string | null;
  readonly stores: readonly string[];
  readonly taskId: string;
}

export interface PrewarmReport {
  readonly stores: readonly string[];
  readonly dryRun: boolean;
  readonly aborted: boolean;
  readonly elapsedMs: number;
  readonly requestMode: RequestMode;
  readonly concurrency: number;
  readonly perStoreConcurrency: number;
  readonly storeTypesKnown: boolean;
  /** (image, store) pairs per plan state. */
  readonly plan: Readonly<Record<PlanState, number>>;
  /** Items per outcome (all zero in a dry run). */
  readonly counts: Readonly<Record<ItemOutcome, number>>;
  readonly items: readonly PrewarmItemReport[];
  readonly runningInGlance: readonly RunningCopy[];
  /** Requests this run sent to Glance, by kind. */
  readonly requests: { readonly imageReads: number; readonly importRequests: number; readonly taskReads: number };
}

export function countOutcomes(items: readonly PrewarmItemReport[]): Readonly<Record<ItemOutcome, number>> {
  const counts = Object.fromEntries(ITEM_OUTCOMES.map((outcome) => [outcome, 0])) as Record<ItemOutcome, number>;
  for (const item of items) if (item.outcome !== undefined) counts[item.outcome] += 1;
  return Object.freeze(counts);
}
