import type { CopySnapshot } from '../copy/copy-snapshot.js';
import { copyAcceptors } from '../copy/copy-acceptors.js';
import { copyState, type StaleRule } from '../copy/copy-state.js';
import { isFerryError } from '../errors/ferry-error.js';
import type { FerryErrorCode } from '../errors/error-table.js';
import { judge } from '../wait/verdict.js';
import type { PlacementVerdict } from './classify-placement.js';
import type { FailureKind, PrewarmItemReport } from './prewarm-report.js';

/** How one store of a job ended: the item report without what the plan already says. */
export type StoreResult = Omit<PrewarmItemReport, 'imageId' | 'imageName' | 'store' | 'planned' | 'action' | 'outcome'>
  & { readonly outcome: NonNullable<PrewarmItemReport['outcome']> };

/**
 * Judge one store of an import we requested, once the watched task has let go of the lock (storesSettledAcceptors):
 * the same verdicts and words as ensure() (copyAcceptors over copyState).
 */
export function judgeRequestedStore(snapshot: CopySnapshot, store: string, rule: StaleRule, elapsedMs: number): StoreResult {
  const taskId = snapshot.watchedTask;
  const task = taskId === undefined ? {} : { taskId };
  const verdict = judge(snapshot, copyAcceptors(store, rule));
  if (verdict.state === 'success') {
    return { outcome: 'copied', reason: `copied to ${store}`, elapsedMs, ...task };
  }
  const state = copyState(snapshot, store, rule);
  const failure: FailureKind = state.kind === 'rolled-back' ? 'rolled-back' : state.kind === 'vanished' ? 'aborted'
    : state.kind === 'stuck' ? 'stuck' : 'failed';
  const reason = verdict.state === 'failure' ? verdict.reason : `the copy to ${store} did not settle`;
  return { outcome: 'failed', failure, code: failure === 'stuck' ? 'FERRY_COPY_STUCK' : 'FERRY_COPY_FAILED', reason, elapsedMs, ...task };
}

export function skippedResult(verdict: PlacementVerdict): StoreResult {
  return { outcome: 'skipped', ...(verdict.reason ? { skipReason: verdict.reason } : {}), reason: verdict.detail };
}

const REFUSALS: ReadonlySet<FerryErrorCode> = new Set(['FERRY_FORBIDDEN', 'FERRY_IMAGE_NOT_ACTIVE', 'FERRY_STORE_NOT_FOUND',
  'FERRY_INVALID_OPTION']);

/** A coded error that ended a job: the image went away, Glance refused, or something else (kept with its code). */
export function errorResult(error: unknown, imageId: string): StoreResult | undefined {
  if (!isFerryError(error)) return undefined;
  if (error.code === 'FERRY_IMAGE_NOT_FOUND') {
    return { outcome: 'failed', failure: 'image-deleted', code: error.code, reason: `image ${imageId} was deleted (or hidden) during the run` };
  }
  const failure: FailureKind = REFUSALS.has(error.code) ? 'refused' : 'error';
  return { outcome: 'failed', failure, code: error.code, reason: error.message };
}
