import { FerryError } from '../../errors/ferry-error.js';
import type { CephCluster } from '../../config/ceph-cluster.js';
import { HALF_CREATED_WHY, halfCreatedFix, rbdCommandLine } from '../../rbd/leftover-image.js';
import type { RbdDiffFormatError } from '../../rbd/rbd-diff-stream.js';
import type { RbdStreamError } from '../../rbd/rbd-streams.js';
import type { ExpectedHash, RbdSourceCandidate } from './rbd-direct-plan.js';

// The direct RBD transfer's refusals and failures, worded once. Pure.

function rbdCommand(cluster: CephCluster): string {
  return rbdCommandLine(cluster.confFile, cluster.user);
}

export function notRawError(imageId: string, diskFormat: string | null): FerryError {
  return new FerryError('FERRY_NOT_CLONABLE', `image ${imageId} has disk_format ${diskFormat ?? '(unset)'}: the direct RBD transfer copies raw images only`,
    'Only raw images are cloned copy-on-write: convert it to raw (qemu-img convert -O raw) and upload it again, or use --transfer glance.',
    { imageId, diskFormat });
}

export function noSourceError(imageId: string, store: string, known: readonly string[], tried: readonly { store: string; error: string }[]): FerryError {
  const why = tried.length === 0
    ? `none of its rbd locations is in a cluster named by --source-ceph-conf (${known.length === 0 ? 'none given' : known.join(', ')})`
    : `no source cluster could be read: ${tried.map((t) => `${t.store}: ${t.error}`).join('; ')}`;
  return new FerryError('FERRY_RBD_SOURCE_UNREACHABLE', `cannot copy image ${imageId} to ${store} directly: ${why}`,
    'Name a cluster that holds the image with --source-ceph-conf STORE=PATH (its ceph.conf and a keyring readable by --source-rbd-user, '
    + 'caps: mon \'profile rbd\', osd \'profile rbd-read-only pool=images\'), check that its mons answer, or use --transfer auto / glance.',
    { imageId, store, sources: known, tried });
}

export function unverifiableError(imageId: string, store: string): FerryError {
  return new FerryError('FERRY_COPY_UNVERIFIABLE', `image ${imageId} has neither os_hash_value (with an algorithm this host knows) nor checksum: a direct copy to ${store} cannot be proven`,
    'Glance checks nothing of a location ferry adds, so ferry refuses to add one it cannot prove. Use --transfer glance (or auto) for this image.',
    { imageId, store });
}

export function hashMismatchError(imageId: string, store: string, reason: string, expected: ExpectedHash): FerryError {
  return new FerryError('FERRY_COPY_HASH_MISMATCH', `the direct copy of image ${imageId} to ${store} does not match Glance's hash: ${reason}`,
    'Nothing was registered and the written copy was removed. Check the source image (rbd export … | sha512sum) against Glance\'s '
    + 'os_hash_value; if the source is damaged, re-upload the image. Run ferry again, or use --transfer glance.',
    { imageId, store, algorithm: expected.algorithm, field: expected.field, expected: expected.value });
}

export function sourceLostError(imageId: string, source: RbdSourceCandidate, store: string, stream: RbdStreamError): FerryError {
  return new FerryError('FERRY_RBD_SOURCE_LOST',
    `the source of image ${imageId} (${source.store}: ${source.location.pool}/${source.location.image}@${source.location.snapshot}) went away `
    + `during the direct copy to ${store}: ${stream.message}`,
    `Nothing was registered; the partial copy is removed on the next run. Check the source cluster (${rbdCommand(source.cluster)} info `
    + `${source.location.pool}/${source.location.image}@${source.location.snapshot}), then run ferry again.`,
    { imageId, store, source: source.store, exitCode: stream.failure.exitCode, stderr: stream.failure.message });
}

export function targetWriteError(imageId: string, store: string, target: CephCluster, stream: RbdStreamError): FerryError {
  return new FerryError('FERRY_CEPH', `writing image ${imageId} into ${store} failed: ${stream.message}`,
    `Check the target cluster and client.${target.user ?? 'admin'}'s caps (osd 'profile rbd pool=…' on the target pool): ${rbdCommand(target)} ls`,
    { imageId, store, exitCode: stream.failure.exitCode, stderr: stream.failure.message });
}

/** What holds the final name: an image ferry did not mark, one marked that did not prove, or a half-created one. */
export type FinalNameHolder =
  | { readonly kind: 'foreign' }
  | { readonly kind: 'unproven'; readonly reason: string }
  | { readonly kind: 'half-created' };

export function targetExistsError(imageId: string, store: string, pool: string, target: CephCluster, holder: FinalNameHolder = { kind: 'foreign' }): FerryError {
  const rbd = rbdCommand(target);
  if (holder.kind === 'half-created') {
    return new FerryError('FERRY_COPY_TARGET_EXISTS',
      `cannot copy ${imageId} to ${store} directly: the pool already holds a half-created RBD image ${pool}/${imageId} ${HALF_CREATED_WHY}`,
      halfCreatedFix(rbd, pool, imageId),
      { imageId, store, pool, rbdImage: imageId, halfCreated: true, outcome: 'failed' });
  }
  const what = holder.kind === 'unproven'
    ? `that carries ferry's verified mark but does not prove to be this image (${holder.reason}): anyone who may write the pool can set the mark`
    : 'that ferry did not verify (a partial copy left by a crash?)';
  return new FerryError('FERRY_COPY_TARGET_EXISTS',
    `cannot copy ${imageId} to ${store} directly: the pool already holds an RBD image ${pool}/${imageId} that no Glance location points to `
    + `and ${what}`,
    `ferry never removes an image under the image's own name (Glance may own it). Find out who wrote it; check that nothing was cloned from it (${rbd} children --all ${pool}/${imageId}@snap), `
    + `remove it (${rbd} snap purge ${pool}/${imageId}; ${rbd} rm ${pool}/${imageId}), then run ferry again.`,
    { imageId, store, pool, rbdImage: imageId, outcome: 'failed', ...(holder.kind === 'unproven' ? { unproven: holder.reason } : {}) });
}

/** A copy found with the mark could not be read back (the target cluster failed the read): nothing registered. */
export function readBackError(imageId: string, store: string, spec: string, target: CephCluster, stream: RbdStreamError): FerryError {
  return new FerryError('FERRY_CEPH', `reading back ${spec} in ${store} to prove it for image ${imageId} failed: ${stream.message}`,
    `Nothing was registered. Check the target cluster (${rbdCommand(target)} export ${spec} - | sha512sum), then run ferry again.`,
    { imageId, store, rbdImage: spec, exitCode: stream.failure.exitCode, stderr: stream.failure.message });
}

/** export-diff wrote something ferry cannot read as an rbd diff v1 stream: nothing of it is kept or registered. */
export function malformedStreamError(imageId: string, source: RbdSourceCandidate, store: string, format: RbdDiffFormatError): FerryError {
  const spec = `${source.location.pool}/${source.location.image}@${source.location.snapshot}`;
  return new FerryError('FERRY_CEPH', `the export-diff stream of ${spec} (${source.store}) for the direct copy of image ${imageId} to ${store} is malformed: ${format.message}`,
    `Nothing was registered and the partial copy was removed. Check the source's rbd client (${rbdCommand(source.cluster)} export-diff ${spec} - | head -c 12 `
    + 'prints "rbd diff v1"), or use --transfer glance.', { imageId, store, source: source.store, at: format.at });
}

/** Glance's image id is not a name ferry gives rbd (it names the copy): never seen from a real Glance, whose ids are UUIDs. */
export function imageIdUnsafeError(imageId: string, problem: string): FerryError {
  return new FerryError('FERRY_BAD_RESPONSE', `cannot copy image ${JSON.stringify(imageId)} directly: its id names the RBD copy, and the ${problem}`,
    'Glance image ids are UUIDs: check which service answers as Glance (the catalog\'s image endpoint), or use --transfer glance.', { imageId });
}

export function targetPoolUnknownError(imageId: string, store: string, why: string): FerryError {
  return new FerryError('FERRY_RBD_TARGET_POOL_UNKNOWN', `cannot copy image ${imageId} to ${store} directly: its pool is not known (${why})`,
    'The direct transfer writes into the pool of the target store\'s Glance rbd store, which Glance names only to admins in '
    + 'GET /v2/info/stores/detail: run ferry with an admin credential (check with `ferry stores --json`: "pool" per store), '
    + 'or use --transfer auto / glance.', { imageId, store });
}
