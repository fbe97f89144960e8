import type { Clock } from '../clock/clock.js';
import { FerryError } from '../errors/ferry-error.js';
import type { GlanceClient } from '../glance/glance-client.js';
import { readStoreOverview } from '../glance/store-overview.js';

/** What the planner needs to know about one Glance store. */
export interface StoreFacts {
  readonly id: string;
  /** `rbd`, `file`, … from `/v2/info/stores/detail` (admin only); undefined when Glance would not say. */
  readonly type: string | undefined;
  /** http stores: never a copy target. */
  readonly readOnly: boolean;
  readonly isDefault: boolean;
}

export interface StoreCatalogue {
  readonly stores: readonly StoreFacts[];
  /** False when only `/v2/info/stores` was readable: store types are then unknown. */
  readonly typesKnown: boolean;
}

/**
 * How long `/v2/info/stores/detail` may take. Glance answers it by connecting to every rbd store's cluster; with one
 * cluster's mons down it holds the answer for its client_mount_timeout (Ceph's default: 300 s) and then still answers
 * 200 with the same body. Past this the plain list is used and store types are unknown.
 */
export const STORE_DETAIL_TIMEOUT_MS = 10_000;

export interface ReadStoreCatalogueOptions {
  readonly detailTimeoutMs?: number;
  readonly clock?: Clock;
}

/**
 * The stores Glance offers, with their types when the caller may read `/v2/info/stores/detail` (admin; Glance ≥ 24)
 * and it answers in time. A refusal (403), an older Glance (404) or the deadline fall back to `/v2/info/stores`, which
 * everyone may read (readStoreOverview, the one reader of both, as `ferry stores` uses it).
 */
export async function readStoreCatalogue(glance: GlanceClient, signal?: AbortSignal, options: ReadStoreCatalogueOptions = {}): Promise<StoreCatalogue> {
  const overview = await readStoreOverview(glance, {}, { ...(signal ? { signal } : {}),
    detailTimeoutMs: options.detailTimeoutMs ?? STORE_DETAIL_TIMEOUT_MS, ...(options.clock ? { clock: options.clock } : {}) });
  const typesKnown = overview.source === 'GET /v2/info/stores/detail';
  return Object.freeze({
    stores: Object.freeze(overview.stores.map((s) => Object.freeze({ id: s.id, type: typesKnown ? s.type : undefined, readOnly: s.readOnly,
      isDefault: s.isDefault }))),
    typesKnown,
  });
}

/**
 * The requested stores, each once, in the order given (Glance writes them in request order). An unknown store is
 * an operator's typo: refused before any copy, naming the stores there are.
 */
export function requireStores(catalogue: StoreCatalogue, requested: readonly string[], origin = '--store'): readonly StoreFacts[] {
  if (requested.length === 0) {
    throw new FerryError('FERRY_INVALID_OPTION', 'no target store given',
      `Name at least one store (${origin} NAME); Glance has: ${catalogue.stores.map((s) => s.id).join(', ')}.`);
  }
  const unique = [...new Set(requested)];
  const unknown = unique.filter((id) => !catalogue.stores.some((s) => s.id === id));
  if (unknown.length > 0) {
    throw new FerryError('FERRY_STORE_NOT_FOUND', `Glance has no store ${unknown.map((id) => `'${id}'`).join(', ')}`,
      `Glance's stores are: ${catalogue.stores.map((s) => s.id).join(', ')} (GET /v2/info/stores). Check ${origin}.`,
      { unknown, known: catalogue.stores.map((s) => s.id) });
  }
  return Object.freeze(unique.flatMap((id) => catalogue.stores.filter((s) => s.id === id)));
}
