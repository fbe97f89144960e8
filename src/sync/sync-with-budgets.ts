import pLimit from 'p-limit';
import type { CopyContext } from '../copy/copy-context.js';
import { createKeyedLimiter } from '../concurrency/keyed-limiter.js';
import { isFerryError } from '../errors/ferry-error.js';
import type { GlanceImage } from '../glance/image.js';
import { ignoredPins, NO_PINS } from '../fleet/copy-pins.js';
import { ownersOf } from '../fleet/project-owners.js';
import { EVICT_DEFAULTS } from '../fleet/evict-defaults.js';
import type { FleetVerbs } from '../fleet/fleet-verb.js';
import { everyPool, readFleet, type FleetSnapshot, type StoreToRead } from '../fleet/read-fleet.js';
import type { StoreCatalogue } from '../fleet/store-catalogue.js';
import { buildSyncReport, type PlacementSelection } from './build-sync-report.js';
import { planFleet, type FleetPlan } from './plan-fleet.js';
import { selectFromListing } from '../fleet/policy-wants.js';
import type { SyncPolicy } from '../fleet/sync-policy.js';
import type { StoreBudget, SyncOptions, SyncReport } from './sync-report.js';

/** Stores evicted at once (the pools are read FLEET_READS.poolsAtOnce at once). */
export const FLEET_LIMITS = { storeEvictions: 8 } as const;

/** The snapshot the pass plans from, every pool read. */
type FleetState = Pick<FleetSnapshot, 'images' | 'pools'>;

/**
 * A sync pass with budgets or usage rules: every image read once (O(pages)), every budgeted store's pool once (one
 * process each), the whole fleet planned at once (planFleet), then the copies the policy wants, then, in each store
 * over its budget, the evictions: with the same fence, grace and last look as `ferry evict`, stores side by side but one
 * image's removals one at a time. Copies come first, and what is wanted in a store is pinned there, so a pass never
 * leaves a wanted image without its copy where it is wanted. After copies, the fleet is read again: the pools changed.
 */
export async function syncWithBudgets(ctx: CopyContext, verbs: FleetVerbs, policy: SyncPolicy, catalogue: StoreCatalogue,
  options: SyncOptions): Promise<SyncReport> {
  const run = options.evict?.run ?? crypto.randomUUID();
  const viewerProject = await ctx.projectId?.(options.signal);
  const plan = (state: FleetState): FleetPlan => planFleet({ policy, images: state.images, catalogue, pools: state.pools,
    wallNowMs: ctx.clock.wallNow(), run, anyFormat: options.anyFormat === true, viewerProject }, verbs);
  let state = await readPolicyFleet(ctx, policy, options);
  let fleet = plan(state);
  const stores = [...new Set([...fleet.wants.keys(), ...policy.placements.flatMap((placement) => placement.stores)])];
  const result = await verbs.prewarm.run(ctx, fleet.copy, catalogue, { ...options, stores: stores.length > 0 ? stores : [...policy.stores.keys()] });
  const wantedBy = placementSelections(policy, state.images, viewerProject);
  const copyPlan = fleet.copy;
  if (!result.dryRun && !result.aborted && result.counts.copied + result.counts.joined > 0) {
    state = await readPolicyFleet(ctx, policy, options);
    fleet = plan(state);
  }
  const owners = ownersOf(policy.pinOwners, viewerProject);
  const budgets = result.aborted ? [] : await evictFleet(ctx, verbs, policy, fleet, { ...options, run, dryRun: result.dryRun },
    (store) => ignoredPins(state.images, store, { ...NO_PINS, owners }));
  return buildSyncReport(ctx, policy, wantedBy, copyPlan, result, budgets);
}

/** The fleet as the pass plans it: every image, and the pool of each store of `stores:` that names its cluster. */
async function readPolicyFleet(ctx: CopyContext, policy: SyncPolicy, options: SyncOptions): Promise<FleetState> {
  const stores = [...policy.stores.values()].flatMap((settings): StoreToRead[] => (settings.cluster === undefined ? [] : [{ store: settings.store, cluster: settings.cluster }]));
  const fleet = await readFleet(ctx.glance, stores, { signal: options.signal, ceph: options.evict?.ceph });
  return { images: fleet.images, pools: everyPool(fleet) };
}

async function evictFleet(ctx: CopyContext, verbs: FleetVerbs, policy: SyncPolicy, fleet: FleetPlan, options: SyncOptions & { run: string; dryRun: boolean },
  ignoredIn: (store: string) => ReadonlyMap<string, string>): Promise<StoreBudget[]> {
  const removals = createKeyedLimiter(1);
  const limit = pLimit(FLEET_LIMITS.storeEvictions);
  return Promise.all(fleet.evictions.map((entry) => limit(async (): Promise<StoreBudget> => {
    if (entry.plan === undefined) return { store: entry.store, error: { code: entry.budgetError?.code ?? 'FERRY_INTERNAL', message: entry.budgetError?.message ?? '' } };
    const settings = policy.stores.get(entry.store)!;
    try {
      return { store: entry.store, report: await verbs.evict.run(ctx, entry.plan, entry.usage, { store: entry.store, cluster: settings.cluster!,
        budget: settings.budget, idleMs: settings.idleMs ?? EVICT_DEFAULTS.idleMs, graceMs: settings.graceMs ?? EVICT_DEFAULTS.graceMs, dryRun: options.dryRun,
        signal: options.signal, ceph: options.evict?.ceph ?? {}, run: options.run, by: `ferry sync pid ${process.pid}`, removals,
        onProgress: options.evict?.onProgress, ignoredPins: ignoredIn(entry.store) }) };
    } catch (error) {
      if (!isFerryError(error) || error.code === 'FERRY_ABORTED') throw error;
      ctx.logger.warn({ store: entry.store, code: error.code }, `sync: the eviction in ${entry.store} stopped: ${error.message}`);
      return { store: entry.store, error: { code: error.code, message: error.message } };
    }
  })));
}

/** What each placement selected, counted as sync without budgets counts it (selectImages: the same matches and refusals). */
function placementSelections(policy: SyncPolicy, images: readonly GlanceImage[], viewerProject: string | undefined): PlacementSelection[] {
  return policy.placements.map((placement) => {
    const selected = selectFromListing(placement.selection, images, viewerProject);
    return { name: placement.name, stores: placement.stores, ids: selected.images.map((image) => image.id), unresolved: selected.unresolved.length };
  });
}
