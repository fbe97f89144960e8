import { hostname } from 'node:os';
import { isFerryError } from '../../errors/ferry-error.js';
import { cephCliFor, type CephCliOptions } from '../../rbd/ceph-cli.js';
import { workerHash } from '../../rbd/hash-sink.js';
import { listRbdObjectExtents, listRbdSnapshots, protectRbdSnapshot, readRbdImageInfo, setRbdImageMeta, type RbdImageRef } from '../../rbd/rbd-image-commands.js';
import { RbdDiffFormatError, RbdDiffHasher, type RbdDiffSummary } from '../../rbd/rbd-diff-stream.js';
import { hashRbdSnapshot, pipeRbdDiff, RbdStreamError } from '../../rbd/rbd-streams.js';
import { pacedInspector } from '../../rbd/paced-inspector.js';
import { commitCopy } from './commit-copy.js';
import type { RbdCopyIdentity } from './judge-found-copy.js';
import { hashMismatchError, malformedStreamError, sourceLostError, targetWriteError } from './rbd-direct-errors.js';
import { judgeReadBack, VERIFIED_META_KEY, verifiedMark, type VerifyVerdict } from './rbd-direct-plan.js';
import { judgeStreamedCopy } from './rbd-stream-verify.js';
import { removeWrittenImage } from './remove-written-image.js';
import { SNAPSHOT, WRITER_META_KEY, type Claimed, type StepEnd, type StoreCopyEnvironment, type StoreCopyPlan } from './store-copy-plan.js';

/** The rbd CLI: export-diff | ferry (the stream hashed on its way) | import-diff, then the target looked at. */
export async function writeWithCli(env: StoreCopyEnvironment, claim: Claimed): Promise<StepEnd> {
  const { plan, cli, temp, final } = claim;
  const { source } = plan;
  const sourceCli = cephCliFor(source.cluster, { runner: plan.runner });
  let protecting: Promise<Error | undefined> | undefined;
  let hasher: RbdDiffHasher | undefined;
  try {
    await setRbdImageMeta(cli, temp, WRITER_META_KEY, `${hostname()}:${process.pid}`);
    env.progress('copying', [plan.store], `rbd export-diff ${source.store} | rbd import-diff ${plan.store}`);
    hasher = new RbdDiffHasher(workerHash(plan.expected.algorithm), plan.shape.objectSize);
    const bytes = await pipeRbdDiff(sourceCli, source.location, cli, temp, env.signal,
      plan.bytesPerSecond === undefined ? hasher : pacedInspector(hasher, plan.bytesPerSecond));
    env.progress('copying', [plan.store], 'verifying the copy');
    const started = env.clock.now();
    const stream = await hasher.finish();
    // Protect while the target is looked at: it changes no byte, and a copy that fails the check is removed anyway.
    protecting = protectRbdSnapshot(cli, temp, SNAPSHOT).then(() => undefined,
      (error: unknown) => (error instanceof Error ? error : new Error(String(error))));
    const { verdict, identity } = await verifyStreamed(env, plan, cli, temp, stream);
    const verifyMs = env.clock.now() - started;
    const protectError = await protecting;
    if (verdict.kind === 'mismatch') {
      await removeWrittenImage(env, cli, temp);
      return { kind: 'refused', error: hashMismatchError(env.imageId, plan.store, verdict.reason, plan.expected) };
    }
    if (protectError !== undefined) throw protectError;
    if (identity === undefined) {
      env.logger.warn({ imageId: env.imageId, store: plan.store, rbdImage: `${temp.pool}/${temp.image}` },
        'rbd names no image id or no snapshot id for the copy just verified (renamed or removed meanwhile): looking again, nothing registered');
      return { kind: 'look-again' };
    }
    // Glance is read for the last look before the rename while the mark is set.
    const reading = env.read();
    reading.catch(() => undefined);
    await setRbdImageMeta(cli, temp, VERIFIED_META_KEY, verifiedMark(plan.expected));
    return await commitCopy(env, { plan, cli, from: temp, final, bytes, verifyMs, reading, proven: identity });
  } catch (error) {
    await protecting; // settled, never rejects: the removal below must not race the protect
    if (error instanceof RbdDiffFormatError) {
      await removeWrittenImage(env, cli, temp);
      return { kind: 'refused', error: malformedStreamError(env.imageId, source, plan.store, error) };
    }
    if (error instanceof RbdStreamError) {
      await removeWrittenImage(env, cli, temp);
      return { kind: 'refused', error: error.failure.side === 'source' ? sourceLostError(env.imageId, source, plan.store, error)
        : targetWriteError(env.imageId, plan.store, plan.target, error) };
    }
    // Interrupted or cut by the deadline: remove what we wrote if we still can (a killed run leaves it to the next).
    if (isFerryError(error, 'FERRY_ABORTED')) await removeWrittenImage(env, cli, temp);
    throw error;
  } finally {
    hasher?.hash.close();
  }
}

/**
 * The streamed bytes' hash plus a cheap look at the target (rbd-stream-verify.ts); the read-back (`rbd export
 * TEMP@snap | hash`) only when the stream could not be hashed in one pass. With the image and snapshot looked at (their
 * ids, read beside the look): the final name must hold them after the rename (commit-copy.ts).
 */
async function verifyStreamed(env: StoreCopyEnvironment, plan: StoreCopyPlan, cli: CephCliOptions, temp: RbdImageRef,
  stream: RbdDiffSummary): Promise<{ verdict: VerifyVerdict; identity: RbdCopyIdentity | undefined }> {
  const snap = { ...temp, snapshot: SNAPSHOT };
  const [info, extents, snapshots] = await Promise.all([readRbdImageInfo(cli, snap), stream.ordered ? listRbdObjectExtents(cli, snap) : [],
    listRbdSnapshots(cli, temp)]);
  const snapshotId = snapshots?.find((candidate) => candidate.name === SNAPSHOT)?.id;
  const identity = info?.id !== undefined && snapshotId !== undefined ? { imageId: info.id, snapshotId } : undefined;
  const verdict = judgeStreamedCopy(plan.expected, stream, env.imageSize, plan.shape.objectSize, SNAPSHOT,
    { snapshotSize: info?.size, extents: extents ?? [] });
  if (verdict.kind !== 'read-back') return { verdict, identity };
  env.logger.info({ imageId: env.imageId, store: plan.store, why: verdict.reason }, 'verifying the direct copy by reading it back');
  const readBack = await hashRbdSnapshot(cli, snap, plan.expected.algorithm, env.signal, plan.shape.objectSize);
  return { verdict: judgeReadBack(plan.expected, readBack, env.imageSize), identity };
}
