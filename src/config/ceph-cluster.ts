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
