import type { RbdDiffSummary } from '../../rbd/rbd-diff-stream.js';
import type { ExpectedHash, VerifyVerdict } from './rbd-direct-plan.js';

// How the direct transfer proves a copy it made itself, without reading it back (docs/copy.md, "Verification"): the
// bytes are hashed in offset order as they are copied (by the librbd process, or by ferry on their way into
// import-diff), and a cheap look at the target shows it holds what was written. Pure: write-with-*.ts gather the
// facts, from either data path.

/** What the target cluster says about the temporary image once every write succeeded (import-diff exited 0). */
export interface StreamedTargetFacts {
  /** Size of TEMP@snap; undefined when the snapshot does not exist. */
  readonly snapshotSize: number | undefined;
  /** The objects that exist in the snapshot (`rbd diff --whole-object TEMP@snap`, or librbd's diff_iterate). */
  readonly extents: readonly { readonly offset: number; readonly length: number }[];
}

export type StreamVerdict = VerifyVerdict | { readonly kind: 'read-back'; readonly reason: string };

/**
 * The stream's hash against Glance's, then the target: the snapshot `snapshot` exists with the stream's size, every
 * object the stream put a non-zero byte into exists, and no object exists that the stream did not write (the image
 * was created empty by this run, and the create is the "who writes" decision). A stream whose extents were not in
 * increasing order could not be hashed in one pass: read the copy back instead.
 */
export function judgeStreamedCopy(expected: ExpectedHash, stream: RbdDiffSummary, glanceSize: number | null, objectSize: number,
  snapshot: string, target: StreamedTargetFacts): StreamVerdict {
  if (!stream.ordered || stream.digest === undefined) return { kind: 'read-back', reason: 'the diff stream\'s extents were not in increasing order' };
  if (stream.fromSnapshot !== undefined) return mismatch(`the stream is a diff from snapshot ${stream.fromSnapshot}, not a whole image`);
  if (stream.toSnapshot !== snapshot) return mismatch(`the stream ends at snapshot ${stream.toSnapshot ?? '(none)'}, expected ${snapshot}`);
  if (glanceSize !== null && stream.size !== glanceSize) return mismatch(`the stream's image is ${stream.size} bytes, Glance says ${glanceSize}`);
  if (stream.digest !== expected.value) {
    return mismatch(`${expected.algorithm} of the streamed bytes is ${stream.digest}, Glance's ${expected.field} is ${expected.value}`);
  }
  if (target.snapshotSize === undefined) return mismatch(`the target has no snapshot ${snapshot} after the copy`);
  if (target.snapshotSize !== stream.size) return mismatch(`the target's snapshot is ${target.snapshotSize} bytes, the stream's image ${stream.size}`);
  const present = objectsOf(target.extents, objectSize);
  const missing = [...stream.dataObjects].filter((index) => !present.has(index));
  if (missing.length > 0) return mismatch(`the target lacks ${missing.length} object(s) the stream wrote data to (first: #${Math.min(...missing)})`);
  const foreign = [...present].filter((index) => !stream.writtenObjects.has(index));
  if (foreign.length > 0) return mismatch(`the target holds ${foreign.length} object(s) the stream never wrote (first: #${Math.min(...foreign)})`);
  return { kind: 'match' };
}

/** Object indexes covered by whole-object extents. */
export function objectsOf(extents: StreamedTargetFacts['extents'], objectSize: number): Set<number> {
  const indexes = new Set<number>();
  for (const { offset, length } of extents) {
    if (length <= 0) continue;
    for (let index = Math.floor(offset / objectSize); index <= Math.floor((offset + length - 1) / objectSize); index += 1) indexes.add(index);
  }
  return indexes;
}

function mismatch(reason: string): VerifyVerdict {
  return { kind: 'mismatch', reason };
}
