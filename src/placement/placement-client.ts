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
