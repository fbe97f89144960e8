import type { CephCluster } from './ceph-cluster.js';
import type { CopyPolicy } from './copy-policy.js';

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
