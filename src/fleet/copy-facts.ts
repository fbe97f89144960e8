import type { GlanceImage } from '../glance/image.js';
import { parseRbdLocation } from '../rbd/parse-rbd-location.js';
import type { PoolEntry } from '../rbd/store-copy-listing.js';
import { fenceOf, type EvictFence } from './copy-fence.js';

/**
 * What ferry knows of one image's copy in one store: Glance's side (status, how many stores hold it, an import) and
 * Ceph's (its bytes, its clones trash included, its timestamps, an eviction's fence). Built once, by copyFactsOf, from
 * the image and the pool's listing; every decision of the eviction reads only this.
 */
export interface CopyFacts {
  readonly imageId: string;
  readonly imageName: string | null;
  /** The image's owning project (Glance's `owner`; null: none): whether ferry may remove the copy (project-owners.ts). */
  readonly owner: string | null;
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

/**
 * The RBD image name of the image's location in `store` (glance_store writes the image id; a location may say more).
 * `at`: the store's index in `image.stores`, where Glance's locations usually are in the same order: looked at first.
 */
export function rbdImageOf(image: Pick<GlanceImage, 'id' | 'locations'>, store: string, at = -1): string {
  const locations = image.locations;
  if (locations === undefined) return image.id;
  const likely = locations[at];
  if (likely?.store === store) return rbdImageAt(likely.url, image.id);
  for (const location of locations) {
    if (location.store === store) return rbdImageAt(location.url, image.id);
  }
  return image.id;
}

const rbdImageAt = (url: string, id: string): string => (namesImageItself(url, id) ? id : rbdImageNameOf(url) ?? id);

/**
 * Whether `url` is `rbd://FSID/POOL/ID/SNAPSHOT` with this image's own id and no `%`: what glance_store and ferry write,
 * and what rbdImageNameOf would cut out as `id`. Checked in place, so that the join keeps the id's own string (its hash
 * known already) instead of a new one per (image, store) pair.
 */
function namesImageItself(url: string, id: string): boolean {
  if (!url.startsWith('rbd://')) return false;
  // Slashes found forward (lastIndexOf is a slow call in V8): fsid/pool/image/snapshot, four non-empty pieces, no fifth.
  const pool = url.indexOf('/', 6);
  const image = pool < 0 ? -1 : url.indexOf('/', pool + 1);
  const snapshot = image < 0 ? -1 : url.indexOf('/', image + 1);
  return pool > 6 && image > pool + 1 && snapshot === image + 1 + id.length && snapshot < url.length - 1
    && url.indexOf('/', snapshot + 1) < 0 && url.startsWith(id, image + 1) && !url.includes('%');
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

export type CopyImageView = Pick<GlanceImage, 'id' | 'name' | 'owner' | 'status' | 'stores' | 'importTask' | 'importingTo' | 'locations'>;

/**
 * Pure: the facts of `image`'s copy in `store`, from the pool's entry for it (undefined: the listing has none).
 * `rbdImage`: the caller's rbdImageOf(image, store), when it has it already (storeUsageOf joins by it).
 */
export function copyFactsOf(image: CopyImageView, store: string, entry: PoolEntry | undefined, pin: string | undefined,
  rbdImage: string = rbdImageOf(image, store)): CopyFacts {
  return new PoolCopyFacts(image, store, entry, pin, rbdImage);
}

/** The same facts, pinned for `pin` (a usage rule's keep): the copy itself is left as it is. */
export function withPin(copy: CopyFacts, pin: string): CopyFacts {
  return copy instanceof PoolCopyFacts ? copy.withPin(pin) : Object.freeze({ ...copy, pin });
}

/**
 * CopyFacts as a view over the image and the pool's entry, which the caller holds anyway: a fleet's plan makes one per
 * (image, store) pair (100 000 at 10 000 images, bench/fleet-plan.ts), and a copy of the 19 facts in each (~300 bytes,
 * four timestamps boxed) was a third of the sync plan's heap and most of its collector's work. Each fact is read
 * through from them when asked (a few loads each). toJSON gives the facts as a plain object.
 */
class PoolCopyFacts implements CopyFacts {
  /** Worked out once: the plan reads it for every copy, and a number read through a getter is a new box each time. */
  readonly lastUsedMs: number | undefined;
  /**
   * Held, not read through: a fleet's plan reads it in every pass over a store's copies (sorts, joins, tallies), and
   * through the image it is a load from an object scattered in the listing's 45 MB for each copy each time.
   */
  readonly imageId: string;
  readonly #image: CopyImageView;
  readonly #entry: PoolEntry | undefined;
  /** The pool's entry when it is an image (the copy is there): read by most facts, so found once. */
  readonly #copy: PoolImageEntry | undefined;

  constructor(image: CopyImageView, readonly store: string, entry: PoolEntry | undefined, readonly pin: string | undefined,
    readonly rbdImage: string) {
    this.#image = image;
    this.imageId = image.id;
    this.#entry = entry;
    const copy = entry?.kind === 'image' ? entry : undefined;
    this.#copy = copy;
    this.lastUsedMs = copy === undefined ? undefined : newestOf(newestOf(newestCloneOf(copy), copy.createdMs), copy.accessedMs);
  }


  get bytes(): number {
    const copy = this.#copy;
    return copy === undefined ? 0 : copy.usedBytes ?? copy.sizeBytes;
  }

  withPin(pin: string): CopyFacts {
    return new PoolCopyFacts(this.#image, this.store, this.#entry, pin, this.rbdImage);
  }

  get imageName(): string | null { return this.#image.name; }
  get owner(): string | null { return this.#image.owner; }
  get status(): string { return this.#image.status; }
  get locations(): number { return this.#image.stores.length; }
  get importing(): boolean { return this.#image.importTask !== undefined || this.#image.importingTo.length > 0; }
  get inPool(): CopyFacts['inPool'] {
    return this.#copy !== undefined ? 'yes' : this.#entry?.kind === 'unreadable' ? { unreadable: this.#entry.message } : 'absent';
  }
  get clones(): number { return this.#copy?.clones.length ?? 0; }
  get trashedClones(): number {
    let trashed = 0;
    for (const clone of this.#copy?.clones ?? NO_CLONES) if (clone.trash) trashed += 1;
    return trashed;
  }
  get newestCloneMs(): number | undefined { return this.#copy === undefined ? undefined : newestCloneOf(this.#copy); }
  get cloneTimesMs(): readonly number[] {
    const clones = this.#copy?.clones ?? NO_CLONES;
    if (clones.length === 0) return NO_TIMES;
    const times: number[] = [];
    for (const clone of clones) if (clone.createdMs !== undefined) times.push(clone.createdMs);
    return Object.freeze(times);
  }
  get copiedMs(): number | undefined { return this.#copy?.createdMs; }
  get accessedMs(): number | undefined { return this.#copy?.accessedMs; }
  get fence(): EvictFence | undefined { return this.#copy === undefined ? undefined : fenceOf(this.#copy.meta); }

  toJSON(): Omit<CopyFacts, never> {
    return {
      imageId: this.imageId, imageName: this.imageName, owner: this.owner, store: this.store, status: this.status, rbdImage: this.rbdImage,
      locations: this.locations, importing: this.importing, pin: this.pin, inPool: this.inPool, bytes: this.bytes, clones: this.clones,
      trashedClones: this.trashedClones, newestCloneMs: this.newestCloneMs, cloneTimesMs: this.cloneTimesMs, copiedMs: this.copiedMs,
      accessedMs: this.accessedMs, lastUsedMs: this.lastUsedMs, fence: this.fence,
    };
  }
}

type PoolImageEntry = Extract<PoolEntry, { kind: 'image' }>;
type CopyClone = PoolImageEntry['clones'][number];
const NO_CLONES: PoolImageEntry['clones'] = Object.freeze([]);

/** The newest clone's creation time (undefined when no clone's is known). */
function newestCloneOf(copy: PoolImageEntry): number | undefined {
  let newest: number | undefined;
  // Indexed: called for each of a fleet's 100 000 copies, most of them before the optimizing compiler has it, where
  // an iterator's result is an object per step.
  for (let i = 0; i < copy.clones.length; i++) {
    const clone = copy.clones[i] as CopyClone;
    if (clone.createdMs !== undefined && (newest === undefined || clone.createdMs > newest)) newest = clone.createdMs;
  }
  return newest;
}
