import { FerryError } from '../errors/ferry-error.js';
import { cephConnectionArgs, cephMessage, cephTimeoutSeconds, resolveCephCliOptions, type CephCliOptions } from './ceph-cli.js';

// The rbd commands the direct transfer runs on one image: thin, one command each, no decisions beyond reading the
// CLI's answer. Every call names the cluster by its ceph.conf and cephx user, as the other CLI edges do, and puts `--`
// before its specs: a name is never read as an option (rbd 16 accepts `--` in each of these commands; names are
// checked where they enter, rbd-names.ts).

/** What Glance's rbd store chose for an image, read from the source so the copy is made alike. */
export interface RbdImageInfo {
  /** The image's id in its pool (its header object's name): kept by a rename, never shared by two images at once. */
  readonly id: string | undefined;
  /** A clone: its unwritten data is read from its parent's snapshot (`rbd info` lists a parent). */
  readonly hasParent: boolean;
  readonly size: number;
  readonly objectSize: number;
  readonly features: readonly string[];
  /** A snapshot's info: whether it is protected (clones need it). */
  readonly protected: boolean;
  /** Unix seconds of the last write (librbd updates it at most once a minute) or creation. */
  readonly modifiedAtSec: number | undefined;
}

export interface RbdImageRef {
  readonly pool: string;
  readonly image: string;
}

const ENOENT = 2;
const EEXIST = 17;
const NOT_FOUND = /\(2\) No such file or directory$/;

/** `rbd info --format json`: undefined when the image (or snapshot) does not exist. */
export async function readRbdImageInfo(cli: CephCliOptions, ref: RbdImageRef & { readonly snapshot?: string }): Promise<RbdImageInfo | undefined> {
  const spec = `${ref.pool}/${ref.image}${ref.snapshot === undefined ? '' : `@${ref.snapshot}`}`;
  const out = await rbd(cli, ['info', '--format', 'json', '--', spec], `rbd info ${spec}`, [0, ENOENT]);
  if (out.exitCode === ENOENT) return undefined;
  const parsed = JSON.parse(out.stdout) as { id?: string; parent?: unknown; size?: number; object_size?: number; features?: string[];
    modify_timestamp?: string; create_timestamp?: string; protected?: string };
  const stamp = parsed.modify_timestamp ?? parsed.create_timestamp;
  const ms = stamp === undefined ? Number.NaN : Date.parse(stamp);
  return {
    id: typeof parsed.id === 'string' ? parsed.id : undefined,
    hasParent: parsed.parent !== undefined,
    size: Number(parsed.size ?? 0),
    objectSize: Number(parsed.object_size ?? 0),
    features: parsed.features ?? [],
    protected: parsed.protected === 'true',
    modifiedAtSec: Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined,
  };
}

/** `rbd ls --format json POOL`: the names in the pool's directory, also of images that cannot be opened. */
export async function listRbdImageNames(cli: CephCliOptions, pool: string): Promise<string[]> {
  const out = await rbd(cli, ['ls', '--format', 'json', '--', pool], `rbd ls ${pool}`, [0]);
  return JSON.parse(out.stdout) as string[];
}

/**
 * Who holds a name in the pool: an image; a half-created one — its creator (Glance's rbd store, an `rbd create`) was
 * killed before it wrote the image's header, so `rbd info` says "No such file" while `rbd create` says "already
 * exists", and only `rbd rm` removes it (seen on Ceph 16); or nobody. The directory is listed only when `rbd info`
 * finds nothing, so call it where an absent name is a surprise (a refused create or rename, a failed Glance copy).
 */
export async function readRbdNameHolder(cli: CephCliOptions, ref: RbdImageRef): Promise<RbdNameHolder> {
  const info = await readRbdImageInfo(cli, ref);
  if (info !== undefined) return { kind: 'image', info };
  return (await listRbdImageNames(cli, ref.pool)).includes(ref.image) ? { kind: 'half-created' } : { kind: 'none' };
}

export type RbdNameHolder = { readonly kind: 'image'; readonly info: RbdImageInfo } | { readonly kind: 'half-created' } | { readonly kind: 'none' };

/**
 * `rbd diff --whole-object --format json IMG@snap`: the objects that exist in the snapshot, as image extents. From
 * the object map when the image has fast-diff (Glance's images do): one cheap call, no object is read. Undefined when
 * the image or the snapshot does not exist.
 */
export async function listRbdObjectExtents(cli: CephCliOptions, ref: RbdImageRef & { readonly snapshot: string }): Promise<{ offset: number; length: number }[] | undefined> {
  const spec = `${ref.pool}/${ref.image}@${ref.snapshot}`;
  const out = await rbd(cli, ['diff', '--whole-object', '--format', 'json', '--', spec], `rbd diff ${spec}`, [0, ENOENT]);
  if (out.exitCode === ENOENT) return undefined;
  const parsed = JSON.parse(out.stdout) as { offset?: number; length?: number; exists?: string }[];
  return parsed.filter((extent) => extent.exists !== 'false').map((extent) => ({ offset: Number(extent.offset ?? 0), length: Number(extent.length ?? 0) }));
}

/** `rbd create` with the given shape; 'exists' when the name is taken (the atomic "who writes" decision). */
export async function createRbdImage(cli: CephCliOptions, ref: RbdImageRef, shape: RbdImageInfo): Promise<'created' | 'exists'> {
  const spec = `${ref.pool}/${ref.image}`;
  const features = shape.features.flatMap((feature) => ['--image-feature', feature]);
  const out = await rbd(cli, ['create', '--size', `${shape.size}B`, '--object-size', `${shape.objectSize}B`, ...features, '--', spec],
    `rbd create ${spec}`, [0, EEXIST]);
  return out.exitCode === EEXIST ? 'exists' : 'created';
}

export type RenameOutcome = 'renamed' | 'exists' | 'absent';

/**
 * `rbd rename`: the commit of a copy. 'exists' when the new name is taken; 'absent' when the image to rename is gone
 * (another writer committed or removed it between our look and the rename).
 */
export async function renameRbdImage(cli: CephCliOptions, pool: string, from: string, to: string): Promise<RenameOutcome> {
  const out = await rbd(cli, ['rename', '--', `${pool}/${from}`, `${pool}/${to}`], `rbd rename ${pool}/${from} ${pool}/${to}`, [0, EEXIST, ENOENT]);
  return out.exitCode === EEXIST ? 'exists' : out.exitCode === ENOENT ? 'absent' : 'renamed';
}

export async function protectRbdSnapshot(cli: CephCliOptions, ref: RbdImageRef, snapshot: string): Promise<void> {
  const spec = `${ref.pool}/${ref.image}@${snapshot}`;
  await rbd(cli, ['snap', 'protect', '--', spec], `rbd snap protect ${spec}`, [0]);
}

/** One snapshot of an image (`rbd snap ls`): its id is unique in the pool, and a new snapshot of that name gets a new id. */
export interface RbdSnapshotInfo {
  readonly id: number;
  readonly name: string;
  readonly size: number;
  readonly protected: boolean;
}

/**
 * `rbd snap ls --format json`: the image's snapshots, named (`pool/image`) or by its id (`--image-id`: whatever name
 * it has now). Undefined when no such image exists.
 */
export async function listRbdSnapshots(cli: CephCliOptions, ref: RbdImageRef | { readonly pool: string; readonly imageId: string }): Promise<RbdSnapshotInfo[] | undefined> {
  const named = 'image' in ref;
  const spec = named ? `${ref.pool}/${ref.image}` : `${ref.pool} (image id ${ref.imageId})`;
  const out = await rbd(cli, ['snap', 'ls', '--format', 'json', ...(named ? ['--', spec] : ['--pool', ref.pool, '--image-id', ref.imageId])],
    `rbd snap ls ${spec}`, [0, ENOENT]);
  if (out.exitCode === ENOENT) return undefined;
  const parsed = JSON.parse(out.stdout) as { id?: number; name?: string; size?: number; protected?: string }[];
  return parsed.map((snap) => ({ id: Number(snap.id), name: String(snap.name), size: Number(snap.size ?? 0), protected: snap.protected === 'true' }));
}

/** `rbd image-meta get`: undefined when the key (or the image) is absent. */
export async function getRbdImageMeta(cli: CephCliOptions, ref: RbdImageRef, key: string): Promise<string | undefined> {
  const spec = `${ref.pool}/${ref.image}`;
  const out = await rbd(cli, ['image-meta', 'get', '--', spec, key], `rbd image-meta get ${spec} ${key}`, [0, ENOENT]);
  return out.exitCode === ENOENT ? undefined : out.stdout.trim();
}

export async function setRbdImageMeta(cli: CephCliOptions, ref: RbdImageRef, key: string, value: string): Promise<void> {
  const spec = `${ref.pool}/${ref.image}`;
  await rbd(cli, ['image-meta', 'set', '--', spec, key, value], `rbd image-meta set ${spec} ${key}`, [0]);
}

/** `rbd status`: how many clients have the image open (a live writer watches it). */
export async function countRbdWatchers(cli: CephCliOptions, ref: RbdImageRef): Promise<number> {
  const spec = `${ref.pool}/${ref.image}`;
  const out = await rbd(cli, ['status', '--format', 'json', '--', spec], `rbd status ${spec}`, [0, ENOENT]);
  if (out.exitCode === ENOENT) return 0;
  const parsed = JSON.parse(out.stdout) as { watchers?: unknown[] };
  return parsed.watchers?.length ?? 0;
}

/**
 * Remove an image ferry wrote and nothing was cloned from: unprotect `snapshot` (if protected), purge snapshots, rm.
 * Absent already → nothing to do. A watcher still open (a killed writer's, for up to ~30 s) makes rm fail: FERRY_CEPH.
 */
export async function removeRbdImage(cli: CephCliOptions, ref: RbdImageRef, snapshot: string): Promise<void> {
  const spec = `${ref.pool}/${ref.image}`;
  // EINVAL (22): not protected. ENOENT: no such snapshot or image.
  await rbd(cli, ['snap', 'unprotect', '--', `${spec}@${snapshot}`], `rbd snap unprotect ${spec}@${snapshot}`, [0, ENOENT, 22]);
  await rbd(cli, ['snap', 'purge', '--no-progress', '--', spec], `rbd snap purge ${spec}`, [0, ENOENT]);
  await rbd(cli, ['rm', '--no-progress', '--', spec], `rbd rm ${spec}`, [0, ENOENT]);
}

interface Exited { readonly exitCode: number; readonly stdout: string; readonly stderr: string }

async function rbd(options: CephCliOptions, args: readonly string[], shown: string, accepted: readonly number[]): Promise<Exited> {
  const o = resolveCephCliOptions(options);
  const timeout = String(cephTimeoutSeconds(o.connectTimeoutMs));
  const full = [...cephConnectionArgs(o), '--client-mount-timeout', timeout, '--rados-mon-op-timeout', timeout,
    '--rados-osd-op-timeout', timeout, ...args];
  const where = `${shown} (-c ${o.confFile}${o.user === undefined ? '' : ` --id ${o.user}`})`;
  const out = await o.runner.run(o.rbdBinary, full, { timeoutMs: o.timeoutMs, ...(o.signal ? { signal: o.signal } : {}) });
  if (out.outcome === 'aborted') throw new FerryError('FERRY_ABORTED', `${where} was interrupted`, 'Nothing to do: the operation was cancelled', { command: where });
  if (out.outcome === 'failed') {
    throw new FerryError('FERRY_CEPH', `could not run rbd: ${out.message}`, 'Install the Ceph client tools (Debian/Ubuntu: ceph-common)', { command: where });
  }
  if (out.outcome === 'timed-out') {
    throw new FerryError('FERRY_CEPH', `${where} did not finish within ${out.timeoutMs} ms and was killed`,
      'Check that this host reaches the mons of that cluster and that the cluster is healthy', { command: where, timeoutMs: out.timeoutMs });
  }
  const code = out.exitCode ?? -1;
  // ENOENT is only "absent" when rbd says so: it also exits 2 when it cannot connect at all.
  const absent = code === ENOENT && NOT_FOUND.test(cephMessage(out.stderr));
  if (code === 0 || (accepted.includes(code) && (code !== ENOENT || absent))) return { exitCode: code, stdout: out.stdout, stderr: out.stderr };
  throw new FerryError('FERRY_CEPH', `${where} failed (exit ${code}): ${cephMessage(out.stderr)}`,
    `Run the command by hand with -c ${o.confFile} --id ${o.user ?? 'admin'} to see the full error`,
    { command: where, exitCode: code, stderr: cephMessage(out.stderr) });
}
