import type { Budget } from '../fleet/store-budget.js';
import type { EvictItem, EvictOutcome, EvictReport } from '../fleet/evict-report.js';
import { EVICT_OUTCOMES } from '../fleet/evict-report.js';
import { budgetVerdict, lastUseWhat, type EvictionPlan } from './plan-eviction.js';
import type { EvictionRun } from './run-eviction.js';
import type { StoreUsage } from '../fleet/store-usage.js';

export interface ReportContext {
  readonly budget: Budget | undefined;
  readonly dryRun: boolean;
  readonly run: string;
  readonly graceMs: number;
  /** Image ID → an image's own pin that did not count (copy-pins.ts ignoredPins): said in its copy's detail. */
  readonly ignoredPins?: ReadonlyMap<string, string>;
}

/** Pure: the plan, what the run did with it (none in a dry run), and the budget as it stands after. */
export function buildEvictReport(plan: EvictionPlan, usage: StoreUsage, run: EvictionRun | undefined, context: ReportContext): EvictReport {
  const items = plan.copies.map((entry): EvictItem => {
    const outcome = run?.outcomes.get(entry.copy.imageId);
    const { copy } = entry;
    const ignored = context.ignoredPins?.get(copy.imageId);
    return Object.freeze({
      imageId: copy.imageId, imageName: copy.imageName, store: copy.store, bytes: copy.bytes, lastUsedMs: copy.lastUsedMs,
      lastUse: lastUseWhat(copy), clones: copy.clones, action: entry.action, reason: entry.reason,
      detail: ignored === undefined ? entry.detail : `${entry.detail}; ${ignored}`,
      ...(outcome === undefined ? {} : { outcome: outcome.outcome, outcomeReason: outcome.reason, outcomeDetail: outcome.detail }),
    });
  });
  const counts = Object.fromEntries([...EVICT_OUTCOMES, 'planned'].map((key) => [key, 0])) as Record<EvictOutcome | 'planned', number>;
  for (const item of items) {
    if (item.action === 'evict') counts.planned += 1;
    if (item.outcome !== undefined) counts[item.outcome] += 1;
  }
  const afterBytes = run === undefined ? plan.afterBytes : plan.poolBytes - run.freedBytes;
  const othersBytes = plan.othersBytes + (run?.othersBytes ?? 0);
  const verdict = budgetVerdict(plan.poolBytes, afterBytes, othersBytes, plan.budgetBytes);
  return Object.freeze({
    store: plan.store, pool: usage.pool, dryRun: context.dryRun, run: context.run, idleMs: plan.idleMs, graceMs: context.graceMs, plannedAtMs: plan.wallNowMs,
    items: Object.freeze(items),
    budget: Object.freeze({ budget: context.budget, budgetBytes: plan.budgetBytes, usedBytes: plan.poolBytes, afterBytes, othersBytes, verdict,
      shortfallBytes: plan.budgetBytes === undefined ? 0 : Math.max(0, afterBytes - othersBytes - plan.budgetBytes), kept: plan.kept }),
    counts: Object.freeze(counts), otherBytes: usage.otherBytes, trashBytes: usage.trashBytes, fencesLeft: run?.fencesLeft ?? [],
  });
}
