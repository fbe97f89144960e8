import { FerryError, isFerryError } from '../errors/ferry-error.js';
import type { GlanceClient } from '../glance/glance-client.js';

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
 * The stores Glance offers, with their types when the caller may read `/v2/info/stores/detail` (admin; Glance ≥ 24).
 * A refusal (403) or an older Glance (404) falls back to `/v2/info/stores`, which everyone may read.
 */
export async function readStoreCatalogue(glance: GlanceClient, signal?: AbortSignal): Promise<StoreCatalogue> {
  try {
    const detail = await glance.getStoresDetail({ signal });
    return catalogue(detail.stores, true);
  } catch (error) {
    const status = isFerryError(error) ? error.details.status : undefined;
    if (!(isFerryError(error, 'FERRY_FORBIDDEN') || status === 403 || status === 404)) throw error;
  }
  const info = await glance.getStoresInfo({ signal });
  return catalogue(info.stores, false);
}

function catalogue(stores: readonly { id: string; type: string | undefined; readOnly: boolean; isDefault: boolean }[], typesKnown: boolean): StoreCatalogue {
  return Object.freeze({
    stores: Object.freeze(stores.map((s) => Object.freeze({ id: s.id, type: typesKnown ? s.type : undefined, readOnly: s.readOnly, isDefault: s.isDefault }))),
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
