import type { CopyContext } from '../copy/copy-context.js';
import type { PrewarmPlan } from '../fleet/prewarm-plan.js';
import type { PrewarmReport } from '../fleet/prewarm-report.js';
import type { SyncPolicy } from '../fleet/sync-policy.js';
import type { PlacementDrift, StoreBudget, SyncReport } from './sync-report.js';

/** What each placement selected: its images' ids, and how many of its named images Glance did not have. */
export interface PlacementSelection {
  readonly name: string;
  readonly stores: readonly string[];
  readonly ids: readonly string[];
  readonly unresolved: number;
}

const IN_PLACE = new Set(['present', 'copied', 'joined']);

/** The pass's report: the drift per placement and overall from the plan and what the run did, and the budgets. */
export function buildSyncReport(ctx: Pick<CopyContext, 'logger'>, policy: SyncPolicy, wantedBy: readonly PlacementSelection[],
  plan: PrewarmPlan, result: PrewarmReport, budgets: readonly StoreBudget[]): SyncReport {
  const planned = new Map(plan.items.map((item) => [`${item.imageId}\u0000${item.store}`, item.state]));
  const placements = wantedBy.map((wanted): PlacementDrift => Object.freeze({
    name: wanted.name,
    stores: wanted.stores,
    images: wanted.ids.length,
    unresolved: wanted.unresolved,
    drift: wanted.ids.reduce((sum, id) => sum + wanted.stores.filter((store) => planned.get(`${id}\u0000${store}`) !== 'present').length, 0)
      + wanted.unresolved * wanted.stores.length,
  }));
  const driftBefore = plan.items.filter((item) => item.state !== 'present').length;
  const driftAfter = result.dryRun ? driftBefore : result.items.filter((item) => !IN_PLACE.has(item.outcome ?? '')).length;
  ctx.logger.info({ policy: policy.source, wanted: plan.items.length, driftBefore, driftAfter, budgets: budgets.length }, 'sync pass');
  return Object.freeze({
    policy: policy.source,
    placements: Object.freeze(placements),
    wanted: plan.items.length,
    driftBefore,
    driftAfter,
    converged: driftAfter === 0,
    result,
    budgets: Object.freeze([...budgets]),
  });
}
