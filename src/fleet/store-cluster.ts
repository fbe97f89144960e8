import type { CephCluster } from '../rbd/ceph-cluster.js';

/** The cluster and pool a store's copies live in, and who may read (and, to evict, write image-meta in) it. */
export interface StoreCluster extends CephCluster {
  /** The store's pool; default: Glance's stores/detail, else the pool its locations name. */
  readonly pool?: string | undefined;
}

/** What the flags and the configuration say of a store's cluster (--ceph-conf or nova.conf, --rbd-user, --pool). */
export interface StoreClusterFlags {
  readonly confFile?: string | undefined;
  readonly user?: string | undefined;
  readonly pool?: string | undefined;
}

/**
 * The one builder of a store's cluster: the policy's (its `stores:` entry) when it names one, --pool still choosing
 * the pool; else the flags' and configuration's; undefined when neither names a ceph.conf.
 */
export function buildStoreCluster(policy: StoreCluster | undefined, flags: StoreClusterFlags & { readonly confFile: string }): StoreCluster;
export function buildStoreCluster(policy: StoreCluster | undefined, flags: StoreClusterFlags): StoreCluster | undefined;
export function buildStoreCluster(policy: StoreCluster | undefined, flags: StoreClusterFlags): StoreCluster | undefined {
  if (policy !== undefined) return Object.freeze({ ...policy, ...(flags.pool === undefined ? {} : { pool: flags.pool }) });
  return flags.confFile === undefined ? undefined : Object.freeze({ confFile: flags.confFile, user: flags.user, pool: flags.pool });
}
