import pLimit from 'p-limit';
import { isFerryError } from '../errors/ferry-error.js';
import type { CallOptions, PlacementClient } from '../placement/placement-client.js';

export interface ProviderNameOptions {
  /** Up to this many UUIDs are looked up one by one; more take one listing of every provider. */
  readonly maxLookups?: number;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Placement 8.0.0 (wsgiref) serves one request at a time; a few in flight keep its queue short without idling it.
 * `maxLookups` bounds the requests for names: at most that many GETs, else a single listing.
 */
export const PROVIDER_LOOKUP_DEFAULTS = { concurrency: 4, maxLookups: 10 } as const;

/**
 * The names of providers known by UUID (allocation candidates carry none): one `GET /resource_providers/{uuid}` each
 * for a few, one `GET /resource_providers` for many, so the number of requests stays bounded either way. A provider
 * deleted in the meantime has no entry.
 */
export async function readProviderNames(placement: PlacementClient, uuids: readonly string[],
  options: ProviderNameOptions = {}): Promise<ReadonlyMap<string, string>> {
  const call: CallOptions = { signal: options.signal };
  const wanted = [...new Set(uuids)];
  if (wanted.length === 0) return new Map();
  if (wanted.length > (options.maxLookups ?? PROVIDER_LOOKUP_DEFAULTS.maxLookups)) {
    const all = await placement.listProviders({}, call);
    const set = new Set(wanted);
    return new Map(all.filter((provider) => set.has(provider.uuid)).map((provider) => [provider.uuid, provider.name]));
  }
  const limit = pLimit(PROVIDER_LOOKUP_DEFAULTS.concurrency);
  const found = await Promise.all(wanted.map((uuid) => limit(async () => {
    try {
      return [uuid, (await placement.getProvider(uuid, call)).name] as const;
    } catch (error) {
      if (isFerryError(error, 'FERRY_PROVIDER_NOT_FOUND')) return undefined;
      throw error;
    }
  })));
  return new Map(found.filter((entry) => entry !== undefined));
}
