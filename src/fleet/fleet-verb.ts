import type { CopyContext } from '../copy/copy-context.js';
import type { KeyedLimiter } from '../concurrency/keyed-limiter.js';
import type { StoreCopiesOptions } from '../rbd/store-copies.js';
import type { ClassifyOptions } from './classify-placement.js';
import type { EvictEvent, EvictReport } from './evict-report.js';
import type { EvictionInput, EvictionPlan } from './eviction-plan.js';
import type { PrewarmOptions } from './prewarm-options.js';
import type { PlanInput, PrewarmPlan } from './prewarm-plan.js';
import type { PrewarmReport } from './prewarm-report.js';
import type { Budget } from './store-budget.js';
import type { StoreCatalogue } from './store-catalogue.js';
import type { StoreCluster } from './store-cluster.js';
import type { StoreUsage } from './store-usage.js';

// The verbs as another verb composes them. prewarm/, evict/ and sync/ stand side by side over fleet/; a sync pass is
// a prewarm plus an eviction over one snapshot of the fleet, so sync is handed the other two (prewarm/prewarm-verb,
// evict/evict-verb) by whoever stands above all three (cli/commands/sync.ts, the library's caller), never imports them.

/** Copying: what to do for every (image, store), then doing it. */
export interface PrewarmVerb {
  /** Pure: planPrewarm. */
  plan(input: PlanInput, options?: ClassifyOptions): PrewarmPlan;
  /** The options' defaults filled and checked (FERRY_INVALID_OPTION), then the plan run: copies, joins, the report. */
  run(ctx: CopyContext, plan: PrewarmPlan, catalogue: StoreCatalogue, options: PrewarmOptions): Promise<PrewarmReport>;
}

/** One store's eviction as a sync pass runs it: the store's settings from the policy, the pass's shared pieces. */
export interface EvictRun {
  readonly store: string;
  readonly cluster: StoreCluster;
  readonly budget: Budget | undefined;
  readonly idleMs: number;
  readonly graceMs: number;
  /** Plan only: the report of the plan, nothing fenced or removed. */
  readonly dryRun: boolean;
  readonly signal: AbortSignal | undefined;
  readonly ceph: StoreCopiesOptions;
  /** The pass's run id, as its fences name it, and who they name. */
  readonly run: string;
  readonly by: string;
  /** Shared by the stores a pass evicts at once: one image's last look and removal one store at a time. */
  readonly removals: KeyedLimiter;
  readonly onProgress?: ((event: EvictEvent) => void) | undefined;
  /** Pins the report lists as not honoured (copy-pins ignoredPins). */
  readonly ignoredPins: ReadonlyMap<string, string>;
}

/** Freeing a store: which copies may go, then removing them with the fence, the grace and the last look. */
export interface EvictVerb {
  /** Pure: planEviction. */
  plan(input: EvictionInput): EvictionPlan;
  /** The plan run (when it evicts something and this is no dry run) and its report. */
  run(ctx: CopyContext, plan: EvictionPlan, usage: StoreUsage, options: EvictRun): Promise<EvictReport>;
}

/** The verbs a sync pass is made of. */
export interface FleetVerbs {
  readonly prewarm: PrewarmVerb;
  readonly evict: EvictVerb;
}

/** The pure halves, all a fleet plan needs (sync/plan-fleet, the bench). */
export interface FleetPlanners {
  readonly prewarm: Pick<PrewarmVerb, 'plan'>;
  readonly evict: Pick<EvictVerb, 'plan'>;
}
