import type { RbdImageInfo, RbdSnapshotInfo } from '../../rbd/rbd-image-commands.js';
import type { SnapshotReadBack } from '../../rbd/rbd-streams.js';
import type { ExpectedHash, VerifyVerdict } from './rbd-direct-plan.js';
import { objectsOf, type StreamedTargetFacts } from './rbd-stream-verify.js';

// How a copy ferry did not stream in this run (an image found under the final or the temporary name, carrying the
// mark) is proven before it is used: its shape and identity, then its snapshot read back whole. Pure:
// prove-found-copy.ts gathers the facts.

/** Which image and which snapshot were proven: checked again after the rename, before the location is registered. */
export interface RbdCopyIdentity {
  /** The image's id (a rename keeps it; no two images of a pool share one). */
  readonly imageId: string;
  /** The snapshot's id (a snapshot made again under the same name gets a new one). */
  readonly snapshotId: number;
}

/** What the target cluster says about the found image, before its bytes are read. */
export interface FoundCopyFacts {
  /** `rbd info NAME`; undefined: no image of that name. */
  readonly image: RbdImageInfo | undefined;
  /** `rbd snap ls NAME`; undefined: no image of that name. */
  readonly snapshots: readonly RbdSnapshotInfo[] | undefined;
  /** `rbd diff --whole-object NAME@snap`: the objects of the snapshot; undefined: no such image or snapshot. */
  readonly extents: StreamedTargetFacts['extents'] | undefined;
}

export type FoundCopyShape =
  /** Nothing (or no snapshot) under the name by now: it was renamed or removed meanwhile. */
  | { readonly kind: 'gone' }
  | { readonly kind: 'unproven'; readonly reason: string }
  /** Worth reading back: these are the image and snapshot that will be read, and its objects. */
  | { readonly kind: 'readable'; readonly identity: RbdCopyIdentity; readonly objectSize: number; readonly present: ReadonlySet<number> };

/**
 * The found image before its bytes: an image of its own (a clone's unwritten bytes live in its parent, which is not
 * proven and can change), with the snapshot `snapshot` protected (nova clones only from a protected snapshot) and of
 * Glance's size (`glanceSize` null: Glance does not say; the read-back's length is then not compared either).
 */
export function judgeFoundShape(facts: FoundCopyFacts, glanceSize: number | null, snapshot: string): FoundCopyShape {
  const { image, snapshots, extents } = facts;
  if (image === undefined || snapshots === undefined) return { kind: 'gone' };
  if (image.id === undefined) return unproven('rbd info names no image id');
  if (image.hasParent) return unproven('it is a clone: its bytes live in its parent image, which is not proven');
  const snap = snapshots.find((candidate) => candidate.name === snapshot);
  if (snap === undefined) return unproven(`it has no snapshot ${snapshot}`);
  if (!snap.protected) return unproven(`its snapshot ${snapshot} is not protected`);
  if (glanceSize !== null && snap.size !== glanceSize) return unproven(`its snapshot is ${snap.size} bytes, Glance says the image has ${glanceSize}`);
  if (extents === undefined) return { kind: 'gone' };
  if (!Number.isSafeInteger(image.objectSize) || image.objectSize <= 0) return unproven(`rbd info gives object size ${image.objectSize}`);
  return { kind: 'readable', identity: { imageId: image.id, snapshotId: snap.id }, objectSize: image.objectSize,
    present: objectsOf(extents, image.objectSize) };
}

/**
 * The snapshot read back whole (what a clone reads): as many bytes as Glance's size, hashing to Glance's hash, and the
 * objects it read data from are exactly the objects the snapshot has. ferry writes only non-zero blocks, so its copy has
 * no object holding zeros alone and none missing where data was read.
 */
export function judgeFoundBytes(expected: ExpectedHash, readBack: SnapshotReadBack, glanceSize: number | null,
  present: ReadonlySet<number>): VerifyVerdict {
  if (glanceSize !== null && readBack.bytes !== glanceSize) {
    return mismatch(`read ${readBack.bytes} bytes back, Glance says the image has ${glanceSize}`);
  }
  if (readBack.digest.toLowerCase() !== expected.value) {
    return mismatch(`${expected.algorithm} of its bytes is ${readBack.digest}, Glance's ${expected.field} is ${expected.value}`);
  }
  const missing = [...readBack.dataObjects].filter((index) => !present.has(index));
  if (missing.length > 0) return mismatch(`data was read from ${missing.length} object(s) its snapshot does not list (first: #${Math.min(...missing)})`);
  const zeroOnly = [...present].filter((index) => !readBack.dataObjects.has(index));
  if (zeroOnly.length > 0) return mismatch(`its snapshot lists ${zeroOnly.length} object(s) holding zeros only, which ferry never writes (first: #${Math.min(...zeroOnly)})`);
  return { kind: 'match' };
}

/** The image under a name now is the one proven, with the same snapshot. */
export function sameIdentity(proven: RbdCopyIdentity, now: { readonly imageId: string | undefined; readonly snapshotId: number | undefined }): boolean {
  return now.imageId === proven.imageId && now.snapshotId === proven.snapshotId;
}

function unproven(reason: string): FoundCopyShape {
  return { kind: 'unproven', reason };
}

function mismatch(reason: string): VerifyVerdict {
  return { kind: 'mismatch', reason };
}
