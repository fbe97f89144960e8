import type { FerryError } from '../../errors/ferry-error.js';
import { isFerryError } from '../../errors/ferry-error.js';
import type { GlanceImage } from '../../glance/image.js';
import type { CephCliOptions } from '../../rbd/ceph-cli.js';
import { formatRbdLocation } from '../../rbd/format-rbd-location.js';
import { readRbdNameHolder, renameRbdImage, type RbdImageRef, type RenameOutcome } from '../../rbd/rbd-image-commands.js';
import type { RbdCopyIdentity } from './judge-found-copy.js';
import { holdsProvenCopy } from './prove-found-copy.js';
import { targetExistsError } from './rbd-direct-errors.js';
import { storeBlockedBy } from './rbd-direct-plan.js';
import { removeWrittenImage } from './remove-written-image.js';
import { SNAPSHOT, type StepEnd, type StoreCopyEnd, type StoreCopyEnvironment, type StoreCopyPlan } from './store-copy-plan.js';

/** What the commit needs of the job: nothing but the image's id, the deadline, one read and one location write. */
export type CommitEnvironment = Pick<StoreCopyEnvironment, 'imageId' | 'signal' | 'logger' | 'read' | 'addLocation' | 'progress'>;

/** Who has the temporary image: the librbd process keeps it open until the rename; the CLI path holds nothing. */
export interface TemporaryHolder {
  rename(to: string): Promise<RenameOutcome>;
  /** Let go of it before it is removed (an open image cannot be). */
  release(): Promise<void>;
  /** Whether `ref` holds the proven image and its protected snapshot now (the librbd process asks its own connection). */
  holds(ref: RbdImageRef, proven: RbdCopyIdentity): Promise<boolean>;
}

export interface CommitRequest {
  readonly plan: Pick<StoreCopyPlan, 'store' | 'target' | 'targetFsid' | 'ignoredLock' | 'oneLocationWrite'>;
  readonly cli: CephCliOptions;
  /** The proven copy: the temporary image (renamed here), or the final name already (registered as it is). */
  readonly from: RbdImageRef;
  readonly final: RbdImageRef;
  readonly bytes: number;
  readonly verifyMs: number;
  /**
   * The image and snapshot that were proven: the ones this run wrote (their ids as the writer saw them), or the ones a
   * found copy's read-back read. The final name must hold them after the rename, or nothing is registered.
   */
  readonly proven: RbdCopyIdentity;
  /** Glance read for the last look, started earlier (beside the mark); else read here. */
  readonly reading?: Promise<GlanceImage>;
  readonly holder?: TemporaryHolder;
}

/**
 * Rename = commit: the proven temporary image takes the image's name, unless someone's image has it already; then
 * the location is registered. Glance is looked at first: a store Glance began to write meanwhile is joined, never
 * raced. After the rename, before the PATCH, the final name must hold the very image and snapshot that were proven
 * (streamed by this run, or read back): whoever may write the pool can rename any image under any name, ferry's own
 * temporary one included. Ends `look-again` when the names changed under it (the claim decides again: never a
 * recursion into the copy).
 */
export async function commitCopy(env: CommitEnvironment, request: CommitRequest): Promise<StepEnd> {
  const { plan, cli, from, final } = request;
  const holder = request.holder ?? { rename: (to: string) => renameRbdImage(cli, from.pool, from.image, to), release: () => Promise.resolve(),
    holds: (ref: RbdImageRef, proven: RbdCopyIdentity) => holdsProvenCopy(cli, ref, proven) };
  const renaming = from.image !== final.image;
  const image = await (request.reading ?? env.read());
  const blocked = storeBlockedBy(image, plan.store, plan.ignoredLock);
  if (blocked !== undefined) {
    await holder.release();
    if (renaming) await removeWrittenImage(env, cli, from);
    return { kind: blocked, image };
  }
  if (renaming) {
    const renamed = await holder.rename(final.image);
    if (renamed !== 'renamed') return lostTheRename(env, request, renamed);
  }
  if (!(await holder.holds(final, request.proven))) {
    env.logger.warn({ imageId: env.imageId, store: plan.store, rbdImage: `${final.pool}/${final.image}` },
      'the image under the final name is not the one proven (renamed or swapped meanwhile): looking again, nothing registered');
    return { kind: 'look-again' };
  }
  return register(env, request);
}

/** The rename found the name taken, or the temporary image gone. */
async function lostTheRename(env: CommitEnvironment, request: CommitRequest, renamed: Exclude<RenameOutcome, 'renamed'>): Promise<StepEnd> {
  const { plan, cli, from, final } = request;
  if (renamed === 'exists') {
    await removeWrittenImage(env, cli, from);
    // A half-created image holds the name (Glance's rbd store killed inside its create): the claim's `rbd info` sees
    // nothing there, so looking again would copy again, and again. Unless Glance is creating it right now.
    if ((await readRbdNameHolder(cli, final)).kind === 'half-created') {
      return refusedUnlessBlocked(env, plan, targetExistsError(env.imageId, plan.store, final.pool, plan.target, { kind: 'half-created' }));
    }
  }
  // The name's holder decides at the next look (a copy marked verified is proven before it is registered). Absent: a
  // writer we took for a dead run's committed it between our look and our rename.
  return { kind: 'look-again' };
}

/** A refusal, unless Glance has begun to write our store meanwhile (then it is joined) or the store is there now. */
export async function refusedUnlessBlocked(env: Pick<CommitEnvironment, 'read'>, plan: Pick<StoreCopyPlan, 'store' | 'ignoredLock'>,
  error: FerryError): Promise<StoreCopyEnd> {
  const image = await env.read();
  const blocked = storeBlockedBy(image, plan.store, plan.ignoredLock);
  return blocked === undefined ? { kind: 'refused', error } : { kind: blocked, image };
}

/** PATCH add /locations/-. A refusal removes the committed copy (nothing points to it); a lost answer is looked up. */
async function register(env: CommitEnvironment, request: CommitRequest): Promise<StoreCopyEnd> {
  const { plan, cli, final, bytes, verifyMs } = request;
  const url = formatRbdLocation({ fsid: await plan.targetFsid, pool: final.pool, image: final.image, snapshot: SNAPSHOT });
  env.progress('copying', [plan.store], `registering ${url}`);
  try {
    const image = await plan.oneLocationWrite(() => env.addLocation({ url, store: plan.store }));
    return { kind: 'copied', image, bytes, verifyMs };
  } catch (error) {
    if (!isFerryError(error) || error.code === 'FERRY_ABORTED') throw error;
    const now = await env.read().catch(() => undefined);
    if (now !== undefined && (now.locations ?? []).some((location) => location.url === url)) {
      // Refused because it is there already: another writer's PATCH came first (a lost answer may have been ours).
      return error.code === 'FERRY_LOCATION_REFUSED' ? { kind: 'present', image: now } : { kind: 'copied', image: now, bytes, verifyMs };
    }
    if (error.code === 'FERRY_LOCATION_REFUSED' || error.code === 'FERRY_IMAGE_NOT_FOUND') {
      await removeWrittenImage(env, cli, final);
      return { kind: 'refused', error };
    }
    // Glance did not answer clearly: the proven copy stays committed, and the next run proves and registers it.
    throw error;
  }
}
