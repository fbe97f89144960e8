import { FerryError } from '../errors/ferry-error.js';
import type { StoreOverview, StoreOverviewEntry } from '../glance/store-overview.js';
import type { CephCluster } from '../config/ceph-cluster.js';


export interface StoreProbeSources {
  /** The local cluster (--ceph-conf / nova.conf images_rbd_ceph_conf, --rbd-user / rbd_user): probes the local store. */
  readonly local?: CephCluster;
  /** `--probe-ceph-conf STORE=FILE`: other stores' clusters, reached with the same user. */
  readonly byStore?: ReadonlyMap<string, CephCluster>;
}

/**
 * How one store's health is found out: an `rbd ls` on its pool; only its cluster's mons when Glance did not name the
 * pool (`unchecked` says what that leaves open); or not at all (and why not).
 */
export type StoreProbePlan =
  | { readonly store: string; readonly probe: 'rbd'; readonly access: CephCluster; readonly pool: string;
      /** The store's cluster as Glance (≥ 30) reports it: the probed cluster must be that one. */
      readonly fsid?: string }
  | { readonly store: string; readonly probe: 'mons'; readonly access: CephCluster; readonly unchecked: string }
  | { readonly store: string; readonly probe: 'none'; readonly why: string };

/**
 * Which stores ferry can check and how (pure). Glance reports no per-store health (GET /v2/info/stores[/detail] list a
 * store whose backend is down like any other; /healthcheck is the API's own), so the only honest check is one this
 * host makes itself: an rbd store whose cluster it has a ceph.conf for. Everything else gets the reason it is not
 * checked, which `ferry stores` shows as `answers: null`. A `--probe-ceph-conf` naming a store Glance does not offer
 * is FERRY_STORE_NOT_FOUND; one naming a store that is not rbd is FERRY_INVALID_OPTION.
 */
export function planStoreProbes(overview: StoreOverview, sources: StoreProbeSources): readonly StoreProbePlan[] {
  const known = overview.stores.map((s) => s.id);
  for (const [store] of sources.byStore ?? []) {
    const entry = overview.stores.find((s) => s.id === store);
    if (entry === undefined) {
      throw new FerryError('FERRY_STORE_NOT_FOUND', `--probe-ceph-conf names store '${store}', which Glance does not offer`,
        `Glance's stores are: ${known.join(', ')}. Use one of them: --probe-ceph-conf STORE=FILE.`, { store, known });
    }
    if (entry.type !== undefined && entry.type !== 'rbd') {
      throw new FerryError('FERRY_INVALID_OPTION', `--probe-ceph-conf names store '${store}', which is a ${entry.type} store, not rbd`,
        'Only rbd stores are probed (with their ceph.conf); drop that --probe-ceph-conf.', { option: 'probe-ceph-conf', store, type: entry.type });
    }
  }
  return overview.stores.map((entry) => planOne(entry, overview, sources));
}

function planOne(entry: StoreOverviewEntry, overview: StoreOverview, sources: StoreProbeSources): StoreProbePlan {
  const store = entry.id;
  const none = (why: string): StoreProbePlan => ({ store, probe: 'none', why });
  const given = sources.byStore?.get(store);
  const access = given ?? (entry.local ? sources.local : undefined);
  if (entry.readOnly) return none('a read-only (http) store: Glance reports no per-store health, and ferry probes only rbd stores');
  if (entry.type !== undefined && entry.type !== 'rbd') {
    return none(`a ${entry.type} store: Glance reports no per-store health, and ferry probes only rbd stores (with their ceph.conf)`);
  }
  if (access === undefined) {
    if (entry.type === undefined) {
      return none('Glance reports no per-store health, and names store types and pools only in GET /v2/info/stores/detail (admin)');
    }
    return none(entry.local
      ? 'no ceph.conf for the local cluster: pass --ceph-conf FILE (or nova.conf [libvirt] images_rbd_ceph_conf) to probe it'
      : `no ceph.conf for this store's cluster here: pass --probe-ceph-conf ${store}=FILE to probe it`);
  }
  if (entry.pool === undefined) {
    const unchecked = `the pool was not checked (Glance names it only in GET /v2/info/stores/detail${overview.sourceWhy === undefined ? '' : `; ${overview.sourceWhy}`})`;
    return { store, probe: 'mons', access, unchecked };
  }
  return { store, probe: 'rbd', access, pool: entry.pool, ...(entry.fsid === undefined ? {} : { fsid: entry.fsid.toLowerCase() }) };
}

