import { ERROR_TABLE } from '../errors/error-table.js';
import type { EvictReport } from '../fleet/evict-report.js';
import type { UsageReport } from './read-usage.js';
import { isStoreUsageError } from './read-usage.js';

// The exit codes an eviction and a look at usage end with (docs/exit-codes.md): pure verdicts over the reports,
// which `ferry evict` and `ferry status --usage` return as they are.

/** What of an eviction's report decides its exit code. */
export interface EvictVerdictInput {
  readonly budget: Pick<EvictReport['budget'], 'verdict'>;
  readonly counts: Pick<EvictReport['counts'], 'failed' | 'forbidden'>;
}

/** An unmet budget first (51); else a copy that failed or that Glance refused (403) is a partial failure (50); else 0. */
export function evictExitCode({ budget, counts }: EvictVerdictInput): number {
  if (budget.verdict === 'unmet') return ERROR_TABLE.FERRY_BUDGET_UNMET.exit;
  // A copy Glance refused (403) is as much a removal not done as one that failed: the run went on, and says so.
  return counts.failed + counts.forbidden > 0 ? ERROR_TABLE.FERRY_PARTIAL_FAILURE.exit : 0;
}

/** A look: over budget is no failure of it (FerryStoreOverBudget and ferry evict act on that); a store not read is (50). */
export function usageExitCode({ stores }: Pick<UsageReport, 'stores'>): number {
  return stores.some(isStoreUsageError) ? ERROR_TABLE.FERRY_PARTIAL_FAILURE.exit : 0;
}
