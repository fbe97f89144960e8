import pLimit from 'p-limit';
import { formatMicroversion } from '../placement/negotiate-microversion.js';
import type { PlacementClient } from '../placement/placement-client.js';
import type { ResourceProvider } from '../placement/resource-provider.js';
import { resolveProvider } from '../placement/resolve-provider.js';
import type { TraitCatalogue } from '../traits/trait-catalogue.js';
import { buildAllocationCandidatesQuery } from './build-allocation-candidates-query.js';
import { candidateHosts } from './candidate-hosts.js';
import { checkResourceFit, type ResourceFit } from './check-resource-fit.js';
import { explainCandidate, type TraitGap } from './explain-candidate.js';
import { judgeHost, type HostVerdictKind } from './judge-host.js';
import { parseResources } from './parse-resources.js';
import type { TraitRequest } from './prefilter-result.js';
import { readHostTraits, type HostTraits } from './read-host-traits.js';
import { PROVIDER_LOOKUP_DEFAULTS } from './read-provider-names.js';

export interface ExplainHostsOptions {
  /** Provider UUIDs or names; absent or empty: every root provider (compute node) of the cloud. */
  readonly providers?: readonly string[];
  /** `VCPU:1,MEMORY_MB:512`: when given, Placement is asked for allocation candidates; otherwise only traits are judged. */
  readonly resources?: string;
  /** Checked before any query (see findCandidates). */
  readonly catalogue?: TraitCatalogue;
  /** At most this many hosts that match the traits but are not returned get their inventory and usage read. */
  readonly capacityLookups?: number;
  readonly signal?: AbortSignal;
}

export const EXPLAIN_HOSTS_DEFAULTS = { capacityLookups: 10 } as const;

/** One host: is it a candidate, and if not, exactly why. */
export interface HostExplanation {
  readonly uuid: string;
  readonly name: string;
  /** The root provider's UUID when the provider asked about is a child; undefined for a compute node. */
  readonly parent: string | undefined;
  readonly candidate: boolean;
  readonly verdict: HostVerdictKind;
  /** Required traits it lacks, with why the request has each. */
  readonly lacks: readonly TraitGap[];
  /** Forbidden traits it has, with why each is forbidden. */
  readonly hasForbidden: readonly TraitGap[];
  /** Its own inventory against the request, when read (hosts whose traits match but Placement left out). */
  readonly fit: readonly ResourceFit[] | undefined;
  readonly reason: string;
}

export interface HostExplanations {
  /** The allocation-candidates query (only the trait parameters when no resources were given). */
  readonly query: string;
  readonly microversion: string;
  readonly resources: string | undefined;
  readonly hosts: readonly HostExplanation[];
  /** How the hosts' traits were read (min(#hosts, #traits) requests). */
  readonly traitLookup: HostTraits['strategy'];
  /** Hosts whose traits match, not returned, whose capacity was not read (beyond capacityLookups). */
  readonly capacityNotRead: number;
}

/**
 * For each host (the given providers, or every compute node): whether Placement returns it for this request and,
 * if not, which required trait it lacks, which forbidden trait it has, or which resource is short. Requests, all
 * bounded: the provider lookups (or one listing), min(#hosts, #traits) trait reads, one `GET /allocation_candidates`
 * without a limit (only with resources), and two reads (inventories, usages) per host left out despite matching
 * traits, for at most `capacityLookups` hosts.
 */
export async function explainHosts(placement: PlacementClient, request: TraitRequest & { readonly reasons?: Readonly<Record<string, readonly string[]>> },
  options: ExplainHostsOptions = {}): Promise<HostExplanations> {
  const amounts = options.resources === undefined ? undefined : parseResources(options.resources);
  const capacityLookups = options.capacityLookups ?? EXPLAIN_HOSTS_DEFAULTS.capacityLookups;
  const call = { signal: options.signal };
  const microversion = formatMicroversion(await placement.microversion(call));
  const query = buildAllocationCandidatesQuery(request, {
    microversion,
    ...(options.resources === undefined ? {} : { resources: options.resources }),
    ...(options.catalogue === undefined ? {} : { catalogue: options.catalogue }),
  });
  const hosts = await hostsToExplain(placement, options.providers ?? [], options.signal);
  const names = [...request.root_required, ...request.root_forbidden, ...(request.required ?? []), ...(request.forbidden ?? [])];
  const hostTraits = await readHostTraits(placement, hosts.map((host) => host.uuid), names, call);
  const explanations = new Map(hosts.map((host) => [host.uuid, explainCandidate(hostTraits.traits.get(host.uuid) ?? [], request)]));

  let returned: ReadonlySet<string> | undefined;
  if (options.resources !== undefined) {
    const answer = await placement.allocationCandidates(query, call);
    returned = new Set(candidateHosts(answer).flatMap((host) => host.providers));
  }
  const unexplained = returned === undefined ? []
    : hosts.filter((host) => explanations.get(host.uuid)?.satisfied === true && !returned.has(host.uuid));
  const fits = new Map<string, readonly ResourceFit[]>();
  if (amounts !== undefined) {
    const limit = pLimit(PROVIDER_LOOKUP_DEFAULTS.concurrency);
    await Promise.all(unexplained.slice(0, capacityLookups).map((host) => limit(async () => {
      const inventories = await placement.getProviderInventories(host.uuid, call);
      const usages = await placement.getProviderUsages(host.uuid, call);
      fits.set(host.uuid, checkResourceFit(amounts, inventories.inventories, usages.usages));
    })));
  }

  return Object.freeze({
    query, microversion, resources: options.resources,
    hosts: Object.freeze(hosts.map((host) => {
      const explanation = explanations.get(host.uuid) ?? explainCandidate([], request);
      const parent = host.rootProviderUuid !== undefined && host.rootProviderUuid !== host.uuid ? host.rootProviderUuid : undefined;
      const fit = fits.get(host.uuid);
      const judged = judgeHost({ explanation, returned: returned?.has(host.uuid), fit, resources: options.resources, parent });
      return Object.freeze({
        uuid: host.uuid, name: host.name, parent, candidate: judged.candidate, verdict: judged.verdict,
        lacks: explanation.lacks, hasForbidden: explanation.has, fit, reason: judged.reason,
      });
    })),
    traitLookup: hostTraits.strategy,
    capacityNotRead: Math.max(0, unexplained.length - capacityLookups),
  });
}

/** The given providers (resolved by UUID or name, duplicates dropped, in the order given), or every root provider by name. */
async function hostsToExplain(placement: PlacementClient, refs: readonly string[], signal: AbortSignal | undefined): Promise<readonly ResourceProvider[]> {
  if (refs.length === 0) {
    const all = await placement.listProviders({}, { signal });
    return all.filter((p) => p.rootProviderUuid === undefined || p.rootProviderUuid === p.uuid)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  const limit = pLimit(PROVIDER_LOOKUP_DEFAULTS.concurrency);
  const resolved = await Promise.all([...new Set(refs)].map((ref) => limit(() => resolveProvider(placement, ref, { signal }))));
  const byUuid = new Map<string, ResourceProvider>();
  for (const provider of resolved) if (!byUuid.has(provider.uuid)) byUuid.set(provider.uuid, provider);
  return [...byUuid.values()];
}
