import { buildCephCluster } from '../config/build-ceph-cluster.js';
import type { CephCluster } from '../config/ceph-cluster.js';

/** The cluster and pool a store's copies live in, and who may read (and, to evict, write image-meta in) it. */
export interface StoreCluster extends CephCluster {
  /** The store's pool; default: Glance's stores/detail, else the pool its locations name. */
  readonly pool?: string | undefined;
}

/**
 * The one builder of a store's cluster: the policy's (its `stores:` entry) when it names one, else the configured one
 * (buildCephCluster: --ceph-conf and --rbd-user, or nova.conf's); `pool` (--pool) chooses the pool over the policy's.
 * Undefined when neither names a ceph.conf.
 */
export function buildStoreCluster(policy: StoreCluster | undefined, configured: Partial<CephCluster> & { readonly confFile: string }, pool?: string): StoreCluster;
export function buildStoreCluster(policy: StoreCluster | undefined, configured: Partial<CephCluster>, pool?: string): StoreCluster | undefined;
export function buildStoreCluster(policy: StoreCluster | undefined, configured: Partial<CephCluster>, pool?: string): StoreCluster | undefined {
  const cluster = policy ?? buildCephCluster(configured);
  return cluster === undefined ? undefined : Object.freeze({ ...cluster, ...(pool === undefined ? {} : { pool }) });
}
