import type { StoreCopyResult } from '../copy/store-copy-result.js';
import type { NotCopyableReason, PlacementVerdict } from '../fleet/classify-placement.js';

/** How one store of a job ended: the copy engine's result, with prewarm's skip reasons. */
export type StoreResult = StoreCopyResult<NotCopyableReason>;

export function skippedResult(verdict: PlacementVerdict): StoreResult {
  return { outcome: 'skipped', ...(verdict.reason ? { skipReason: verdict.reason } : {}), reason: verdict.detail };
}
