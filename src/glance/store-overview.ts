import { systemClock, type Clock } from '../clock/clock.js';
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
  /** Why /detail did not answer, when the plain list was used instead. */
  readonly sourceWhy?: string | undefined;
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

export interface ReadStoreOverviewOptions {
  readonly signal?: AbortSignal;
  /**
   * How long /detail may take before the plain list is used instead. Glance answers /detail by re-configuring every
   * rbd store (glance_store's rbd driver is not reusable), which connects to its cluster: a cluster whose mons do not
   * answer holds the answer for Glance's client_mount_timeout (Ceph's default 300 s), and it still ends in 200 with
   * the same body. Default: no limit other than the HTTP request timeout.
   */
  readonly detailTimeoutMs?: number;
  readonly clock?: Clock;
}

/**
 * /v2/info/stores/detail when the caller may read it (admin, Glance ≥ 24) and it answers in time, else the plain list
 * (403/404 or the detail deadline fall back; `sourceWhy` says which).
 */
export async function readStoreOverview(glance: GlanceClient, local: LocalIdentity, options: ReadStoreOverviewOptions = {}): Promise<StoreOverview> {
  const { signal, detailTimeoutMs } = options;
  const timer = detailTimeoutMs === undefined ? undefined : (options.clock ?? systemClock).timer(detailTimeoutMs);
  const detailSignal = timer === undefined ? signal : signal === undefined ? timer.signal : AbortSignal.any([signal, timer.signal]);
  let sourceWhy: string;
  try {
    return storeOverview(await glance.getStoresDetail({ signal: detailSignal }), 'GET /v2/info/stores/detail', local);
  } catch (error) {
    const status = isFerryError(error) ? error.details.status : undefined;
    if (timer?.signal.aborted === true && signal?.aborted !== true) {
      sourceWhy = `GET /v2/info/stores/detail did not answer within ${Math.round((detailTimeoutMs ?? 0) / 100) / 10} s (Glance connects to `
        + "every rbd store's cluster to answer it, and waits out its client_mount_timeout for one whose mons do not answer)";
    } else if (isFerryError(error, 'FERRY_FORBIDDEN') || status === 403) {
      sourceWhy = 'GET /v2/info/stores/detail is admin-only (403)';
    } else if (status === 404) {
      sourceWhy = 'GET /v2/info/stores/detail is not there (404: Glance < 24)';
    } else {
      throw error;
    }
  } finally {
    timer?.clear();
  }
  return Object.freeze({ ...storeOverview(await glance.getStoresInfo({ signal }), 'GET /v2/info/stores', local), sourceWhy });
}
