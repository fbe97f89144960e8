import { getHashes } from 'node:crypto';
import type { GlanceImage } from '../../glance/image.js';
import type { GlanceStoresInfo } from '../../glance/image-store-info.js';
import { hasStore } from '../../glance/image.js';
import type { CephCluster } from '../../config/ceph-cluster.js';
import { parseRbdLocation, type RbdLocation } from '../../rbd/parse-rbd-location.js';
import { rbdLocationNameProblem, rbdNameProblem } from '../../rbd/rbd-names.js';

// The direct RBD transfer's decisions, as pure functions over what its steps read. rbd-direct.ts does the I/O.


/** Where the bytes may come from: one rbd location of the image in a cluster ferry may read. */
export interface RbdSourceCandidate {
  readonly store: string;
  readonly location: RbdLocation;
  readonly cluster: CephCluster;
}

/**
 * The image's rbd locations in clusters named by --source-ceph-conf, in Glance's location order, never the target
 * store itself. Empty: no source cluster is known for this image (FERRY_RBD_SOURCE_UNREACHABLE, or Glance in auto).
 */
export function planRbdSources(image: Pick<GlanceImage, 'locations'>, sources: ReadonlyMap<string, CephCluster>, target: string): RbdSourceCandidate[] {
  const candidates: RbdSourceCandidate[] = [];
  for (const location of image.locations ?? []) {
    if (location.store === undefined || location.store === target) continue;
    const cluster = sources.get(location.store);
    const parsed = parseRbdLocation(location.url);
    if (cluster === undefined || !parsed.ok) continue;
    candidates.push({ store: location.store, location: parsed.location, cluster });
  }
  return candidates;
}

/** The direct transfer's default: copies at once per source cluster and per target store (directCopySlotKeys). */
export const DIRECT_COPIES_PER_CLUSTER = 2;

/**
 * The keyed limiter's slots one batch takes: its source cluster (by the fsid its location names, which the source's
 * cluster was checked to have: two stores of one cluster share its slots) and each target store.
 */
export function directCopySlotKeys(source: Pick<RbdSourceCandidate, 'location'>, targetStores: readonly string[]): string[] {
  return [`source:${source.location.fsid.toLowerCase()}`, ...targetStores.map((store) => `target:${store}`)];
}

/** The name ferry writes under until the copy is proven; fixed per image so a later run finds an earlier one's leftover. */
export function temporaryImageName(imageId: string): string {
  return `${imageId}.ferry-partial`;
}

/**
 * The image-meta key ferry sets on a copy it verified, before the rename. A hint only ("maybe ours, worth proving"):
 * anyone who may write the pool can set it, so a copy found with it is read back and proven before it is used.
 */
export const VERIFIED_META_KEY = 'ferry.verified';

/** The hash a copy must match: os_hash_algo/os_hash_value when this Node knows the algorithm, else the md5 checksum. */
export interface ExpectedHash {
  readonly algorithm: string;
  readonly value: string;
  readonly field: 'os_hash_value' | 'checksum';
}

export function expectedHash(image: Pick<GlanceImage, 'raw'>, known: readonly string[] = getHashes()): ExpectedHash | undefined {
  const algo = image.raw.os_hash_algo;
  const value = image.raw.os_hash_value;
  if (typeof algo === 'string' && typeof value === 'string' && value !== '' && known.includes(algo.toLowerCase())) {
    return { algorithm: algo.toLowerCase(), value: value.toLowerCase(), field: 'os_hash_value' };
  }
  const checksum = image.raw.checksum;
  if (typeof checksum === 'string' && checksum !== '') return { algorithm: 'md5', value: checksum.toLowerCase(), field: 'checksum' };
  return undefined;
}

/** The image-meta value that marks a verified copy (compared as a whole on a later run). */
export function verifiedMark(hash: ExpectedHash): string {
  return `${hash.algorithm}:${hash.value}`;
}

export type VerifyVerdict =
  | { readonly kind: 'match' }
  | { readonly kind: 'mismatch'; readonly reason: string };

/** Read-back verdict: the whole snapshot's bytes, hashed, against Glance's hash and size. */
export function judgeReadBack(expected: ExpectedHash, actual: { readonly digest: string; readonly bytes: number }, size: number | null): VerifyVerdict {
  if (size !== null && actual.bytes !== size) {
    return { kind: 'mismatch', reason: `read ${actual.bytes} bytes back, Glance says the image has ${size}` };
  }
  if (actual.digest.toLowerCase() !== expected.value) {
    return { kind: 'mismatch', reason: `${expected.algorithm} of the copy is ${actual.digest}, Glance's ${expected.field} is ${expected.value}` };
  }
  return { kind: 'match' };
}

/** Glance's import lock writes (or may write: its stores are not known yet) our store: join it, never race it. */
export function glanceWritesStore(image: Pick<GlanceImage, 'importTask' | 'importingTo' | 'stores'>, store: string): boolean {
  if (image.importTask === undefined || hasStore(image.stores, store)) return false;
  return image.importingTo.length === 0 || hasStore(image.importingTo, store);
}

/**
 * What keeps the direct transfer off a store now: it is there (`present`), or Glance's import writes it (`busy`: joined,
 * never raced), unless that import holds the expired lock this round ignores.
 */
export function storeBlockedBy(image: Pick<GlanceImage, 'importTask' | 'importingTo' | 'stores'>, store: string,
  ignoredLock: string | undefined): 'busy' | 'present' | undefined {
  if (hasStore(image.stores, store)) return 'present';
  if (image.importTask !== ignoredLock && glanceWritesStore(image, store)) return 'busy';
  return undefined;
}

/** Where a target store's copy goes: the pool Glance's rbd store writes (never the source location's pool). */
export type TargetPool =
  | { readonly kind: 'known'; readonly pool: string }
  | { readonly kind: 'unknown'; readonly why: string };

/**
 * The target store's pool from Glance's `GET /v2/info/stores/detail` (`properties.pool` of an rbd store, shown to
 * admins only). `stores` undefined: /detail could not be read, `unread` says why.
 */
export function targetPoolOf(stores: GlanceStoresInfo | undefined, unread: string | undefined, store: string): TargetPool {
  if (stores === undefined) return { kind: 'unknown', why: `GET /v2/info/stores/detail could not be read (${unread ?? 'no answer'})` };
  const entry = stores.stores.find((candidate) => candidate.id === store);
  if (entry === undefined) return { kind: 'unknown', why: `Glance has no store '${store}' (its stores: ${stores.stores.map((s) => s.id).join(', ')})` };
  if (entry.type !== undefined && entry.type !== 'rbd') return { kind: 'unknown', why: `store ${store} is a ${entry.type} store, not rbd` };
  if (entry.pool === undefined || entry.pool === '') return { kind: 'unknown', why: `GET /v2/info/stores/detail names no pool for store ${store}` };
  const problem = rbdNameProblem('pool', entry.pool);
  if (problem !== undefined) return { kind: 'unknown', why: `the pool Glance names for store ${store} is not one ferry gives rbd: ${problem}` };
  return { kind: 'known', pool: entry.pool };
}

/**
 * Why a source candidate is not read, or undefined: its location's names are not ones ferry gives rbd, or its pool is
 * not the pool of the store it is tagged with (a location anyone may have written, naming another pool of that
 * cluster: ferry reads only where the store's own images are). `stores`: GET /v2/info/stores/detail.
 */
export function sourceCandidateProblem(candidate: Pick<RbdSourceCandidate, 'store' | 'location'>, stores: GlanceStoresInfo): string | undefined {
  const names = rbdLocationNameProblem(candidate.location);
  if (names !== undefined) return `its location is not one ferry gives rbd: ${names}`;
  const pool = targetPoolOf(stores, undefined, candidate.store);
  if (pool.kind === 'unknown') return `its store's pool is not known (${pool.why})`;
  if (pool.pool !== candidate.location.pool) {
    return `the location is in pool ${candidate.location.pool}, but Glance's store ${candidate.store} writes pool ${pool.pool}`;
  }
  return undefined;
}
