import type { CephCliOptions } from '../../rbd/ceph-cli.js';
import type { CephCluster } from '../../config/ceph-cluster.js';
import { listRbdObjectExtents, listRbdSnapshots, readRbdImageInfo, type RbdImageRef } from '../../rbd/rbd-image-commands.js';
import { hashRbdSnapshot, RbdStreamError } from '../../rbd/rbd-streams.js';
import { judgeFoundBytes, judgeFoundShape, sameIdentity, type RbdCopyIdentity } from './judge-found-copy.js';
import { readBackError } from './rbd-direct-errors.js';
import type { ExpectedHash } from './rbd-direct-plan.js';
import { SNAPSHOT, type StoreCopyEnvironment } from './store-copy-plan.js';

export type FoundCopyProof =
  | { readonly kind: 'proven'; readonly identity: RbdCopyIdentity; readonly verifyMs: number }
  | { readonly kind: 'unproven'; readonly reason: string }
  /** Renamed or removed while ferry looked (another writer's commit, a removal): look at the names again. */
  | { readonly kind: 'gone' };

type ProofEnvironment = Pick<StoreCopyEnvironment, 'imageId' | 'imageSize' | 'signal' | 'clock' | 'logger' | 'progress'>;

/**
 * Prove an image found under `ref` that carries the mark: its shape and identity (judge-found-copy.ts), then its
 * snapshot read back whole (`rbd export NAME@snap -` through the hash: the bytes a clone reads) and judged against
 * Glance's hash and size and against its own object set. Costs one read of the image, only when there is such an image.
 * Its identity is checked again after the rename, before the PATCH (commit-copy.ts).
 */
export async function proveFoundCopy(env: ProofEnvironment, where: { readonly store: string; readonly target: CephCluster }, cli: CephCliOptions,
  ref: RbdImageRef, expected: ExpectedHash): Promise<FoundCopyProof> {
  const { store } = where;
  const snap = { ...ref, snapshot: SNAPSHOT };
  const [image, snapshots, extents] = await Promise.all([readRbdImageInfo(cli, ref), listRbdSnapshots(cli, ref), listRbdObjectExtents(cli, snap)]);
  const shape = judgeFoundShape({ image, snapshots, extents }, env.imageSize, SNAPSHOT);
  if (shape.kind !== 'readable') return shape;
  const spec = `${ref.pool}/${ref.image}@${SNAPSHOT}`;
  env.logger.info({ imageId: env.imageId, store, rbdImage: spec }, 'proving a copy found with the verified mark by reading it back');
  env.progress('copying', [store], `proving ${spec} by reading it back`);
  const started = env.clock.now();
  let readBack;
  try {
    readBack = await hashRbdSnapshot(cli, snap, expected.algorithm, env.signal, shape.objectSize);
  } catch (error) {
    if (!(error instanceof RbdStreamError)) throw error;
    if ((await readRbdImageInfo(cli, ref)) === undefined) return { kind: 'gone' };
    throw readBackError(env.imageId, store, spec, where.target, error);
  }
  const verdict = judgeFoundBytes(expected, readBack, env.imageSize, shape.present);
  if (verdict.kind === 'mismatch') return { kind: 'unproven', reason: verdict.reason };
  return { kind: 'proven', identity: shape.identity, verifyMs: env.clock.now() - started };
}

/**
 * Whether `ref` names the proven image and its snapshot still: `rbd info` (the name's image id) beside `rbd snap ls
 * --image-id` (that image's snapshot, by id), so that an image renamed into the name is caught.
 */
export async function holdsProvenCopy(cli: CephCliOptions, ref: RbdImageRef, proven: RbdCopyIdentity): Promise<boolean> {
  const [image, snapshots] = await Promise.all([readRbdImageInfo(cli, ref), listRbdSnapshots(cli, { pool: ref.pool, imageId: proven.imageId })]);
  const snapshot = snapshots?.find((candidate) => candidate.name === SNAPSHOT);
  return snapshot?.protected === true && sameIdentity(proven, { imageId: image?.id, snapshotId: snapshot.id });
}

