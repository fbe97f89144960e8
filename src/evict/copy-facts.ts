import type { GlanceImage } from '../glance/image.js';
import { parseRbdLocation } from '../rbd/parse-rbd-location.js';
import type { PoolEntry } from '../rbd/store-copy-listing.js';
import { fenceOf, type EvictFence } from './evict-fence.js';

/**
 * What ferry knows of one image's copy in one store: Glance's side (status, how many stores hold it, an import) and
 * Ceph's (its bytes, its clones trash included, its timestamps, an eviction's fence). Built once, by copyFactsOf, from
 * the image and the pool's listing; every decision of the eviction reads only this.
 */
export interface CopyFacts {
  readonly imageId: string;
  readonly imageName: string | null;
  readonly store: string;
  /** Glance's status: only an active image's copy can be removed. */
  readonly status: string;
  /** The RBD image the store's location names (the image id for glance_store's and ferry's copies). */
  readonly rbdImage: string;
  /** Where the pool's listing stands on it: there, not there, or not readable (why). */
  readonly inPool: 'yes' | 'absent' | { readonly unreadable: string };
  /** Bytes the copy takes in the pool (allocated, by the object map; else its size); 0 when it is not in the pool. */
  readonly bytes: number;
  /** Its clones (instances' disks at this site), trash included. */
  readonly clones: number;
  readonly trashedClones: number;
  /** The newest clone's creation: the last boot from this copy among the instances that still exist. */
  readonly newestCloneMs: number | undefined;
  /** Every clone's creation that could be read: boots at this site whose instances still exist. */
  readonly cloneTimesMs: readonly number[];
  /** When the copy was written into the pool (its create_timestamp). */
  readonly copiedMs: number | undefined;
  /** access_timestamp: moved by reads (also through a clone) of a client that may write the pool, at most once a minute. */
  readonly accessedMs: number | undefined;
  /** The newest of the three: the usage signal eviction orders by (docs/evict.md, "Last used"). */
  readonly lastUsedMs: number | undefined;
  /** How many stores hold the image (Glance's `stores`). */
  readonly locations: number;
  /** An import holds the image's lock or writes it somewhere: removing a location now could break it. */
  readonly importing: boolean;
  /** Why the copy is pinned in this store, if it is. */
  readonly pin: string | undefined;
  /** An eviction's fence on the copy (image-meta), if any. */
  readonly fence: EvictFence | undefined;
}

const NO_TIMES: readonly number[] = Object.freeze([]);

/** The newer of two usage timestamps (undefined when neither is known), with no array: a fleet's plan asks it for every copy. */
const newestOf = (a: number | undefined, b: number | undefined): number | undefined =>
  (a === undefined ? b : b === undefined ? a : Number.isNaN(a) || Number.isNaN(b) ? Number.NaN : Math.max(a, b));

/** The RBD image name of the image's location in `store` (glance_store writes the image id; a location may say more). */
export function rbdImageOf(image: Pick<GlanceImage, 'id' | 'locations'>, store: string): string {
  const locations = image.locations;
  if (locations === undefined) return image.id;
  for (const location of locations) {
    if (location.store === store) return rbdImageNameOf(location.url) ?? image.id;
  }
  return image.id;
}

/**
 * The image part of an rbd snapshot location, as parseRbdLocation reads it, or undefined where it finds none. A fleet's
 * plan asks this once per (image, store) pair (100 000 at 10 000 images): a URL with no `%` (glance_store's and
 * ferry's) is cut where its three slashes are, with no arrays or objects made; any other goes to parseRbdLocation.
 */
export function rbdImageNameOf(url: string): string | undefined {
  if (url.startsWith('rbd://') && !url.includes('%')) {
    const pool = url.indexOf('/', 6);
    const image = pool < 0 ? -1 : url.indexOf('/', pool + 1);
    const snapshot = image < 0 ? -1 : url.indexOf('/', image + 1);
    // Four non-empty pieces: fsid/pool/image/snapshot, and no fifth.
    if (pool > 6 && image > pool + 1 && snapshot > image + 1 && snapshot < url.length - 1 && url.indexOf('/', snapshot + 1) < 0) {
      return url.slice(image + 1, snapshot);
    }
  }
  const parsed = parseRbdLocation(url);
  return parsed.ok ? parsed.location.image : undefined;
}

export type CopyImageView = Pick<GlanceImage, 'id' | 'name' | 'status' | 'stores' | 'importTask' | 'importingTo' | 'locations'>;

/**
 * Pure: the facts of `image`'s copy in `store`, from the pool's entry for it (undefined: the listing has none). One
 * object literal of one shape either way: a fleet's plan makes one per (image, store) pair (bench/fleet-plan.ts).
 * `rbdImage`: the caller's rbdImageOf(image, store), when it has it already (storeUsageOf joins by it).
 */
export function copyFactsOf(image: CopyImageView, store: string, entry: PoolEntry | undefined, pin: string | undefined,
  rbdImage: string = rbdImageOf(image, store)): CopyFacts {
  const copy = entry?.kind === 'image' ? entry : undefined;
  let cloneTimesMs = NO_TIMES;
  let newestCloneMs: number | undefined;
  let trashedClones = 0;
  if (copy !== undefined && copy.clones.length > 0) {
    const times: number[] = [];
    for (const clone of copy.clones) {
      if (clone.trash) trashedClones += 1;
      if (clone.createdMs === undefined) continue;
      times.push(clone.createdMs);
      if (newestCloneMs === undefined || clone.createdMs > newestCloneMs) newestCloneMs = clone.createdMs;
    }
    cloneTimesMs = Object.freeze(times);
  }
  return Object.freeze({
    imageId: image.id, imageName: image.name, store, status: image.status, rbdImage,
    locations: image.stores.length, importing: image.importTask !== undefined || image.importingTo.length > 0, pin,
    inPool: copy !== undefined ? 'yes' as const : entry?.kind === 'unreadable' ? { unreadable: entry.message } : 'absent' as const,
    bytes: copy === undefined ? 0 : copy.usedBytes ?? copy.sizeBytes,
    clones: copy?.clones.length ?? 0, trashedClones, newestCloneMs, cloneTimesMs,
    copiedMs: copy?.createdMs, accessedMs: copy?.accessedMs,
    lastUsedMs: copy === undefined ? undefined : newestOf(newestOf(newestCloneMs, copy.createdMs), copy.accessedMs),
    fence: copy === undefined ? undefined : fenceOf(copy.meta),
  });
}
