import pLimit from 'p-limit';
import type { CopyContext } from '../copy/copy-context.js';
import { createKeyedLimiter } from '../concurrency/keyed-limiter.js';
import { isFerryError } from '../errors/ferry-error.js';
import type { GlanceImage } from '../glance/image.js';
import { buildEvictReport } from '../evict/build-evict-report.js';
import { ignoredPins, NO_PINS } from '../fleet/copy-pins.js';
import { ownersOf } from '../fleet/project-owners.js';
import { EVICT_DEFAULTS, resolveEvictOptions } from '../evict/evict-options.js';
import { imageIdsOf, readImageListing, resolveStorePool } from '../fleet/read-store-usage.js';
import { runEviction } from '../evict/run-eviction.js';
import { resolvePrewarmOptions } from '../prewarm/prewarm-options.js';
import { runPrewarmPlan } from '../prewarm/run-prewarm-plan.js';
import type { StoreCatalogue } from '../fleet/store-catalogue.js';
import { COPY_SNAPSHOT, readStoreCopies } from '../rbd/store-copies.js';
import type { PoolListing } from '../rbd/store-copy-listing.js';
import { buildSyncReport, type PlacementSelection } from './build-sync-report.js';
import { planFleet, type FleetPlan, type StoreEvictionPlan } from './plan-fleet.js';
import { selectFromListing } from '../fleet/policy-wants.js';
import type { SyncPolicy } from '../fleet/sync-policy.js';
import type { StoreBudget, SyncOptions, SyncReport } from './sync-report.js';

/** Pools read at once (one process each), and stores evicted at once. */
export const FLEET_LIMITS = { poolReads: 8, storeEvictions: 8 } as const;

interface FleetState {
  readonly images: readonly GlanceImage[];
  readonly pools: ReadonlyMap<string, PoolListing>;
}

/**
 * A sync pass with budgets or usage rules: every image read once (O(pages)), every budgeted store's pool once (one
 * process each), the whole fleet planned at once (planFleet), then the copies the policy wants, then, in each store
 * over its budget, the evictions: with the same fence, grace and last look as `ferry evict`, stores side by side but one
 * image's removals one at a time. Copies come first, and what is wanted in a store is pinned there, so a pass never
 * leaves a wanted image without its copy where it is wanted. After copies, the fleet is read again: the pools changed.
 */
export async function syncWithBudgets(ctx: CopyContext, policy: SyncPolicy, catalogue: StoreCatalogue, options: SyncOptions): Promise<SyncReport> {
  const run = options.evict?.run ?? crypto.randomUUID();
  const viewerProject = await ctx.projectId?.(options.signal);
  const plan = (state: FleetState): FleetPlan => planFleet({ policy, images: state.images, catalogue, pools: state.pools,
    wallNowMs: ctx.clock.wallNow(), run, anyFormat: options.anyFormat === true, viewerProject });
  let state = await readFleet(ctx, policy, options);
  let fleet = plan(state);
  const stores = [...new Set([...fleet.wants.keys(), ...policy.placements.flatMap((placement) => placement.stores)])];
  const resolved = resolvePrewarmOptions({ ...options, stores: stores.length > 0 ? stores : [...policy.stores.keys()] });
  const result = await runPrewarmPlan(ctx, fleet.copy, catalogue, resolved);
  const wantedBy = placementSelections(policy, state.images, viewerProject);
  const copyPlan = fleet.copy;
  if (!result.dryRun && !result.aborted && result.counts.copied + result.counts.joined > 0) {
    state = await readFleet(ctx, policy, options);
    fleet = plan(state);
  }
  const owners = ownersOf(policy.pinOwners, viewerProject);
  const budgets = result.aborted ? [] : await evictFleet(ctx, policy, fleet, { ...options, run, dryRun: result.dryRun },
    (store) => ignoredPins(state.images, store, { ...NO_PINS, owners }));
  return buildSyncReport(ctx, policy, wantedBy, copyPlan, result, budgets);
}

async function readFleet(ctx: CopyContext, policy: SyncPolicy, options: SyncOptions): Promise<FleetState> {
  const images = await readImageListing(ctx.glance, options.signal);
  const knownNames = imageIdsOf(images);
  const limit = pLimit(FLEET_LIMITS.poolReads);
  const read = await Promise.all([...policy.stores.values()].flatMap((settings) => (settings.cluster === undefined ? [] : [limit(async () => {
    const cluster = settings.cluster;
    if (cluster === undefined) throw new Error('unreachable: filtered above');
    const pool = await resolveStorePool(ctx.glance, settings.store, images, cluster.pool, options.signal);
    const listing = await readStoreCopies({ ...cluster, pool, snapshot: COPY_SNAPSHOT },
      { ...options.evict?.ceph, ...(options.signal ? { signal: options.signal } : {}) }, knownNames);
    return [settings.store, listing] as const;
  })])));
  return { images, pools: new Map(read) };
}

async function evictFleet(ctx: CopyContext, policy: SyncPolicy, fleet: FleetPlan, options: SyncOptions & { run: string; dryRun: boolean },
  ignoredIn: (store: string) => ReadonlyMap<string, string>): Promise<StoreBudget[]> {
  const removals = createKeyedLimiter(1);
  const limit = pLimit(FLEET_LIMITS.storeEvictions);
  return Promise.all(fleet.evictions.map((entry) => limit(async (): Promise<StoreBudget> => {
    if (entry.plan === undefined) return { store: entry.store, error: { code: entry.budgetError?.code ?? 'FERRY_INTERNAL', message: entry.budgetError?.message ?? '' } };
    const settings = policy.stores.get(entry.store)!;
    const evictOptions = resolveEvictOptions({ store: entry.store, cluster: settings.cluster!, budget: settings.budget,
      idleMs: settings.idleMs ?? EVICT_DEFAULTS.idleMs, graceMs: settings.graceMs ?? EVICT_DEFAULTS.graceMs, dryRun: options.dryRun,
      signal: options.signal, ceph: options.evict?.ceph ?? {}, run: options.run, by: `ferry sync pid ${process.pid}`, removals,
      ...(options.evict?.onProgress ? { onProgress: options.evict.onProgress } : {}) });
    try {
      const done = options.dryRun || !hasWork(entry) ? undefined : await runEviction(ctx, entry.plan,
        { ...settings.cluster!, pool: entry.usage.pool, snapshot: COPY_SNAPSHOT }, evictOptions);
      return { store: entry.store, report: buildEvictReport(entry.plan, entry.usage, done,
        { budget: settings.budget, dryRun: options.dryRun, run: options.run, graceMs: evictOptions.graceMs, ignoredPins: ignoredIn(entry.store) }) };
    } catch (error) {
      if (!isFerryError(error) || error.code === 'FERRY_ABORTED') throw error;
      ctx.logger.warn({ store: entry.store, code: error.code }, `sync: the eviction in ${entry.store} stopped: ${error.message}`);
      return { store: entry.store, error: { code: error.code, message: error.message } };
    }
  })));
}

function hasWork(entry: StoreEvictionPlan): boolean {
  return entry.plan?.copies.some((copy) => copy.action === 'evict') === true;
}

/** What each placement selected, counted as sync without budgets counts it (selectImages: the same matches and refusals). */
function placementSelections(policy: SyncPolicy, images: readonly GlanceImage[], viewerProject: string | undefined): PlacementSelection[] {
  return policy.placements.map((placement) => {
    const selected = selectFromListing(placement.selection, images, viewerProject);
    return { name: placement.name, stores: placement.stores, ids: selected.images.map((image) => image.id), unresolved: selected.unresolved.length };
  });
}
