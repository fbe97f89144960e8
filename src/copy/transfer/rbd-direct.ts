import { isFerryError, type FerryError } from '../../errors/ferry-error.js';
import { cephCliFor, type CephCliOptions } from '../../rbd/ceph-cli.js';
import type { CephCluster } from '../../config/ceph-cluster.js';
import { askClusterFsid } from '../../rbd/cluster-fsid.js';
import { readCephConfFsid } from '../../rbd/ceph-conf-fsid.js';
import type { CommandRunner } from '../../rbd/command-runner.js';
import { readRbdImageInfo, type RbdImageInfo } from '../../rbd/rbd-image-commands.js';
import { NO_EFFECTS, type CopyTransfer, type TransferJob, type TransferOutcome } from '../copy-job.js';
import type { OwnImportVerdict } from '../judge-own-import.js';
import { createKeyedLimiter, type KeyedLimiter } from '../../concurrency/keyed-limiter.js';
import { copyStores, type StoreCopyEnd, type StoreCopyEnvironment, type StoreCopyPlan } from './rbd-copy-store.js';
import { imageIdUnsafeError, noSourceError, notRawError, targetPoolUnknownError, unverifiableError } from './rbd-direct-errors.js';
import { DIRECT_COPIES_PER_CLUSTER, directCopySlotKeys, expectedHash, planRbdSources, sourceCandidateProblem, targetPoolOf, type ExpectedHash, type RbdSourceCandidate } from './rbd-direct-plan.js';
import { rbdLocationNameProblem, rbdNameProblem } from '../../rbd/rbd-names.js';
import type { GlanceImage } from '../../glance/image.js';
import type { GlanceStoresInfo } from '../../glance/image-store-info.js';

export interface RbdDirectOptions {
  /** Stores ferry may write to, with their cluster (ensure: the local store and --ceph-conf). */
  readonly targets: ReadonlyMap<string, CephCluster>;
  /** Stores ferry may read from (--source-ceph-conf STORE=PATH, as --source-rbd-user). */
  readonly sources: ReadonlyMap<string, CephCluster>;
  /** `auto`: what brings a store the direct transfer cannot (not raw, no hash, no readable source, no target cluster). */
  readonly fallback?: CopyTransfer | undefined;
  /** Concurrent direct copies per source cluster and per target store (prewarm/sync run many). */
  readonly perClusterLimit?: number;
  /** Those slots shared with other transfers of the process (ensure: every request of the agent); else its own. */
  readonly slots?: KeyedLimiter;
  /** A temporary image nobody has open and nobody wrote for this long is a leftover. */
  readonly quietMs?: number;
  readonly pollMs?: number;
  readonly runner?: CommandRunner;
  /** --rate-limit: each copy (one read of a source, the bytes written to its targets) at most this many bytes a second. */
  readonly bytesPerSecond?: number | undefined;
}

export const RBD_DIRECT_DEFAULTS = {
  perClusterLimit: DIRECT_COPIES_PER_CLUSTER,
  // librbd updates an image's modify time at most once a minute (rbd_mtime_update_interval): three times that.
  quietMs: 180_000,
  pollMs: 1_000,
} as const;

/** The direct transfer, which can be told which store to read (the fan-out's hop); else the first readable source. */
export interface RbdDirectTransfer extends CopyTransfer {
  bring<Skip extends string>(job: TransferJob<Skip>, batch: readonly string[], takingOver: string | undefined, from?: string): Promise<TransferOutcome>;
}

type Eligibility =
  | { readonly kind: 'direct'; readonly source: RbdSourceCandidate; readonly shape: RbdImageInfo; readonly expected: ExpectedHash;
    /** Each target store's pool, as Glance's rbd store names it. */
    readonly pools: ReadonlyMap<string, string> }
  | { readonly kind: 'refused'; readonly error: FerryError };

/**
 * The direct RBD → RBD transfer (issue 19): the bytes go from a source cluster's snapshot straight into the target
 * pool, sparse, verified against Glance's hash, committed by a rename and registered as a location. Glance stages
 * nothing. With a fallback (`--transfer auto`), an image it cannot copy goes to Glance's copy-image instead.
 */
export function createRbdDirectTransfer(options: RbdDirectOptions): RbdDirectTransfer {
  const limiter = options.slots ?? createKeyedLimiter(options.perClusterLimit ?? RBD_DIRECT_DEFAULTS.perClusterLimit);
  const locationWrites = createKeyedLimiter(1);
  const fsids = new Map<string, Promise<string>>();
  const remembered = (key: string, ask: () => Promise<string>): Promise<string> => {
    let known = fsids.get(key);
    if (known === undefined) {
      known = ask();
      known.catch(() => fsids.delete(key));
      fsids.set(key, known);
    }
    return known;
  };
  // A target's fsid goes into the registered location: the cluster's own answer (librados, else `ceph fsid`), unless
  // the caller resolved it already. It is asked while the copy runs and awaited only to register.
  const targetFsidOf = (cluster: CephCluster, signal: AbortSignal): Promise<string> => cluster.fsid !== undefined ? Promise.resolve(cluster.fsid)
    : remembered(`cluster:${cluster.confFile}`, () => askClusterFsid(cliOf(cluster, signal, options.runner)));
  // A source's fsid only picks the cluster to read: the conf's `fsid` when it names one (no process to ask, ~0.05 s
  // through librados). A conf that names a wrong one can only make ferry read the wrong cluster, and those bytes fail
  // the hash.
  const sourceFsidOf = (cluster: CephCluster, signal: AbortSignal): Promise<string> => cluster.fsid !== undefined ? Promise.resolve(cluster.fsid)
    : remembered(`conf:${cluster.confFile}`, async () => (await readCephConfFsid(cluster.confFile, cluster.user))?.fsid
      ?? await targetFsidOf(cluster, signal));
  // The stores' pools, read once per run (prewarm: once for every image); a failed read is tried again by the next image.
  let storesDetail: Promise<GlanceStoresInfo> | undefined;
  const readStores = async <Skip extends string>(job: TransferJob<Skip>): Promise<{ stores?: GlanceStoresInfo; unread?: string }> => {
    storesDetail ??= job.ctx.glance.getStoresDetail({ signal: job.deadline.signal });
    const pending = storesDetail;
    try {
      return { stores: await pending };
    } catch (error) {
      if (storesDetail === pending) storesDetail = undefined;
      // Cut by the deadline of the job that started the shared read, not by ours: read again under ours.
      if (isFerryError(error, 'FERRY_ABORTED') && !job.deadline.signal.aborted) return readStores(job);
      if (!isFerryError(error) || error.code === 'FERRY_ABORTED') throw error;
      return { unread: error.code === 'FERRY_FORBIDDEN' ? 'admin-only: 403' : `${error.code}: ${error.message}` };
    }
  };

  return {
    kind: 'rbd',
    async bring(job, batch, takingOver, from) {
      // The targets' fsids are needed for the locations: ask while the source is checked and the bytes travel.
      for (const store of batch) {
        const target = options.targets.get(store);
        if (target !== undefined) targetFsidOf(target, job.deadline.signal).catch(() => undefined);
      }
      const eligibility = await checkEligibility(job, batch, options, sourceFsidOf, readStores, from);
      if (eligibility.kind === 'refused') {
        if (options.fallback !== undefined) {
          job.ctx.logger.info({ imageId: job.state.image.id, stores: batch, why: eligibility.error.code }, 'direct RBD transfer not possible: using Glance');
          // Its outcome names the transfer that ran (Glance's), and carries its effects.
          return options.fallback.bring(job, batch, takingOver);
        }
        return ended(job, job.state.image, new Map(batch.map((store) => [store, { kind: 'refused', error: eligibility.error }])), 0);
      }
      const started = job.ctx.clock.now();
      const plans = batch.map((store): StoreCopyPlan => {
        const target = options.targets.get(store);
        const targetPool = eligibility.pools.get(store);
        if (target === undefined || targetPool === undefined) throw new Error(`rbd-direct: ${store} passed the eligibility check without a target cluster and pool`);
        return {
          store, target, targetPool, targetFsid: targetFsidOf(target, job.deadline.signal), source: eligibility.source, shape: eligibility.shape,
          expected: eligibility.expected, ignoredLock: takingOver, quietMs: options.quietMs ?? RBD_DIRECT_DEFAULTS.quietMs,
          pollMs: options.pollMs ?? RBD_DIRECT_DEFAULTS.pollMs, ...(options.runner ? { runner: options.runner } : {}), bytesPerSecond: options.bytesPerSecond,
          oneLocationWrite: (work) => locationWrites.run([`image:${job.state.image.id}`], job.deadline.signal, work),
        };
      });
      // The image's stores together: one read of the source for all of them (librbd), one slot of the source and of
      // each target.
      const ends = await limiter.run(directCopySlotKeys(eligibility.source, batch), job.deadline.signal, () => copyStores(storeCopyEnvironment(job), plans));
      // Each store's end carries the image as its own PATCH answered; after several, only a fresh read has them all
      // (unreadable now: the engine's next look reads it anyway).
      const fresh = ends.filter(([, end]) => end.kind === 'copied').length > 1 ? await job.read().catch(() => undefined) : undefined;
      return assemble(job, ends, started, fresh);
    },
  };
}

/** What the per-store steps see of the job: built once per bring, they never see (or write) the job itself. */
function storeCopyEnvironment<Skip extends string>(job: TransferJob<Skip>): StoreCopyEnvironment {
  const { id, size } = job.state.image;
  const signal = job.deadline.signal;
  return {
    imageId: id, imageSize: size, signal, clock: job.ctx.clock, logger: job.ctx.logger,
    read: () => job.read(),
    addLocation: (location) => job.ctx.glance.addLocation(id, location, { signal }),
    progress: (phase, stores, note) => job.progress(phase, stores, note),
  };
}

/**
 * Before anything is written: raw, provable, an image id rbd can take as a name, a readable source of the same cluster
 * and pool its location names, a target cluster and pool.
 */
async function checkEligibility<Skip extends string>(job: TransferJob<Skip>, batch: readonly string[], options: RbdDirectOptions,
  fsidOf: (cluster: CephCluster, signal: AbortSignal) => Promise<string>,
  readStores: (job: TransferJob<Skip>) => Promise<{ stores?: GlanceStoresInfo; unread?: string }>, from: string | undefined): Promise<Eligibility> {
  const image = job.state.image;
  const signal = job.deadline.signal;
  if (image.diskFormat !== 'raw') return { kind: 'refused', error: notRawError(image.id, image.diskFormat) };
  const idProblem = rbdNameProblem('image', image.id);
  if (idProblem !== undefined) return { kind: 'refused', error: imageIdUnsafeError(image.id, idProblem) };
  const expected = expectedHash(image);
  if (expected === undefined) return { kind: 'refused', error: unverifiableError(image.id, batch.join(',')) };
  const missingTarget = batch.find((store) => !options.targets.has(store));
  if (missingTarget !== undefined) {
    return { kind: 'refused', error: noSourceError(image.id, missingTarget, [...options.targets.keys()],
      [{ store: missingTarget, error: 'ferry knows no ceph.conf for this target store (--ceph-conf is the local store\'s)' }]) };
  }
  // The stores' pools and the first source are looked up side by side (each a round trip: ~0.05 s).
  const storesRead = readStores(job);
  storesRead.catch(() => undefined);
  const sourceFound = findSource(image, batch, options, fsidOf, signal, storesRead, from);
  sourceFound.catch(() => undefined);
  const { stores, unread } = await storesRead;
  const pools = new Map<string, string>();
  for (const store of batch) {
    const pool = targetPoolOf(stores, unread, store);
    if (pool.kind === 'unknown') return { kind: 'refused', error: targetPoolUnknownError(image.id, store, pool.why) };
    pools.set(store, pool.pool);
  }
  const found = await sourceFound;
  if (found.kind === 'none') return { kind: 'refused', error: noSourceError(image.id, batch.join(','), [...options.sources.keys()], found.tried) };
  return { kind: 'direct', source: found.source, shape: found.shape, expected, pools };
}

type SourceSearch = { readonly kind: 'found'; readonly source: RbdSourceCandidate; readonly shape: RbdImageInfo }
  | { readonly kind: 'none'; readonly tried: { store: string; error: string }[] };

/**
 * The first source store whose location names are ones rbd takes, in the pool of that store (Glance's stores detail),
 * in the cluster the location names, and whose snapshot exists there. The first candidate's look starts beside the
 * stores' read; a candidate that fails the pool check is skipped (its look dropped) with the reason in `tried`.
 */
async function findSource(image: GlanceImage, batch: readonly string[], options: RbdDirectOptions,
  fsidOf: (cluster: CephCluster, signal: AbortSignal) => Promise<string>, signal: AbortSignal,
  storesRead: Promise<{ stores?: GlanceStoresInfo; unread?: string }>, from: string | undefined): Promise<SourceSearch> {
  const candidates = planRbdSources(image, options.sources, batch[0] ?? '')
    .filter((candidate) => !batch.includes(candidate.store) && (from === undefined || candidate.store === from));
  const tried: { store: string; error: string }[] = [];
  const lookAt = async (candidate: RbdSourceCandidate): Promise<RbdImageInfo | string> => {
    const fsid = await fsidOf(candidate.cluster, signal);
    if (fsid !== candidate.location.fsid.toLowerCase()) return `${candidate.cluster.confFile} reaches cluster ${fsid}, the location is in ${candidate.location.fsid}`;
    const shape = await readRbdImageInfo(cliOf(candidate.cluster, signal, options.runner), candidate.location);
    return shape ?? `${candidate.location.pool}/${candidate.location.image}@${candidate.location.snapshot} does not exist`;
  };
  // Only a location whose names rbd takes is ever looked at, even before the stores are read.
  const first = candidates[0];
  const early = first !== undefined && rbdLocationNameProblem(first.location) === undefined ? lookAt(first) : undefined;
  early?.catch(() => undefined);
  const { stores } = await storesRead;
  for (const candidate of candidates) {
    const problem = stores === undefined ? 'GET /v2/info/stores/detail could not be read' : sourceCandidateProblem(candidate, stores);
    if (problem !== undefined) {
      tried.push({ store: candidate.store, error: problem });
      continue;
    }
    try {
      const look = await (candidate === first && early !== undefined ? early : lookAt(candidate));
      if (typeof look !== 'string') return { kind: 'found', source: candidate, shape: look };
      tried.push({ store: candidate.store, error: look });
    } catch (error) {
      if (!isFerryError(error) || error.code === 'FERRY_ABORTED') throw error;
      tried.push({ store: candidate.store, error: error.message });
    }
  }
  return { kind: 'none', tried };
}

/** The stores' ends as the engine's outcome: copied/refused stores get verdicts; busy/present ones are looked at again. */
function assemble<Skip extends string>(job: TransferJob<Skip>, ends: readonly (readonly [string, StoreCopyEnd])[], started: number,
  fresh: GlanceImage | undefined): TransferOutcome {
  const verdicts = new Map<string, OwnImportVerdict>();
  let busy = false;
  // The newest image seen: each store's end carries the image as it read it (a PATCH's answer, a look).
  let image = job.state.image;
  for (const [store, end] of ends) {
    if (end.kind === 'refused') {
      verdicts.set(store, { kind: 'refused', error: end.error });
      continue;
    }
    if (end.kind === 'copied') verdicts.set(store, { kind: 'copied', taskId: undefined });
    else busy ||= end.kind === 'busy';
    image = end.image;
  }
  image = fresh ?? image;
  if (verdicts.size === 0) return { kind: 'not-started', image, busy, effects: NO_EFFECTS };
  return ended(job, image, verdicts, job.ctx.clock.now() - started);
}

function ended<Skip extends string>(job: TransferJob<Skip>, image: GlanceImage, verdicts: ReadonlyMap<string, OwnImportVerdict>,
  elapsedMs: number): TransferOutcome {
  return {
    kind: 'ended', transfer: 'rbd', verdicts, tasks: [], elapsedMs, perStoreMs: elapsedMs / Math.max(1, verdicts.size),
    wait: { elapsedMs },
    snapshot: { image, watchedTask: undefined, task: undefined, elapsedMs, wallNowMs: job.ctx.clock.wallNow() },
    effects: NO_EFFECTS,
  };
}

function cliOf(cluster: CephCluster, signal: AbortSignal, runner: CommandRunner | undefined): CephCliOptions {
  return cephCliFor(cluster, { signal, runner });
}
