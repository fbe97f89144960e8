import type { CopyPolicy } from './copy-policy.js';

/**
 * A Ceph cluster ferry can reach: its ceph.conf and the cephx user it logs in as. The one shape of it: the local
 * cluster as configured (FerryConfig.ceph: a Partial, since its ceph.conf may be left to librados' own lookup), a
 * store's cluster (fleet/store-cluster.ts), a pool's (store-copies.ts), a transfer's source or target, the ceph CLI's
 * and librbd's. It lives in config/, below rbd/, because the configuration names it first. Every one is made by
 * buildCephCluster (or spread from one it made, adding a pool or a resolved fsid).
 */
export interface CephCluster {
  /** The cluster's ceph.conf (`-c`); nova.conf `[libvirt] images_rbd_ceph_conf`. */
  readonly confFile: string;
  /** cephx id without `client.` (`--id`); undefined: the CLI's and librados' own default (`admin`). */
  readonly user?: string | undefined;
  /** The cluster's fsid when the caller resolved it already (ensure: the local cluster's): it is not asked again. */
  readonly fsid?: string | undefined;
}

/** What names a cluster ferry reaches: the configuration's `ceph` section, a policy's `stores:` entry, a STORE=FILE flag. */
type NamedCephCluster = Pick<Partial<CephCluster>, 'confFile' | 'user'>;

/**
 * The one builder of a CephCluster, from what names it: the configuration (config.ceph: --ceph-conf / --rbd-user >
 * FERRY_CEPH_CONF / FERRY_RBD_USER > nova.conf's images_rbd_ceph_conf / rbd_user, chosen by resolveConfig), a sync
 * policy's `stores:` entry (ceph_conf, rbd_user), --probe-ceph-conf or --source-ceph-conf. Undefined when no ceph.conf
 * is named: ferry points every child at a file, never at librados' default lookup. The fsid stays out: --fsid names
 * the local cluster for classification (resolveLocalCluster), and a caller that resolved an fsid adds it itself.
 */
export function buildCephCluster(named: NamedCephCluster & { readonly confFile: string }): CephCluster;
export function buildCephCluster(named: NamedCephCluster): CephCluster | undefined;
export function buildCephCluster(named: NamedCephCluster): CephCluster | undefined {
  if (named.confFile === undefined) return undefined;
  return Object.freeze({ confFile: named.confFile, ...(named.user === undefined ? {} : { user: named.user }) });
}

/**
 * The clusters the direct transfer may read (--source-ceph-conf STORE=FILE): Glance store id → its cluster, reached
 * as --source-rbd-user, else as `localUser` (the local --rbd-user).
 */
export function sourceClusters(policy: Pick<CopyPolicy, 'sourceCephConfs' | 'sourceRbdUser'>, localUser: string | undefined): Map<string, CephCluster> {
  const user = policy.sourceRbdUser ?? localUser;
  return new Map(Object.entries(policy.sourceCephConfs).map(([store, confFile]) => [store, buildCephCluster({ confFile, user })] as const));
}
