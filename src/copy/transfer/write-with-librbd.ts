import { hostname } from 'node:os';
import type { FerryError } from '../../errors/ferry-error.js';
import { isFerryError } from '../../errors/ferry-error.js';
import { LibrbdUnavailableError, type LibrbdCopied, type LibrbdCopySession, type PreparedLibrbdCopy } from '../../rbd/librbd-copy.js';
import type { RbdImageRef } from '../../rbd/rbd-image-commands.js';
import { RbdStreamError } from '../../rbd/rbd-streams.js';
import { commitCopy } from './commit-copy.js';
import { sameIdentity, type RbdCopyIdentity } from './judge-found-copy.js';
import { hashMismatchError, sourceLostError, targetWriteError } from './rbd-direct-errors.js';
import { VERIFIED_META_KEY, verifiedMark } from './rbd-direct-plan.js';
import { judgeStreamedCopy } from './rbd-stream-verify.js';
import { removeWrittenImage } from './remove-written-image.js';
import { SNAPSHOT, WRITER_META_KEY, type Claimed, type StepEnd, type StoreCopyEnvironment } from './store-copy-plan.js';

/**
 * librbd (librbd-copy.ts): one process reads and hashes the source once and writes every claimed store's temporary
 * image, makes and protects `snap` and reports each target's objects; ferry judges each target's facts as it judges a
 * streamed copy, then the same process marks and renames it. Throws LibrbdUnavailableError (python3-rbd missing: the
 * caller copies through the CLI) after closing the process.
 */
export async function writeWithLibrbd(env: StoreCopyEnvironment, claimed: readonly Claimed[], prepared: PreparedLibrbdCopy): Promise<StepEnd[]> {
  const [first] = claimed;
  if (first === undefined) return [];
  const { source } = first.plan;
  const stores = claimed.map((claim) => claim.plan.store);
  env.progress('copying', stores, `librbd ${source.store} → ${stores.join(', ')}`);
  const session = prepared.start({
    source: { confFile: source.cluster.confFile, user: source.cluster.user, ...source.location },
    targets: claimed.map(({ plan, temp }) => ({ confFile: plan.target.confFile, user: plan.target.user, ...temp })),
    targetSnapshot: SNAPSHOT, algorithm: first.plan.expected.algorithm, objectSize: first.plan.shape.objectSize,
    writer: { key: WRITER_META_KEY, value: `${hostname()}:${process.pid}` }, signal: env.signal, bytesPerSecond: first.plan.bytesPerSecond,
  });
  const removeAll = (): Promise<unknown> => Promise.all(claimed.map(({ cli, temp }) => removeWrittenImage(env, cli, temp)));
  try {
    const copied = await session.copied;
    // Every store to its end before the process is closed: a store still renaming needs it.
    const settled = await Promise.allSettled(claimed.map((claim, index) => finishTarget(env, claim, index, copied, session)));
    const failed = settled.find((end): end is PromiseRejectedResult => end.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    return settled.map((end) => (end as PromiseFulfilledResult<StepEnd>).value);
  } catch (error) {
    await session.close();
    if (error instanceof LibrbdUnavailableError) throw error;
    if (error instanceof RbdStreamError) {
      await removeAll();
      return claimed.map(({ plan }) => ({ kind: 'refused', error: error.failure.side === 'source' ? sourceLostError(env.imageId, source, plan.store, error)
        : targetWriteError(env.imageId, plan.store, plan.target, error) }));
    }
    if (isFerryError(error, 'FERRY_ABORTED')) await removeAll();
    throw error;
  } finally {
    await session.close();
  }
}

/** One target of a librbd copy: its failure or its facts judged, then marked and committed through the same process. */
async function finishTarget(env: StoreCopyEnvironment, claim: Claimed, index: number, copied: LibrbdCopied, session: LibrbdCopySession): Promise<StepEnd> {
  const { plan, cli, temp, final } = claim;
  const facts = copied.targets[index] ?? { ok: false, failure: new RbdStreamError({ side: 'target', exitCode: null, message: 'the librbd copy reported nothing for this target' }) };
  const started = env.clock.now();
  const refuse = async (error: FerryError): Promise<StepEnd> => {
    await session.drop(index);
    await removeWrittenImage(env, cli, temp);
    return { kind: 'refused', error };
  };
  if (!facts.ok) return refuse(targetWriteError(env.imageId, plan.store, plan.target, facts.failure));
  const verdict = judgeStreamedCopy(plan.expected, copied.summary, env.imageSize, plan.shape.objectSize, SNAPSHOT, facts);
  if (verdict.kind !== 'match') return refuse(hashMismatchError(env.imageId, plan.store, verdict.reason, plan.expected));
  // Glance is read for the last look before the rename while the mark is set.
  const reading = env.read();
  reading.catch(() => undefined);
  await session.mark(index, VERIFIED_META_KEY, verifiedMark(plan.expected));
  return commitCopy(env, { plan, cli, from: temp, final, bytes: copied.dataBytes, verifyMs: env.clock.now() - started, reading,
    proven: { imageId: facts.imageId, snapshotId: facts.snapshotId },
    holder: { rename: (to) => session.rename(index, to), release: () => session.drop(index), holds: (ref, proven) => heldBy(session, index, ref, proven) } });
}

/** The final name holds the image this process wrote and its protected snapshot (asked through the same connection). */
async function heldBy(session: LibrbdCopySession, index: number, ref: RbdImageRef, proven: RbdCopyIdentity): Promise<boolean> {
  const now = await session.identify(index, ref.image);
  return now?.protected === true && sameIdentity(proven, now);
}
