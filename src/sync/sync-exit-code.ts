import { ERROR_TABLE } from '../errors/error-table.js';
import type { BudgetVerdict } from '../fleet/eviction-plan.js';
import type { PrewarmReport } from '../fleet/prewarm-report.js';
import type { PassError } from './sync-report.js';

/** What of a pass (a SyncReport) decides `ferry sync`'s exit code. */
export interface SyncVerdictInput {
  readonly result: Pick<PrewarmReport, 'aborted'> & { readonly counts: Pick<PrewarmReport['counts'], 'failed'> };
  readonly budgets: readonly { readonly report?: { readonly budget: { readonly verdict: BudgetVerdict } } | undefined; readonly error?: PassError | undefined }[];
}

/**
 * `ferry sync`'s exit code (docs/exit-codes.md), a pure verdict over its last pass: a watch ends only when
 * interrupted, and so does an aborted pass (130); then a store left over its budget (51); then a copy that failed or a
 * budget that could not be judged (50); else 0. A watch that completed no pass has no report.
 */
export function syncExitCode(report: SyncVerdictInput | undefined, watched: boolean): number {
  if (watched || report?.result.aborted === true) return ERROR_TABLE.FERRY_ABORTED.exit;
  if (report === undefined) return 0;
  if (report.budgets.some((entry) => entry.report?.budget.verdict === 'unmet')) return ERROR_TABLE.FERRY_BUDGET_UNMET.exit;
  return report.result.counts.failed > 0 || report.budgets.some((entry) => entry.error !== undefined) ? ERROR_TABLE.FERRY_PARTIAL_FAILURE.exit : 0;
}
