import { FerryError, isFerryError } from '../errors/ferry-error.js';
import type { GlanceClient } from '../glance/glance-client.js';
import type { GlanceImage } from '../glance/image.js';
import { parseRbdLocation } from '../rbd/parse-rbd-location.js';
import { COPY_SNAPSHOT, readStoreCopies, type StoreCopiesOptions } from '../rbd/store-copies.js';
import { selectImages, SELECT_DEFAULTS } from './select-images.js';
import { NO_PINS, type PinSet } from './copy-pins.js';
import type { StoreCluster } from './store-cluster.js';
import { storeUsageOf, type StoreUsage } from './store-usage.js';

// The reads behind a store's usage, O(pages) in Glance and one process in Ceph per store, never one per image:
// every image Glance shows (GET /v2/images, page by page), the store's pool (GET /v2/info/stores/detail, or the pool
// its locations name), and the pool's listing (rbd_store_copies.py).

export interface UsageReadOptions {
  readonly signal?: AbortSignal | undefined;
  readonly ceph?: StoreCopiesOptions;
  /** imageIdsOf(images), made once for all the stores read (readStoreCopies' knownNames). */
  readonly knownNames?: ReadonlyMap<string, string>;
}

/** A listing larger than this is refused: at 10 000 images (the fleet bench) the reads stay O(pages). */
export const MAX_LISTED_IMAGES = 100_000;

/** Every image the caller may see (visibility all), page by page. */
export async function readImageListing(glance: GlanceClient, signal?: AbortSignal): Promise<readonly GlanceImage[]> {
  const selected = await selectImages(glance, { all: true, visibility: 'all' }, { signal, pageSize: SELECT_DEFAULTS.pageSize, maxImages: MAX_LISTED_IMAGES });
  return selected.images;
}

/**
 * Each image's id as its own key: the strings a fleet's pool listings keep as their copies' names (readStoreCopies'
 * knownNames), so that an image's id is held once and not once per store.
 */
export function imageIdsOf(images: readonly GlanceImage[]): ReadonlyMap<string, string> {
  return new Map(images.map((image) => [image.id, image.id]));
}

/**
 * The store's pool: given, else what Glance's stores/detail says (admin, or a role allowed it), else the one pool its
 * locations name. No copy and no detail: there is nothing to list, and the message says how to name the pool.
 */
export async function resolveStorePool(glance: GlanceClient, store: string, images: readonly GlanceImage[], given: string | undefined,
  signal?: AbortSignal): Promise<string> {
  if (given !== undefined) return given;
  try {
    const detail = await glance.getStoresDetail({ signal });
    const pool = detail.stores.find((entry) => entry.id === store)?.pool;
    if (pool !== undefined) return pool;
  } catch (error) {
    if (!isFerryError(error) || (error.code !== 'FERRY_FORBIDDEN' && error.details.status !== 403 && error.details.status !== 404)) throw error;
  }
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

/** One store's usage: its pool's listing joined with the images Glance lists (read once by the caller, for every store). */
export async function readStoreUsage(glance: GlanceClient, store: string, cluster: StoreCluster, images: readonly GlanceImage[],
  pins: PinSet = NO_PINS, options: UsageReadOptions = {}): Promise<StoreUsage> {
  const pool = await resolveStorePool(glance, store, images, cluster.pool, options.signal);
  const listing = await readStoreCopies({ ...cluster, pool, snapshot: COPY_SNAPSHOT },
    { ...options.ceph, ...(options.signal === undefined ? {} : { signal: options.signal }) }, options.knownNames);
  return storeUsageOf(store, images, listing, pins);
}
