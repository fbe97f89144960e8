import { isFerryError } from '../errors/ferry-error.js';
import type { FerryErrorCode } from '../errors/error-table.js';
import type { GlanceImage } from '../glance/image.js';
import type { StoreCopiesOptions } from '../rbd/store-copies.js';
import { readStoreCatalogue, requireStores } from '../fleet/store-catalogue.js';
import { ignoredPins, NO_PINS, type PinSet } from '../fleet/copy-pins.js';
import { resolvePins, type PinInputs } from '../fleet/resolve-pins.js';
import { budgetBytes, type Budget } from '../fleet/store-budget.js';
import type { StoreCluster } from '../fleet/store-cluster.js';
import { EVICT_DEFAULTS } from './evict-options.js';
import { ownersOf } from '../fleet/project-owners.js';
import { readFleet } from '../fleet/read-fleet.js';
import { storeUsageOf } from '../fleet/store-usage.js';
import type { EvictContext } from './run-eviction.js';
import { summarizeStoreUsage, type StoreUsageSummary } from './usage-report.js';

/** One store to look at: where its pool is read, and its budget if it has one. */
export interface UsageStore {
  readonly store: string;
  readonly cluster: StoreCluster;
  readonly budget?: Budget | undefined;
  /** How idle a copy must be to count as one an eviction could free (default EVICT_DEFAULTS.idleMs). */
  readonly idleMs?: number | undefined;
}

export interface UsageOptions {
  readonly stores: readonly UsageStore[];
  /** What stays whatever its use, by store; it gets every image Glance listed (to resolve a sync policy's selections). */
  readonly pins?: (images: readonly GlanceImage[]) => (store: string) => PinSet;
  /** What stays, as given (a policy, pin owners): resolved against the listing (fleet/resolve-pins.ts); before `pins`. */
  readonly pinsFrom?: PinInputs;
  readonly signal?: AbortSignal;
  readonly ceph?: StoreCopiesOptions;
  /** Whose copies an eviction may remove (EvictOptions.removeOwners); default the credential's project. */
  readonly removeOwners?: readonly string[] | undefined;
}

/** A store whose usage could not be read: the rest of the report stands. */
export interface StoreUsageError {
  readonly store: string;
  readonly error: { readonly code: FerryErrorCode; readonly message: string };
}

export interface UsageReport {
  /** When the pools were judged (Unix ms): ages count from it. */
  readonly readAtMs: number;
  /** In the order asked. */
  readonly stores: readonly (StoreUsageSummary | StoreUsageError)[];
}

/**
 * Images × stores with their bytes, clones and last use, and each store against its budget (docs/evict.md, "See it"):
 * one snapshot of the fleet (readFleet: one Glance listing, O(pages), and one pool listing, one process, per store),
 * never a read per image.
 * A store Glance does not have is refused before any Ceph read (FERRY_STORE_NOT_FOUND); a store whose pool cannot be
 * read or whose percentage budget has no capacity to be taken of is reported with its error, and the others stand.
 */
export async function readUsage(ctx: EvictContext, options: UsageOptions): Promise<UsageReport> {
  const { signal } = options;
  if (options.stores.length > 0) {
    requireStores(await readStoreCatalogue(ctx.glance, signal, { clock: ctx.clock }), options.stores.map((entry) => entry.store),
      '--store and the policy\'s stores:');
  }
  const fleet = await readFleet(ctx.glance, options.stores, { signal, ceph: options.ceph });
  const { images } = fleet;
  const removeOwners = ownersOf(options.removeOwners, await ctx.projectId?.(signal));
  const pinsOf = options.pinsFrom !== undefined ? resolvePins(options.pinsFrom)(images) : options.pins?.(images) ?? ((): PinSet => NO_PINS);
  const stores = options.stores.map((entry): StoreUsageSummary | StoreUsageError => {
    try {
      const listing = fleet.pools.get(entry.store);
      if (listing === undefined) throw fleet.failed.get(entry.store) ?? new Error(`unreachable: store ${entry.store} neither read nor failed`);
      const pins = pinsOf(entry.store);
      const usage = storeUsageOf(entry.store, images, listing, pins);
      return summarizeStoreUsage({ usage, budget: entry.budget, idleMs: entry.idleMs ?? EVICT_DEFAULTS.idleMs, wallNowMs: ctx.clock.wallNow(),
        budgetBytes: entry.budget === undefined ? undefined : budgetBytes(entry.budget, usage.capacity, entry.store),
        ignoredPins: ignoredPins(images, entry.store, pins), removeOwners });
    } catch (error) {
      if (!isFerryError(error) || error.code === 'FERRY_ABORTED') throw error;
      ctx.logger.warn({ store: entry.store, code: error.code }, `usage: store ${entry.store} could not be read: ${error.message}`);
      return { store: entry.store, error: { code: error.code, message: error.message } };
    }
  });
  return Object.freeze({ readAtMs: ctx.clock.wallNow(), stores: Object.freeze(stores) });
}

export function isStoreUsageError(entry: StoreUsageSummary | StoreUsageError): entry is StoreUsageError {
  return 'error' in entry;
}
