import type { GlanceImage } from '../glance/image.js';
import type { PoolEntry, PoolListing } from '../rbd/store-copy-listing.js';
import { copyFactsOf, rbdImageOf, type CopyFacts } from './copy-facts.js';
import { NO_PINS, pinOf, type PinSet } from './copy-pins.js';
import type { CapacityFacts } from './evict-budget.js';

/** One store as eviction and `status --usage` see it: its copies' facts, and what its pool holds besides. */
export interface StoreUsage {
  readonly store: string;
  readonly pool: string;
  /** Every copy Glance lists in this store, in Glance's listing order. */
  readonly copies: readonly CopyFacts[];
  /** Every byte of the pool's images, copies or not, and of its trash. */
  readonly poolBytes: number;
  /** Bytes of images that are no copy Glance lists here (leftovers, other tools' images) and of the pool's trash. */
  readonly otherBytes: number;
  readonly trashBytes: number;
  readonly capacity: CapacityFacts;
}

const entryBytes = (entry: PoolEntry): number => (entry.kind === 'image' ? entry.usedBytes ?? entry.sizeBytes : 0);

/** Pure: one store's usage from the images Glance lists (any order, any number of stores) and the pool's listing. */
export function storeUsageOf(store: string, images: readonly GlanceImage[], listing: PoolListing, pins: PinSet = NO_PINS): StoreUsage {
  const members: GlanceImage[] = [];
  const at: number[] = [];
  for (const image of images) {
    // indexOf, not hasStore: the same whole-token test, and where the store's location likely is.
    const index = image.stores.indexOf(store);
    if (index < 0) continue;
    members.push(image);
    at.push(index);
  }
  return usageOfStore(store, members, at, listing, pins);
}

/**
 * Pure: every read store's usage at once, from one image listing and each store's pool listing: one pass over the
 * images to find each store's, then each store on its own (its listing's entries by name live only while that store is
 * judged). The cost grows with the images' stores and the pools' entries, never with their product.
 */
export function fleetUsageOf(images: readonly GlanceImage[], pools: ReadonlyMap<string, PoolListing>, pinsOf: (store: string) => PinSet):
  ReadonlyMap<string, StoreUsage> {
  // Per store, its images and where the store is in each one's `stores` (where its location likely is too).
  const members = new Map<string, { images: GlanceImage[]; at: number[] }>([...pools.keys()].map((store) => [store, { images: [], at: [] }]));
  for (const image of images) {
    const stores = image.stores;
    for (let at = 0; at < stores.length; at++) {
      const store = stores[at] ?? '';
      const member = members.get(store);
      // A store named twice in `stores` is one copy (hasStore's whole-token test): the first mention makes it.
      if (member === undefined || stores.indexOf(store) !== at) continue;
      member.images.push(image);
      member.at.push(at);
    }
  }
  return new Map([...pools].map(([store, listing]) => {
    const member = members.get(store) ?? { images: [], at: [] };
    return [store, usageOfStore(store, member.images, member.at, listing, pinsOf(store))];
  }));
}

/** One store's usage from its images (with where the store is in each one's `stores`) and its pool's listing. */
function usageOfStore(store: string, images: readonly GlanceImage[], at: readonly number[], listing: PoolListing, pins: PinSet): StoreUsage {
  const indexByName = new Map<string, number>();
  listing.images.forEach((entry, i) => indexByName.set(entry.name, i));
  const claimed = new Uint8Array(listing.images.length);
  const copies: CopyFacts[] = [];
  images.forEach((image, i) => {
    const name = rbdImageOf(image, store, at[i]);
    const index = indexByName.get(name);
    const entry = index === undefined ? undefined : listing.images[index];
    if (index !== undefined) claimed[index] = 1;
    // The entry's own name when there is one: the same text, and no string kept per copy (cut from its URL).
    copies.push(copyFactsOf(image, store, entry, pinOf(image, store, pins), entry?.name ?? name));
  });
  let poolBytes = 0;
  let otherBytes = 0;
  listing.images.forEach((entry, i) => {
    poolBytes += entryBytes(entry);
    if (claimed[i] === 0) otherBytes += entryBytes(entry);
  });
  const trashBytes = listing.trash.reduce((sum, entry) => sum + entryBytes(entry), 0);
  const replicas = listing.replicas ?? 1;
  return Object.freeze({
    store, pool: listing.pool, copies: Object.freeze(copies), poolBytes: poolBytes + trashBytes, otherBytes: otherBytes + trashBytes, trashBytes,
    capacity: Object.freeze({
      quotaBytes: listing.quotaBytes,
      poolBytes: listing.capacity?.poolStoredBytes === undefined || listing.capacity.poolMaxAvailBytes === undefined ? undefined
        : listing.capacity.poolStoredBytes + listing.capacity.poolMaxAvailBytes,
      clusterBytes: listing.capacity === undefined ? undefined : Math.floor(listing.capacity.clusterBytes / replicas),
    }),
  });
}
