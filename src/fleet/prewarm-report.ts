import type { FerryErrorCode } from '../errors/error-table.js';
import { ITEM_OUTCOMES, type FailureKind, type ItemOutcome } from '../copy/store-copy-result.js';
import type { NotCopyableReason, PlanState } from './classify-placement.js';
import type { PlanAction } from './prewarm-plan.js';
import type { RequestMode } from './request-mode.js';

export { ITEM_OUTCOMES, FAILURE_KINDS, type ItemOutcome, type FailureKind } from '../copy/store-copy-result.js';

/** A step of the adaptive limit (prewarm/adaptive-concurrency.ts decides it). */
export type ConcurrencyStep = 'up' | 'down' | 'back-to-best' | 'hold';

/** One change of the limit (or a decision to hold it), for the report. */
export interface ConcurrencyChange {
  readonly atMs: number;
  readonly limit: number;
  readonly step: ConcurrencyStep;
  readonly why: string;
}

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
  /** copied: glance (copy-image) or rbd (the direct transfer). */
  readonly transfer?: 'glance' | 'rbd';
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
  /** Fixed: the limit (--concurrency). Adaptive: where the search started. */
  readonly concurrency: number;
  readonly concurrencyMode: 'fixed' | 'adaptive';
  /** The highest limit in force during the run (adaptive: what the search reached). */
  readonly concurrencyReached: number;
  /** Adaptive: each window's decision, in order. */
  readonly concurrencyChanges: readonly ConcurrencyChange[];
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
