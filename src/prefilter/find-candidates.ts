import { formatMicroversion } from '../placement/negotiate-microversion.js';
import type { PlacementClient } from '../placement/placement-client.js';
import type { TraitCatalogue } from '../traits/trait-catalogue.js';
import { buildAllocationCandidatesQuery } from './build-allocation-candidates-query.js';
import { candidateHosts, type CandidateHost } from './candidate-hosts.js';
import { parseResources } from './parse-resources.js';
import type { TraitRequest } from './prefilter-result.js';
import { PROVIDER_LOOKUP_DEFAULTS, readProviderNames } from './read-provider-names.js';

export interface FindCandidatesOptions {
  /** Placement's `limit`: it truncates the list (nova sends `[scheduler] max_placement_results`, 1000). */
  readonly limit?: number;
  /**
   * The names the target Placement knows; when given, the request is checked against it before it is sent (one
   * unknown name makes Placement refuse the whole query). Without it an unknown name comes back as Placement's 400,
   * turned into FERRY_UNKNOWN_TRAIT.
   */
  readonly catalogue?: TraitCatalogue;
  /** Candidates up to this count get their names one GET each; more take one provider listing. Default 10. */
  readonly maxNameLookups?: number;
  readonly signal?: AbortSignal;
}

/** A host Placement returned, with its name. */
export interface Candidate extends CandidateHost {
  /** undefined only if the provider was deleted between the two requests. */
  readonly name: string | undefined;
}

export interface CandidateList {
  /** The query sent (`GET /allocation_candidates?<query>`). */
  readonly query: string;
  /** The microversion it was built for and sent with: the newest both ferry and the server speak. */
  readonly microversion: string;
  readonly resources: string;
  readonly limit: number | undefined;
  /** One per compute node, in Placement's order. */
  readonly candidates: readonly Candidate[];
  /** How many allocation requests Placement returned (a host may have several: one per way to fit). */
  readonly allocationRequests: number;
}

/**
 * Ask Placement for the hosts that can take `request` (traits) with `resources` (`VCPU:1,MEMORY_MB:512`): build the
 * query for the microversion negotiated with this server (root traits in `root_required` from 1.35, else in
 * `required`), send one `GET /allocation_candidates`, group the allocation requests by compute node and name each
 * one (bounded: see readProviderNames). Requests: `GET /` once per client, the candidates, then the names.
 * Errors: FERRY_INVALID_OPTION (resources, limit, a microversion too old for the request), FERRY_UNKNOWN_TRAIT,
 * FERRY_TRAIT_CONFLICT, and the HTTP errors of the client.
 */
export async function findCandidates(placement: PlacementClient, request: TraitRequest, resources: string,
  options: FindCandidatesOptions = {}): Promise<CandidateList> {
  parseResources(resources);
  const call = { signal: options.signal };
  const microversion = formatMicroversion(await placement.microversion(call));
  const query = buildAllocationCandidatesQuery(request, {
    microversion, resources,
    ...(options.limit === undefined ? {} : { limit: options.limit }),
    ...(options.catalogue === undefined ? {} : { catalogue: options.catalogue }),
  });
  const answer = await placement.allocationCandidates(query, call);
  const hosts = candidateHosts(answer);
  const names = await readProviderNames(placement, hosts.map((host) => host.uuid), {
    maxLookups: options.maxNameLookups ?? PROVIDER_LOOKUP_DEFAULTS.maxLookups, signal: options.signal,
  });
  return Object.freeze({
    query, microversion, resources, limit: options.limit,
    candidates: Object.freeze(hosts.map((host) => Object.freeze({ ...host, name: names.get(host.uuid) }))),
    allocationRequests: answer.allocationRequests.length,
  });
}
