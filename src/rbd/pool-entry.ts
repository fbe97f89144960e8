// One entry of python/rbd_store_copies.py's answer about a pool, as ferry holds it (parsed by store-copy-listing.ts,
// or by fit-pool-entry.ts on a fleet's hot path).

/** An image cloned from a copy's snapshot: an instance's disk, in any pool of the cluster (its trash included). */
export interface CopyClone {
  readonly pool: string;
  readonly namespace: string;
  readonly image: string;
  readonly id: string;
  readonly trash: boolean;
  /** The clone's create_timestamp: when nova cloned it (a boot at this site); undefined when it could not be read. */
  readonly createdMs: number | undefined;
}

/**
 * One RBD image of the pool (a Glance copy is named by its image id and has the snapshot `snap`). Its modify_timestamp
 * is checked in the answer but not held: no decision reads it (writes to a copy are not uses), and a fleet holds 100 000.
 */
export interface PoolImage {
  readonly kind: 'image';
  readonly name: string;
  readonly id: string;
  readonly sizeBytes: number;
  /** Allocated bytes by the object map (fast-diff); undefined without it: then the size is what counts. */
  readonly usedBytes: number | undefined;
  readonly createdMs: number | undefined;
  /** Updated by reads (also through a clone) of a client that may write the pool, once per rbd_atime_update_interval. */
  readonly accessedMs: number | undefined;
  /** The copy snapshot's protection; undefined when the image has no such snapshot (not a Glance copy). */
  readonly protected: boolean | undefined;
  /** Clones of the snapshot, trash included. */
  readonly clones: readonly CopyClone[];
  /** image-meta keys starting with `ferry.`. */
  readonly meta: Readonly<Record<string, string>>;
  /** Set for an image in the pool's trash: when it was moved there. */
  readonly trashedMs: number | undefined;
}

/** An image that could not be read (caps, a failing OSD), or went away while listed. */
export type PoolImageProblem =
  /** Not there by its name; `trashedMs` when the pool's trash holds an image of that name (`check` only). */
  | { readonly kind: 'absent'; readonly name: string; readonly trashedMs?: number | undefined }
  | { readonly kind: 'unreadable'; readonly name: string; readonly message: string; readonly errno: number };

export type PoolEntry = PoolImage | PoolImageProblem;
