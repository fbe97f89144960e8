import { hostname } from 'node:os';
import type { FerryError} from '../../errors/ferry-error.js';
import { isFerryError } from '../../errors/ferry-error.js';
import { hasStore, type GlanceImage } from '../../glance/image.js';
import type { CephCliOptions } from '../../rbd/ceph-cli.js';
import { formatRbdLocation } from '../../rbd/format-rbd-location.js';
import {
  countRbdWatchers, createRbdImage, getRbdImageMeta, listRbdObjectExtents, protectRbdSnapshot, readRbdImageInfo, readRbdNameHolder, removeRbdImage,
  renameRbdImage, setRbdImageMeta,
  type RbdImageInfo, type RbdImageRef, type RenameOutcome,
} from '../../rbd/rbd-image-commands.js';
import { workerHash } from '../../rbd/hash-sink.js';
import { RbdDiffFormatError, RbdDiffHasher, type RbdDiffSummary } from '../../rbd/rbd-diff-stream.js';
import { hashRbdSnapshot, pipeRbdDiff, RbdStreamError } from '../../rbd/rbd-streams.js';
import type { CopyJob } from '../copy-job.js';
import { hashMismatchError, malformedStreamError, sourceLostError, targetExistsError, targetWriteError } from './rbd-direct-errors.js';
import {
  glanceWritesStore, judgeCommitted, judgeReadBack, judgeTemporary, temporaryImageName, VERIFIED_META_KEY, verifiedMark,
  type ExpectedHash, type RbdCluster, type RbdSourceCandidate, type VerifyVerdict,
} from './rbd-direct-plan.js';
import { judgeStreamedCopy } from './rbd-stream-verify.js';
import { LibrbdUnavailableError, prepareLibrbdCopy, type LibrbdCopied, type LibrbdCopySession, type PreparedLibrbdCopy } from '../../rbd/librbd-copy.js';

/** One store's direct copy, from the source chosen for the batch. */
export interface StoreCopyPlan {
  readonly store: string;
  readonly target: RbdCluster;
  /** The target store's pool (Glance's rbd store `pool`), not the source location's: site-c writes images-c. */
  readonly targetPool: string;
  /** Awaited only to register: asked while the copy runs. */
  readonly targetFsid: Promise<string>;
  readonly source: RbdSourceCandidate;
  readonly shape: RbdImageInfo;
  readonly expected: ExpectedHash;
  /** An expired Glance lock the round decided to ignore: it writes nothing. */
  readonly ignoredLock: string | undefined;
  readonly quietMs: number;
  readonly pollMs: number;
  /**
   * Runs one location PATCH of this image at a time. Glance's PATCH reads the image, appends and saves: two at once
   * (one image's stores copied in parallel) lose one of the locations (seen on Glance 25: both answered 200, `stores`
   * kept one).
   */
  readonly oneLocationWrite: <T>(work: () => Promise<T>) => Promise<T>;
  readonly runner?: CephCliOptions['runner'];
}

export type StoreCopyEnd =
  | { readonly kind: 'copied'; readonly image: GlanceImage; readonly bytes: number; readonly verifyMs: number }
  /** Glance (or another ferry) is bringing the store, or it is there now: the engine looks again and joins. */
  | { readonly kind: 'busy' | 'present'; readonly image: GlanceImage }
  | { readonly kind: 'refused'; readonly error: FerryError };

const SNAPSHOT = 'snap';
const WRITER_META_KEY = 'ferry.writer';

/** A store whose temporary image this run created (the "who writes" decision): its bytes are ours to write. */
interface Claimed {
  readonly kind: 'claimed';
  readonly plan: StoreCopyPlan;
  readonly cli: CephCliOptions;
  readonly temp: RbdImageRef;
  readonly final: RbdImageRef;
}

/**
 * Bring one image's stores from one source: each store is claimed (below); the claimed ones are written together —
 * through librbd the source is read and hashed once and every target written (the stores of one image at once, issue
 * 19 item 5) — then each is checked, marked verified, renamed (the commit; fails if the name exists) and its location
 * PATCHed. Whatever fails before the PATCH succeeded removes what this run wrote. Ends in the plans' order.
 */
export async function copyStores<Skip extends string>(job: CopyJob<Skip>, plans: readonly StoreCopyPlan[]): Promise<(readonly [string, StoreCopyEnd])[]> {
  // The librbd process starts while the stores are claimed (its python and binding load beside the rbd commands).
  const prepared = librbdWanted() ? prepareLibrbdCopy() : undefined;
  try {
    const claims = await Promise.all(plans.map((plan) => claimStore(job, plan)));
    const claimed = claims.filter((claim): claim is Claimed => claim.kind === 'claimed');
    const written = claimed.length === 0 ? [] : await writeClaimed(job, claimed, prepared);
    return plans.map((plan, index) => {
      const claim = claims[index] ?? unreachable(plan.store);
      return [plan.store, claim.kind === 'claimed' ? written[claimed.indexOf(claim)] ?? unreachable(plan.store) : claim] as const;
    });
  } finally {
    await prepared?.discard(); // a no-op once it was given the job
  }
}

async function copyStore<Skip extends string>(job: CopyJob<Skip>, plan: StoreCopyPlan): Promise<StoreCopyEnd> {
  const [pair] = await copyStores(job, [plan]);
  return pair?.[1] ?? unreachable(plan.store);
}

function unreachable(store: string): never {
  throw new Error(`rbd-copy-store: no end for store ${store}`);
}

/**
 * Claim one store: (registered by now?) → create the temporary image, and at once look for the final name: a committed
 * copy of an earlier run is registered; a temporary image that exists already is another writer's (waited for), a
 * leftover (removed) or verified (resumed). Only a created temporary image is claimed for writing.
 */
async function claimStore<Skip extends string>(job: CopyJob<Skip>, plan: StoreCopyPlan): Promise<StoreCopyEnd | Claimed> {
  const imageId = job.state.image.id;
  const signal = job.deadline.signal;
  const cli: CephCliOptions = { confFile: plan.target.confFile, ...(plan.target.user ? { user: plan.target.user } : {}), signal,
    ...(plan.runner ? { runner: plan.runner } : {}) };
  const pool = plan.targetPool;
  const temp: RbdImageRef = { pool, image: temporaryImageName(imageId) };
  const final: RbdImageRef = { pool, image: imageId };
  // The temporary name was held by a half-created image at the last look (below).
  let halfCreatedSeen = false;

  for (;;) {
    const image = await job.read();
    const blocked = blockedBy(image, plan);
    if (blocked !== undefined) return { kind: blocked, image };
    // Most runs find neither name: the create (the atomic "who writes" decision) is tried at once, beside the look at
    // the final name — each rbd command costs a process start and a cluster connection (~0.05–0.2 s).
    const [committed, created] = await Promise.all([readRbdImageInfo(cli, final), createRbdImage(cli, temp, plan.shape)]);
    if (committed !== undefined) {
      if (created === 'created') await removeQuietly(job, cli, temp);
      // Renamed by an earlier run (or a writer that just finished) but not registered: ours only if it was verified.
      if (judgeCommitted(await getRbdImageMeta(cli, final, VERIFIED_META_KEY), plan.expected) === 'foreign') {
        return refusedUnlessBlocked(job, plan, targetExistsError(imageId, plan.store, pool, plan.target));
      }
      return register(job, plan, cli, final, 0, 0);
    }
    if (created === 'created') return { kind: 'claimed', plan, cli, temp, final };
    const occupant = await readRbdNameHolder(cli, temp);
    if (occupant.kind === 'none') continue; // removed since the create failed: look again
    if (occupant.kind === 'half-created') {
      // A create in progress (milliseconds), or one whose creator was killed inside it: still so one poll later, it is
      // a dead one's, and only a removal frees the name (else every create says "exists" and every look "absent").
      if (halfCreatedSeen) {
        job.ctx.logger.warn({ imageId, store: plan.store, rbdImage: `${temp.pool}/${temp.image}` }, 'removing a half-created temporary image (its creator was killed inside rbd create)');
        await removeRbdImage(cli, temp, SNAPSHOT);
        halfCreatedSeen = false;
      } else {
        halfCreatedSeen = true;
        await job.ctx.clock.sleep(plan.pollMs, signal);
      }
      continue;
    }
    halfCreatedSeen = false;
    const verdict = judgeTemporary(await temporaryFacts(cli, temp, occupant.info), plan.expected, Math.floor(job.ctx.clock.wallNow() / 1000), plan.quietMs);
    if (verdict.kind === 'live') {
      job.progress('joining', [plan.store], `another writer has ${temp.pool}/${temp.image} open: waiting for it`);
      await job.ctx.clock.sleep(plan.pollMs, signal);
      continue;
    }
    if (verdict.kind === 'resume') return commit(job, plan, cli, temp, final, 0, 0);
    job.ctx.logger.warn({ imageId, store: plan.store, rbdImage: `${temp.pool}/${temp.image}` }, 'removing the leftover temporary image of an earlier direct transfer');
    await removeRbdImage(cli, temp, SNAPSHOT);
  }
}

/** A refusal, unless Glance has begun to write our store meanwhile (then it is joined) or the store is there now. */
async function refusedUnlessBlocked<Skip extends string>(job: CopyJob<Skip>, plan: StoreCopyPlan, error: FerryError): Promise<StoreCopyEnd> {
  const image = await job.read();
  const blocked = blockedBy(image, plan);
  return blocked === undefined ? { kind: 'refused', error } : { kind: blocked, image };
}

/** Glance's import writes our store, or the store is there now. */
function blockedBy(image: GlanceImage, plan: StoreCopyPlan): 'busy' | 'present' | undefined {
  if (hasStore(image.stores, plan.store)) return 'present';
  if (image.importTask !== plan.ignoredLock && glanceWritesStore(image, plan.store)) return 'busy';
  return undefined;
}

async function temporaryFacts(cli: CephCliOptions, temp: RbdImageRef, info: RbdImageInfo): Promise<Parameters<typeof judgeTemporary>[0]> {
  const [watchers, verified, writer, snap] = await Promise.all([
    countRbdWatchers(cli, temp), getRbdImageMeta(cli, temp, VERIFIED_META_KEY), getRbdImageMeta(cli, temp, WRITER_META_KEY),
    readRbdImageInfo(cli, { ...temp, snapshot: SNAPSHOT }),
  ]);
  return { watchers, modifiedAtSec: info.modifiedAtSec, verified, protectedSnapshot: snap?.protected === true, writerGone: writerGone(writer) };
}

/** The writer named in the image ran on this host and its process is gone: no need to wait for the quiet time. */
function writerGone(writer: string | undefined): boolean {
  const match = /^(.+):(\d+)$/.exec(writer ?? '');
  if (match === null || match[1] !== hostname()) return false;
  try {
    process.kill(Number(match[2]), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * The bytes go through librbd unless FERRY_RBD_DATA_PATH=cli (diagnosis) or this process found python3-rbd missing
 * (warned once): then through the rbd CLI pipe (docs/copy.md, "The data path").
 */
let librbdMissing = false;
const librbdWanted = (): boolean => !librbdMissing && process.env.FERRY_RBD_DATA_PATH !== 'cli';

async function writeClaimed<Skip extends string>(job: CopyJob<Skip>, claimed: readonly Claimed[], prepared: PreparedLibrbdCopy | undefined): Promise<StoreCopyEnd[]> {
  if (prepared !== undefined && librbdWanted()) {
    const ends = await writeWithLibrbd(job, claimed, prepared);
    if (ends !== 'unavailable') return ends;
  }
  return Promise.all(claimed.map(({ plan, cli, temp, final }) => writeWithCli(job, plan, cli, temp, final)));
}

/**
 * librbd (librbd-copy.ts): one process reads and hashes the source once and writes every claimed store's temporary
 * image, makes and protects `snap` and reports each target's objects; ferry judges each target's facts as it judges a
 * streamed copy, then the same process marks and renames it.
 */
async function writeWithLibrbd<Skip extends string>(job: CopyJob<Skip>, claimed: readonly Claimed[], prepared: PreparedLibrbdCopy): Promise<StoreCopyEnd[] | 'unavailable'> {
  const imageId = job.state.image.id;
  const { plan: first } = claimed[0] ?? unreachable('(none)');
  const { source } = first;
  const stores = claimed.map((claim) => claim.plan.store);
  job.progress('copying', stores, `librbd ${source.store} → ${stores.join(', ')}`);
  const session = prepared.start({
    source: { confFile: source.cluster.confFile, user: source.cluster.user, ...source.location },
    targets: claimed.map(({ plan, temp }) => ({ confFile: plan.target.confFile, user: plan.target.user, ...temp })),
    targetSnapshot: SNAPSHOT,
    algorithm: first.expected.algorithm, objectSize: first.shape.objectSize,
    writer: { key: WRITER_META_KEY, value: `${hostname()}:${process.pid}` }, signal: job.deadline.signal,
  });
  const removeAll = (): Promise<unknown> => Promise.all(claimed.map(({ cli, temp }) => removeQuietly(job, cli, temp)));
  try {
    const copied = await session.copied;
    // Every store to its end before the process is closed: a store still renaming needs it.
    const settled = await Promise.allSettled(claimed.map((claim, index) => finishLibrbdTarget(job, claim, index, copied, session)));
    const failed = settled.find((end): end is PromiseRejectedResult => end.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    return settled.map((end) => (end as PromiseFulfilledResult<StoreCopyEnd>).value);
  } catch (error) {
    await session.close();
    if (error instanceof LibrbdUnavailableError) {
      librbdMissing = true;
      job.ctx.logger.warn({ why: error.message }, 'librbd (python3-rbd) is not available: the direct transfer copies through the rbd CLI (install python3-rbd)');
      return 'unavailable';
    }
    if (error instanceof RbdStreamError) {
      await removeAll();
      return claimed.map(({ plan }) => ({ kind: 'refused', error: error.failure.side === 'source' ? sourceLostError(imageId, source, plan.store, error)
        : targetWriteError(imageId, plan.store, plan.target, error) }));
    }
    if (isFerryError(error, 'FERRY_ABORTED')) await removeAll();
    throw error;
  } finally {
    await session.close();
  }
}

/** One target of a librbd copy: its failure or its facts judged, then marked and committed through the same process. */
async function finishLibrbdTarget<Skip extends string>(job: CopyJob<Skip>, claim: Claimed, index: number, copied: LibrbdCopied,
  session: LibrbdCopySession): Promise<StoreCopyEnd> {
  const { plan, cli, temp, final } = claim;
  const imageId = job.state.image.id;
  const facts = copied.targets[index] ?? { ok: false, failure: new RbdStreamError({ side: 'target', exitCode: null, message: 'the librbd copy reported nothing for this target' }) };
  const started = job.ctx.clock.now();
  const refuse = async (error: FerryError): Promise<StoreCopyEnd> => {
    await session.drop(index);
    await removeQuietly(job, cli, temp);
    return { kind: 'refused', error };
  };
  if (!facts.ok) return refuse(targetWriteError(imageId, plan.store, plan.target, facts.failure));
  const verdict = judgeStreamedCopy(plan.expected, copied.summary, job.state.image.size, plan.shape.objectSize, SNAPSHOT, facts);
  if (verdict.kind !== 'match') return refuse(hashMismatchError(imageId, plan.store, verdict.reason, plan.expected));
  const reading = job.read();
  reading.catch(() => undefined);
  await session.mark(index, VERIFIED_META_KEY, verifiedMark(plan.expected));
  const verifyMs = job.ctx.clock.now() - started;
  return commit(job, plan, cli, temp, final, copied.dataBytes, verifyMs, reading,
    { rename: (to) => session.rename(index, to), release: () => session.drop(index) });
}

/** The rbd CLI: export-diff | ferry (the stream hashed on its way) | import-diff, then the target looked at. */
async function writeWithCli<Skip extends string>(job: CopyJob<Skip>, plan: StoreCopyPlan, cli: CephCliOptions, temp: RbdImageRef,
  final: RbdImageRef): Promise<StoreCopyEnd> {
  const imageId = job.state.image.id;
  const { source } = plan;
  const sourceCli: CephCliOptions = { confFile: source.cluster.confFile, ...(source.cluster.user ? { user: source.cluster.user } : {}),
    ...(plan.runner ? { runner: plan.runner } : {}) };
  let protecting: Promise<Error | undefined> | undefined;
  let hasher: RbdDiffHasher | undefined;
  try {
    await setRbdImageMeta(cli, temp, WRITER_META_KEY, `${hostname()}:${process.pid}`);
    job.progress('copying', [plan.store], `rbd export-diff ${source.store} | rbd import-diff ${plan.store}`);
    hasher = new RbdDiffHasher(workerHash(plan.expected.algorithm), plan.shape.objectSize);
    const bytes = await pipeRbdDiff(sourceCli, source.location, cli, temp, job.deadline.signal, hasher);
    job.progress('copying', [plan.store], 'verifying the copy');
    const started = job.ctx.clock.now();
    const stream = await hasher.finish();
    // Protect while the target is looked at: it changes no byte, and a copy that fails the check is removed anyway.
    protecting = protectRbdSnapshot(cli, temp, SNAPSHOT).then(() => undefined,
      (error: unknown) => (error instanceof Error ? error : new Error(String(error))));
    const verdict = await verifyStreamed(job, plan, cli, temp, stream);
    const verifyMs = job.ctx.clock.now() - started;
    const protectError = await protecting;
    if (verdict.kind === 'mismatch') {
      await removeQuietly(job, cli, temp);
      return { kind: 'refused', error: hashMismatchError(imageId, plan.store, verdict.reason, plan.expected) };
    }
    if (protectError !== undefined) throw protectError;
    // Glance is read for the last look before the rename while the mark is set.
    const reading = job.read();
    reading.catch(() => undefined);
    await setRbdImageMeta(cli, temp, VERIFIED_META_KEY, verifiedMark(plan.expected));
    return await commit(job, plan, cli, temp, final, bytes, verifyMs, reading);
  } catch (error) {
    await protecting; // settled, never rejects: the removal below must not race the protect
    if (error instanceof RbdDiffFormatError) {
      await removeQuietly(job, cli, temp);
      return { kind: 'refused', error: malformedStreamError(imageId, source, plan.store, error) };
    }
    if (error instanceof RbdStreamError) {
      await removeQuietly(job, cli, temp);
      return { kind: 'refused', error: error.failure.side === 'source' ? sourceLostError(imageId, source, plan.store, error)
        : targetWriteError(imageId, plan.store, plan.target, error) };
    }
    // Interrupted or cut by the deadline: remove what we wrote if we still can (a killed run leaves it to the next).
    if (isFerryError(error, 'FERRY_ABORTED')) await removeQuietly(job, cli, temp);
    throw error;
  } finally {
    hasher?.hash.close();
  }
}

/**
 * The streamed bytes' hash plus a cheap look at the target (rbd-stream-verify.ts); the read-back (`rbd export
 * TEMP@snap | hash`) only when the stream could not be hashed in one pass.
 */
async function verifyStreamed<Skip extends string>(job: CopyJob<Skip>, plan: StoreCopyPlan, cli: CephCliOptions, temp: RbdImageRef,
  stream: RbdDiffSummary): Promise<VerifyVerdict> {
  const snap = { ...temp, snapshot: SNAPSHOT };
  const [info, extents] = await Promise.all([readRbdImageInfo(cli, snap), stream.ordered ? listRbdObjectExtents(cli, snap) : []]);
  const verdict = judgeStreamedCopy(plan.expected, stream, job.state.image.size, plan.shape.objectSize, SNAPSHOT,
    { snapshotSize: info?.size, extents: extents ?? [] });
  if (verdict.kind !== 'read-back') return verdict;
  job.ctx.logger.info({ imageId: job.state.image.id, store: plan.store, why: verdict.reason }, 'verifying the direct copy by reading it back');
  return judgeReadBack(plan.expected, await hashRbdSnapshot(cli, snap, plan.expected.algorithm, job.deadline.signal), job.state.image.size);
}

/** Who has the temporary image: the librbd process keeps it open until the rename; the CLI path holds nothing. */
interface TemporaryHolder {
  rename(to: string): Promise<RenameOutcome>;
  /** Let go of it before it is removed (an open image cannot be). */
  release(): Promise<void>;
}

/** Rename = commit: the verified temporary image takes the image's name, unless someone's image has it already. */
async function commit<Skip extends string>(job: CopyJob<Skip>, plan: StoreCopyPlan, cli: CephCliOptions, temp: RbdImageRef,
  final: RbdImageRef, bytes: number, verifyMs: number, reading: Promise<GlanceImage> = job.read(),
  holder: TemporaryHolder = { rename: (to) => renameRbdImage(cli, temp.pool, temp.image, to), release: () => Promise.resolve() }): Promise<StoreCopyEnd> {
  const image = await reading;
  const blocked = blockedBy(image, plan);
  if (blocked !== undefined) {
    await holder.release();
    await removeQuietly(job, cli, temp);
    return { kind: blocked, image };
  }
  const renamed = await holder.rename(final.image);
  if (renamed !== 'renamed') {
    if (renamed === 'exists') {
      await removeQuietly(job, cli, temp);
      // A half-created image holds the name (Glance's rbd store killed inside its create): the claim's `rbd info` sees
      // nothing there, so looking again would copy again, and again. Unless Glance is creating it right now.
      if ((await readRbdNameHolder(cli, final)).kind === 'half-created') {
        return refusedUnlessBlocked(job, plan, targetExistsError(job.state.image.id, plan.store, final.pool, plan.target, true));
      }
    }
    // Loop back through copyStore's checks: the name's holder decides (a verified copy of ours is registered). Absent:
    // a writer we took for a dead run's (verified, no watcher) committed it between our look and our rename.
    return copyStore(job, plan);
  }
  return register(job, plan, cli, final, bytes, verifyMs);
}

/** PATCH add /locations/-. A refusal removes the committed copy (nothing points to it); a lost answer is looked up. */
async function register<Skip extends string>(job: CopyJob<Skip>, plan: StoreCopyPlan, cli: CephCliOptions, final: RbdImageRef,
  bytes: number, verifyMs: number): Promise<StoreCopyEnd> {
  const imageId = job.state.image.id;
  const url = formatRbdLocation({ fsid: await plan.targetFsid, pool: final.pool, image: final.image, snapshot: SNAPSHOT });
  job.progress('copying', [plan.store], `registering ${url}`);
  try {
    const image = await plan.oneLocationWrite(() => job.ctx.glance.addLocation(imageId, { url, store: plan.store }, { signal: job.deadline.signal }));
    return { kind: 'copied', image, bytes, verifyMs };
  } catch (error) {
    if (!isFerryError(error) || error.code === 'FERRY_ABORTED') throw error;
    const now = await job.read().catch(() => undefined);
    if (now !== undefined && (now.locations ?? []).some((location) => location.url === url)) {
      // Refused because it is there already: another writer's PATCH came first (a lost answer may have been ours).
      return error.code === 'FERRY_LOCATION_REFUSED' ? { kind: 'present', image: now } : { kind: 'copied', image: now, bytes, verifyMs };
    }
    if (error.code === 'FERRY_LOCATION_REFUSED' || error.code === 'FERRY_IMAGE_NOT_FOUND') {
      await removeQuietly(job, cli, final);
      return { kind: 'refused', error };
    }
    // Glance did not answer clearly: the verified copy stays committed, and the next run registers it.
    throw error;
  }
}

async function removeQuietly<Skip extends string>(job: CopyJob<Skip>, cli: CephCliOptions, ref: RbdImageRef): Promise<void> {
  // Without the job's signal: an interrupted job still cleans up, within the CLI's own timeout.
  const { signal: _signal, ...unsignalled } = cli;
  await removeRbdImage({ ...unsignalled, timeoutMs: 20_000 }, ref, SNAPSHOT).catch((error: unknown) => {
    job.ctx.logger.warn({ rbdImage: `${ref.pool}/${ref.image}`, error: (error as Error).message }, 'could not remove what the direct transfer wrote; the next run removes it');
  });
}
