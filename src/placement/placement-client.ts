import type { ServiceClient, ServiceRequest, ServiceResponse } from '../openstack/service-client.js';
import { parseAllocationCandidates, type AllocationCandidates } from './allocation-candidates.js';
import {
  formatMicroversion, negotiateMicroversion, parsePlacementRoot, PLACEMENT_VERB_MICROVERSIONS, requireMicroversion,
  type Microversion, type PlacementRoot,
} from './negotiate-microversion.js';
import {
  placementErrorCode, placementForbidden, placementHttpError, providerNotFound, traitsRefused, unknownTraitsIn,
} from './placement-refusal.js';
import {
  parseProviderInventories, parseProviderUsages, type ProviderInventories, type ProviderUsages,
} from './provider-inventory.js';
import {
  parseProviderTraits, parseResourceProvider, parseResourceProviderList, parseTraitList,
  type ProviderTraits, type ResourceProvider,
} from './resource-provider.js';

export interface CallOptions {
  readonly signal?: AbortSignal | undefined;
}

export interface TraitListQuery {
  /** `startswith:COMPUTE_IMAGE_TYPE_` or `in:A,B,C` (unknown names are silently left out of the answer). */
  readonly name?: `startswith:${string}` | `in:${string}`;
  /** true: only traits some provider has; false: only traits no provider has. */
  readonly associated?: boolean;
}

/** Filters of `GET /resource_providers`; all given ones must hold (AND). */
export interface ProviderListQuery {
  readonly name?: string;
  /** Traits the provider itself must have; `!NAME` forbids one (1.22). Needs 1.18. */
  readonly required?: readonly string[];
  /** `VCPU:1,MEMORY_MB:512`: providers whose own inventory has room for these amounts now. */
  readonly resources?: string;
  /** Only providers in the tree of this provider UUID (1.14). */
  readonly inTree?: string;
}

/** The answer to a trait update: done, or someone else changed the provider since its generation was read. */
export type SetTraitsResult =
  | ({ readonly kind: 'updated' } & ProviderTraits)
  | { readonly kind: 'conflict'; readonly message: string; readonly requestId: string | undefined };

/** Placement, one request per verb (plus one `GET /` per client for the microversion). */
export interface PlacementClient {
  /** `GET /`: the microversions the server speaks. */
  getRoot(call?: CallOptions): Promise<PlacementRoot>;
  /** The microversion every other verb is sent with: min(ferry's 1.39, the server's max); asked once per client. */
  microversion(call?: CallOptions): Promise<Microversion>;
  /** `GET /traits`, sorted. */
  listTraits(query?: TraitListQuery, call?: CallOptions): Promise<readonly string[]>;
  /** FERRY_PROVIDER_NOT_FOUND when there is none. */
  getProvider(uuid: string, call?: CallOptions): Promise<ResourceProvider>;
  /** `GET /resource_providers?…`: every provider matching all the filters (none: every provider). */
  listProviders(query?: ProviderListQuery, call?: CallOptions): Promise<readonly ResourceProvider[]>;
  /** `GET /resource_providers/{uuid}/inventories`; FERRY_PROVIDER_NOT_FOUND when there is none. */
  getProviderInventories(uuid: string, call?: CallOptions): Promise<ProviderInventories>;
  /** `GET /resource_providers/{uuid}/usages`; FERRY_PROVIDER_NOT_FOUND when there is none. */
  getProviderUsages(uuid: string, call?: CallOptions): Promise<ProviderUsages>;
  /** Provider names are unique in Placement: at most one. */
  findProviderByName(name: string, call?: CallOptions): Promise<ResourceProvider | undefined>;
  getProviderTraits(uuid: string, call?: CallOptions): Promise<ProviderTraits>;
  /** Replaces the provider's whole trait set if `generation` is still current; a 409 comes back as `conflict`. */
  setProviderTraits(uuid: string, generation: number, traits: readonly string[], call?: CallOptions): Promise<SetTraitsResult>;
  /**
   * `GET /allocation_candidates?<query>` (query as built by prefilter/, without the `?`). `minMicroversion` is what the
   * query needs (`1.39` for `in:`); the call fails before sending when the server is older.
   */
  allocationCandidates(query: string, call?: CallOptions & { readonly minMicroversion?: string }): Promise<AllocationCandidates>;
}

export interface PlacementClientOptions {
  /** Newest microversion to ask for; default PLACEMENT_VERB_MICROVERSIONS.wanted (1.39). */
  readonly microversion?: string;
}

const CONCURRENT_UPDATE = 'placement.concurrent_update';

export function createPlacementClient(http: ServiceClient, options: PlacementClientOptions = {}): PlacementClient {
  let negotiated: Promise<Microversion> | undefined;

  // 403 is always handled here so the message can name Placement's policy rule; other statuses outside `accept`
  // become the generic coded errors of the service client.
  async function send(request: ServiceRequest, needs: string, what: string): Promise<ServiceResponse> {
    const version = await client.microversion(request.signal ? { signal: request.signal } : {});
    requireMicroversion(version, needs, what, `${request.method} ${request.path.split('?')[0] ?? request.path}`);
    const response = await http.request({
      ...request,
      accept: [...(request.accept ?? [200]), 403],
      headers: { ...request.headers, 'openstack-api-version': `placement ${formatMicroversion(version)}` },
    });
    if (response.status === 403) throw placementForbidden(response);
    return response;
  }

  const providerPath = (uuid: string): string => `/resource_providers/${encodeURIComponent(uuid)}`;

  const client: PlacementClient = {
    async getRoot(call) {
      const response = await http.request({ method: 'GET', path: '/', signal: call?.signal });
      return parsePlacementRoot(response.body, response.endpoint);
    },

    microversion(call) {
      if (negotiated === undefined) {
        const attempt = client.getRoot(call).then((root) => negotiateMicroversion(root, options.microversion));
        negotiated = attempt;
        // A failed negotiation (Placement down, the caller aborted) must not stick: the next call asks again.
        attempt.catch(() => {
          if (negotiated === attempt) negotiated = undefined;
        });
      }
      return negotiated;
    },

    async listTraits(query = {}, call) {
      const response = await send({ method: 'GET', path: '/traits', query: { name: query.name, associated: query.associated },
        signal: call?.signal }, PLACEMENT_VERB_MICROVERSIONS.traits, 'listing traits');
      return parseTraitList(response.body, response.endpoint);
    },

    async getProvider(uuid, call) {
      const response = await send({ method: 'GET', path: providerPath(uuid), accept: [200, 404], signal: call?.signal },
        PLACEMENT_VERB_MICROVERSIONS.providers, 'reading a resource provider');
      if (response.status === 404) throw providerNotFound(uuid, response);
      return parseResourceProvider(response.body, response.endpoint);
    },

    async findProviderByName(name, call) {
      const response = await send({ method: 'GET', path: '/resource_providers', query: { name }, signal: call?.signal },
        PLACEMENT_VERB_MICROVERSIONS.providers, 'finding a resource provider by name');
      return parseResourceProviderList(response.body, response.endpoint).find((provider) => provider.name === name);
    },

    async listProviders(query = {}, call) {
      const required = query.required === undefined || query.required.length === 0 ? undefined : query.required.join(',');
      const response = await send({
        method: 'GET', path: '/resource_providers', accept: [200, 400], signal: call?.signal,
        query: { name: query.name, required, resources: query.resources, in_tree: query.inTree },
      }, providerListMicroversion(query), 'listing resource providers with these filters');
      if (response.status === 400 && unknownTraitsIn(response).length > 0) throw traitsRefused(unknownTraitsIn(response), response);
      if (response.status !== 200) throw placementHttpError(response);
      return parseResourceProviderList(response.body, response.endpoint);
    },

    async getProviderInventories(uuid, call) {
      const response = await send({ method: 'GET', path: `${providerPath(uuid)}/inventories`, accept: [200, 404], signal: call?.signal },
        PLACEMENT_VERB_MICROVERSIONS.providers, "reading a provider's inventories");
      if (response.status === 404) throw providerNotFound(uuid, response);
      return parseProviderInventories(response.body, response.endpoint);
    },

    async getProviderUsages(uuid, call) {
      const response = await send({ method: 'GET', path: `${providerPath(uuid)}/usages`, accept: [200, 404], signal: call?.signal },
        PLACEMENT_VERB_MICROVERSIONS.providers, "reading a provider's usages");
      if (response.status === 404) throw providerNotFound(uuid, response);
      return parseProviderUsages(response.body, response.endpoint);
    },

    async getProviderTraits(uuid, call) {
      const response = await send({ method: 'GET', path: `${providerPath(uuid)}/traits`, accept: [200, 404], signal: call?.signal },
        PLACEMENT_VERB_MICROVERSIONS.traits, "reading a provider's traits");
      if (response.status === 404) throw providerNotFound(uuid, response);
      return parseProviderTraits(response.body, response.endpoint);
    },

    async setProviderTraits(uuid, generation, traits, call) {
      const response = await send({
        method: 'PUT', path: `${providerPath(uuid)}/traits`, accept: [200, 400, 404, 409], signal: call?.signal,
        body: { resource_provider_generation: generation, traits: [...traits] },
      }, PLACEMENT_VERB_MICROVERSIONS.traits, "setting a provider's traits");
      if (response.status === 404) throw providerNotFound(uuid, response);
      if (response.status === 409 && placementErrorCode(response) === CONCURRENT_UPDATE) {
        return Object.freeze({ kind: 'conflict', message: placementHttpError(response).message, requestId: response.requestId });
      }
      if (response.status === 400 && unknownTraitsIn(response).length > 0) throw traitsRefused(unknownTraitsIn(response), response);
      if (response.status !== 200) throw placementHttpError(response);
      return Object.freeze({ kind: 'updated', ...parseProviderTraits(response.body, response.endpoint) });
    },

    async allocationCandidates(query, call) {
      const path = `/allocation_candidates${query === '' ? '' : `?${query.replace(/^\?/, '')}`}`;
      // ferry reads provider traits from the summaries (1.17); the query itself may need more (`in:` needs 1.39).
      if (call?.minMicroversion !== undefined) {
        requireMicroversion(await client.microversion(call), call.minMicroversion, 'this allocation-candidates query',
          'GET /allocation_candidates');
      }
      const response = await send({ method: 'GET', path, accept: [200, 400], signal: call?.signal },
        PLACEMENT_VERB_MICROVERSIONS.allocationCandidates, 'reading allocation candidates');
      if (response.status === 400 && unknownTraitsIn(response).length > 0) throw traitsRefused(unknownTraitsIn(response), response);
      if (response.status !== 200) throw placementHttpError(response);
      return parseAllocationCandidates(response.body, response.endpoint);
    },
  };
  return client;
}

// What each filter of GET /resource_providers needs (placement-and-traits.md §3): in_tree 1.14, required 1.18,
// a forbidden trait 1.22; resources and name are older than anything ferry speaks.
function providerListMicroversion(query: ProviderListQuery): string {
  if (query.required?.some((name) => name.startsWith('!')) === true) return '1.22';
  if (query.required !== undefined && query.required.length > 0) return '1.18';
  if (query.inTree !== undefined) return '1.14';
  return PLACEMENT_VERB_MICROVERSIONS.providers;
}
