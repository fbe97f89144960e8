import { FerryError, isFerryError } from '../errors/ferry-error.js';
import type { GlanceClient } from './glance-client.js';
import type { GlanceStoresInfo } from './image-store-info.js';

/** One Glance store as `ferry stores` shows it. */
export interface StoreOverviewEntry {
  readonly id: string;
  readonly description: string | undefined;
  readonly isDefault: boolean;
  /** `read-only` (http stores): Glance can read images there but never copy into it. */
  readonly readOnly: boolean;
  /** From /v2/info/stores/detail (admin); undefined when only /v2/info/stores was readable. */
  readonly type: string | undefined;
  readonly pool: string | undefined;
  /** rbd stores, Glance ≥ 30.0.0: the store's Ceph cluster. */
  readonly fsid: string | undefined;
  /** Whether this is the store of this host's cluster, and why (or why not). */
  readonly local: boolean;
  readonly localWhy: string | undefined;
}

export interface StoreOverview {
  readonly stores: readonly StoreOverviewEntry[];
  /** Which endpoint answered: /detail (types, pools) or the plain list everyone may read. */
  readonly source: 'GET /v2/info/stores/detail' | 'GET /v2/info/stores';
  /** The local store's id, when one was found. */
  readonly local: string | undefined;
}

export interface LocalIdentity {
  /** The configured local store (--store, FERRY_STORE, nova's images_rbd_glance_store_name). */
  readonly store?: string;
  /** The local cluster's fsid (--fsid, FERRY_FSID), matched against Glance's `properties.fsid` (Glance ≥ 30). */
  readonly fsid?: string;
}

/**
 * Which store is local, decided from the list alone: the configured store by its exact id (never a substring, unlike
 * nova), else the rbd store whose fsid Glance reports equal to the local cluster's. A configured store Glance does not
 * offer is an error naming the stores there are.
 */
export function storeOverview(info: GlanceStoresInfo, source: StoreOverview['source'], local: LocalIdentity): StoreOverview {
  if (local.store !== undefined && !info.stores.some((s) => s.id === local.store)) {
    throw new FerryError('FERRY_STORE_NOT_FOUND', `Glance has no store '${local.store}' (the configured local store)`,
      `Glance's stores are: ${info.stores.map((s) => s.id).join(', ')}. Check --store / FERRY_STORE / images_rbd_glance_store_name.`,
      { store: local.store, known: info.stores.map((s) => s.id) });
  }
  const fsid = local.fsid?.toLowerCase();
  const stores = info.stores.map((s): StoreOverviewEntry => {
    const byStore = local.store !== undefined && s.id === local.store;
    const byFsid = local.store === undefined && fsid !== undefined && s.fsid?.toLowerCase() === fsid;
    return Object.freeze({ id: s.id, description: s.description, isDefault: s.isDefault, readOnly: s.readOnly, type: s.type, pool: s.pool,
      fsid: s.fsid, local: byStore || byFsid,
      localWhy: byStore ? 'the configured store' : byFsid ? `Glance reports its cluster fsid ${s.fsid ?? ''}, the local cluster's` : undefined });
  });
  return Object.freeze({ stores: Object.freeze(stores), source, local: stores.find((s) => s.local)?.id });
}

/** /v2/info/stores/detail when the caller may read it (admin, Glance ≥ 24), else the plain list (403/404 fall back). */
export async function readStoreOverview(glance: GlanceClient, local: LocalIdentity, signal?: AbortSignal): Promise<StoreOverview> {
  try {
    return storeOverview(await glance.getStoresDetail({ signal }), 'GET /v2/info/stores/detail', local);
  } catch (error) {
    const status = isFerryError(error) ? error.details.status : undefined;
    if (!(isFerryError(error, 'FERRY_FORBIDDEN') || status === 403 || status === 404)) throw error;
  }
  return storeOverview(await glance.getStoresInfo({ signal }), 'GET /v2/info/stores', local);
}
