import { hasStore, type GlanceImage } from '../glance/image.js';
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

/**
 * Pure: the store's usage from the images Glance lists (any order, any number of stores) and the pool's listing.
 * One pass over each: the cost grows with the images and the pool's entries, never with their product.
 */
export function storeUsageOf(store: string, images: readonly GlanceImage[], listing: PoolListing, pins: PinSet = NO_PINS): StoreUsage {
  const byName = new Map<string, PoolEntry>();
  for (const entry of listing.images) byName.set(entry.name, entry);
  const copies: CopyFacts[] = [];
  const claimed = new Set<string>();
  for (const image of images) {
    if (!hasStore(image.stores, store)) continue;
    const name = rbdImageOf(image, store);
    claimed.add(name);
    const entry = byName.get(name);
    // The entry's own name when there is one: the same text, and no string kept per copy (cut from its URL).
    copies.push(copyFactsOf(image, store, entry, pinOf(image, store, pins), entry?.name ?? name));
  }
  let poolBytes = 0;
  let otherBytes = 0;
  for (const entry of listing.images) {
    poolBytes += entryBytes(entry);
    if (!claimed.has(entry.name)) otherBytes += entryBytes(entry);
  }
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
