import type { FerryErrorCode } from '../errors/error-table.js';
import { isFerryError, type FerryError } from '../errors/ferry-error.js';

/**
 * How one (image, store) of a copy job ended:
 * - copied: this job's own import (its request id matched the task's) brought it;
 * - joined: not there at first, brought by an import someone else ran (this job waited for it);
 * - present: already there when the job looked;
 * - failed: see `failure`;
 * - skipped: not copyable (see `skipReason`);
 * - interrupted: the job was stopped first; `runningInGlance` says whether a copy goes on inside Glance.
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

export interface StoreCopyResult<Skip extends string = string> {
  readonly outcome: ItemOutcome;
  readonly failure?: FailureKind;
  readonly skipReason?: Skip;
  /** The ferry error code behind a failure, when there is one. */
  readonly code?: FerryErrorCode;
  /** For an operator: what happened. */
  readonly reason: string;
  /** copied, joined, failed: from the request (or the join) to Glance releasing the lock. */
  readonly elapsedMs?: number;
  /** The import task that brought the store (ours or the one joined), or the one that failed or still runs. */
  readonly taskId?: string;
  /** interrupted or timed out: a copy towards this store goes on inside Glance. */
  readonly runningInGlance?: boolean;
  /** copied: which transfer brought it (Glance's copy-image, or the direct RBD transfer). */
  readonly transfer?: 'glance' | 'rbd';
  /** failed: the coded error, with its hint and details (library callers rethrow it; reports show code and reason). */
  readonly error?: FerryError;
}

const REFUSALS: ReadonlySet<FerryErrorCode> = new Set(['FERRY_FORBIDDEN', 'FERRY_IMAGE_NOT_ACTIVE', 'FERRY_STORE_NOT_FOUND',
  'FERRY_INVALID_OPTION', 'FERRY_NOT_CLONABLE', 'FERRY_LOCATIONS_HIDDEN', 'FERRY_NOT_LOCAL']);

const FAILURE_OF: Partial<Record<FerryErrorCode, FailureKind>> = {
  FERRY_COPY_TIMEOUT: 'timeout',
  FERRY_COPY_UNCONFIRMED: 'timeout',
  FERRY_COPY_STUCK: 'stuck',
  FERRY_COPY_FAILED: 'failed',
  FERRY_COPY_TARGET_EXISTS: 'failed',
};

/** A coded error that ended a store: the image went away, Glance refused, the copy failed, or something else. */
export function errorResult(error: unknown, imageId: string): StoreCopyResult<never> | undefined {
  if (!isFerryError(error)) return undefined;
  if (error.code === 'FERRY_IMAGE_NOT_FOUND') {
    return { outcome: 'failed', failure: 'image-deleted', code: error.code, error,
      reason: `image ${imageId} was deleted (or hidden) during the run` };
  }
  const fromDetails = typeof error.details.outcome === 'string' && (FAILURE_KINDS as readonly string[]).includes(error.details.outcome)
    ? error.details.outcome as FailureKind : undefined;
  const failure: FailureKind = REFUSALS.has(error.code) ? 'refused' : fromDetails ?? FAILURE_OF[error.code] ?? 'error';
  const taskId = typeof error.details.taskId === 'string' ? { taskId: error.details.taskId } : {};
  const running = error.details.runningInGlance === true ? { runningInGlance: true } : {};
  return { outcome: 'failed', failure, code: error.code, reason: error.message, error, ...taskId, ...running };
}
