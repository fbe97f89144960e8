import pLimit from 'p-limit';
import { FerryError, isFerryError } from '../errors/ferry-error.js';
import type { GlanceClient } from '../glance/glance-client.js';
import type { GlanceImage } from '../glance/image.js';
import type { GlanceStoresInfo } from '../glance/image-store-info.js';
import { parseRbdLocation } from '../rbd/parse-rbd-location.js';
import { COPY_SNAPSHOT, readStoreCopies, type StoreCopiesOptions } from '../rbd/store-copies.js';
import type { PoolListing } from '../rbd/store-copy-listing.js';
import { selectImages, SELECT_DEFAULTS } from './select-images.js';
import type { StoreCluster } from './store-cluster.js';

// The one reader of the fleet: what evict, `status --usage` and sync plan from. O(pages) in Glance and one process per
// store in Ceph, never a read per image: every image Glance shows (GET /v2/images, page by page), the stores' pools
// (given, else GET /v2/info/stores/detail once for all of them, else the pool their locations name), and each pool's
// listing (rbd_store_copies.py, one process each, at most FLEET_READS.poolsAtOnce at once).

/** A store whose pool is read: where its cluster is (its pool, when known). */
export interface StoreToRead {
  readonly store: string;
  readonly cluster: StoreCluster;
}

export interface FleetReadOptions {
  readonly signal?: AbortSignal | undefined;
  /** Passed to the rbd_store_copies runs (a runner for tests, the python, timeouts). */
  readonly ceph?: StoreCopiesOptions | undefined;
}

/** One snapshot of the fleet: every image, each store's pool. */
export interface FleetSnapshot {
  readonly images: readonly GlanceImage[];
  /** The pools read, by store. */
  readonly pools: ReadonlyMap<string, PoolListing>;
  /** The stores whose pool could not be read, with why (the others stand). */
  readonly failed: ReadonlyMap<string, FerryError>;
}

export const FLEET_READS = {
  /** Pools read at once (one process each). */
  poolsAtOnce: 8,
  /** A listing larger than this is refused: at 10 000 images (the fleet bench) the reads stay O(pages). */
  maxImages: 100_000,
} as const;

/**
 * Every image once, then every store's pool once (a store named twice is read once). A store whose pool cannot be read
 * (its pool unknown, the cluster refusing, the program failing: a FerryError) is in `failed`; an abort, or an error
 * that is no FerryError, ends the read.
 */
export async function readFleet(glance: GlanceClient, stores: readonly StoreToRead[], options: FleetReadOptions = {}): Promise<FleetSnapshot> {
  const { signal } = options;
  const images = await readImageListing(glance, signal);
  const knownNames = imageIdsOf(images);
  // Read once for every store that needs it, and only if one does.
  let detail: Promise<GlanceStoresInfo | undefined> | undefined;
  const storesDetail = (): Promise<GlanceStoresInfo | undefined> => (detail ??= readStoresDetail(glance, signal));
  const limit = pLimit(FLEET_READS.poolsAtOnce);
  const unique = [...new Map(stores.map((entry) => [entry.store, entry])).values()];
  const read = await Promise.all(unique.map(({ store, cluster }) => limit(async (): Promise<[string, PoolListing | FerryError]> => {
    try {
      const pool = cluster.pool ?? poolOfStore(store, (await storesDetail())?.stores.find((entry) => entry.id === store)?.pool, images);
      return [store, await readStoreCopies({ ...cluster, pool, snapshot: COPY_SNAPSHOT },
        { ...options.ceph, ...(signal === undefined ? {} : { signal }) }, knownNames)];
    } catch (error) {
      if (!isFerryError(error) || error.code === 'FERRY_ABORTED') throw error;
      return [store, error];
    }
  })));
  const pools = new Map<string, PoolListing>();
  const failed = new Map<string, FerryError>();
  for (const [store, result] of read) {
    if (isFerryError(result)) failed.set(store, result);
    else pools.set(store, result);
  }
  return Object.freeze({ images, pools, failed });
}

/** The snapshot's pools when every one was read; else the first store's error (in the order asked). */
export function everyPool(snapshot: FleetSnapshot): ReadonlyMap<string, PoolListing> {
  const [first] = snapshot.failed.values();
  if (first !== undefined) throw first;
  return snapshot.pools;
}

/** Every image the caller may see (visibility all), page by page. */
export async function readImageListing(glance: GlanceClient, signal?: AbortSignal): Promise<readonly GlanceImage[]> {
  const selected = await selectImages(glance, { all: true, visibility: 'all' }, { signal, pageSize: SELECT_DEFAULTS.pageSize, maxImages: FLEET_READS.maxImages });
  return selected.images;
}

/**
 * Each image's id as its own key: the strings a fleet's pool listings keep as their copies' names (readStoreCopies'
 * knownNames), so that an image's id is held once and not once per store.
 */
export function imageIdsOf(images: readonly GlanceImage[]): ReadonlyMap<string, string> {
  return new Map(images.map((image) => [image.id, image.id]));
}

/** Glance's stores/detail (admin, or a role allowed it); undefined where this account may not read it. */
async function readStoresDetail(glance: GlanceClient, signal: AbortSignal | undefined): Promise<GlanceStoresInfo | undefined> {
  try {
    return await glance.getStoresDetail({ signal });
  } catch (error) {
    if (!isFerryError(error) || (error.code !== 'FERRY_FORBIDDEN' && error.details.status !== 403 && error.details.status !== 404)) throw error;
    return undefined;
  }
}

/**
 * The store's pool: what Glance's stores/detail says, else the one pool its locations name. No copy and no detail:
 * there is nothing to list, and the message says how to name the pool.
 */
function poolOfStore(store: string, detailPool: string | undefined, images: readonly GlanceImage[]): string {
  if (detailPool !== undefined) return detailPool;
  const pools = new Set<string>();
  for (const image of images) {
    for (const location of image.locations ?? []) {
      if (location.store !== store) continue;
      const parsed = parseRbdLocation(location.url);
      if (parsed.ok) pools.add(parsed.location.pool);
    }
  }
  if (pools.size === 1) return [...pools][0]!;
  throw new FerryError('FERRY_INVALID_OPTION', pools.size === 0
    ? `cannot tell the pool of store ${store}: Glance's stores/detail is not readable to this account and no image location names it`
    : `the locations of store ${store} name several pools (${[...pools].join(', ')})`,
  'Name the pool with --pool POOL (the store\'s rbd_store_pool in glance-api.conf).', { store, pools: [...pools] });
}
