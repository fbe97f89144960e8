import type { GlanceImage } from '../glance/image.js';
import type { PoolEntry, PoolListing } from '../rbd/store-copy-listing.js';
import { copyFactsOf, rbdImageOf, type CopyFacts } from './copy-facts.js';
import { NO_PINS, pinOf, type PinSet } from './copy-pins.js';
import type { CapacityFacts } from './store-budget.js';

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
  const members: StoreMembers = { images: [], names: [] };
  for (const image of images) {
    // indexOf, not hasStore: the same whole-token test, and where the store's location likely is.
    const index = image.stores.indexOf(store);
    if (index < 0) continue;
    members.images.push(image);
    members.names.push(rbdImageOf(image, store, index));
  }
  return usageOfStore(store, members, listing, pins);
}

/**
 * Pure: every read store's usage at once, from one image listing and each store's pool listing: one pass over the
 * images to find each store's, then each store on its own (its listing's entries by name live only while that store is
 * judged). The cost grows with the images' stores and the pools' entries, never with their product.
 */
export function fleetUsageOf(images: readonly GlanceImage[], pools: ReadonlyMap<string, PoolListing>, pinsOf: (store: string) => PinSet):
  ReadonlyMap<string, StoreUsage> {
  // Per store, its images and the RBD name each one's location there gives. The names are cut here, image after
  // image, while each image's locations are at hand: cut store after store, the same 100 000 URLs (at 10 000 images)
  // are met in scattered order, and that took three times as long (bench/RESULTS.md, fourth pass).
  const members = new Map<string, StoreMembers>([...pools.keys()].map((store) => [store, { images: [], names: [] }]));
  for (const image of images) {
    const stores = image.stores;
    for (let at = 0; at < stores.length; at++) {
      const store = stores[at] ?? '';
      const member = members.get(store);
      // A store named twice in `stores` is one copy (hasStore's whole-token test): the first mention made it, and
      // this image is then the store's last member already.
      if (member === undefined || member.images.at(-1) === image) continue;
      member.images.push(image);
      member.names.push(rbdImageOf(image, store, at));
    }
  }
  return new Map([...pools].map(([store, listing]) => [store, usageOfStore(store, members.get(store) ?? NO_MEMBERS, listing, pinsOf(store))]));
}

/** A store's images, and beside each the RBD image name its location in the store gives (rbdImageOf). */
interface StoreMembers {
  readonly images: GlanceImage[];
  readonly names: string[];
}

const NO_MEMBERS: StoreMembers = Object.freeze({ images: [], names: [] });

/** One store's usage from its images (with their RBD names) and its pool's listing. */
function usageOfStore(store: string, members: StoreMembers, listing: PoolListing, pins: PinSet): StoreUsage {
  const indexByName = new Map<string, number>();
  listing.images.forEach((entry, i) => indexByName.set(entry.name, i));
  const claimed = new Uint8Array(listing.images.length);
  const copies: CopyFacts[] = [];
  members.images.forEach((image, i) => {
    const name = members.names[i] ?? image.id;
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
