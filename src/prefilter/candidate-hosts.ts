import type { AllocationCandidates, ProviderSummary } from '../placement/allocation-candidates.js';

/** One compute node (root provider) that appears in at least one allocation request. */
export interface CandidateHost {
  readonly uuid: string;
  /** The root provider's own traits, sorted (empty when Placement sent no summary for it). */
  readonly traits: readonly string[];
  /** The root provider's own resources: class → capacity and usage. */
  readonly resources: ProviderSummary['resources'];
  /** The root, then every other provider (child, sharing) an allocation request for this host takes resources from. */
  readonly providers: readonly string[];
  /** How many allocation requests land on this host. */
  readonly allocationRequests: number;
}

const SHARING = 'MISC_SHARES_VIA_AGGREGATE';

/**
 * The hosts of an allocation-candidates answer: each allocation request's providers grouped by their root provider
 * (`root_provider_uuid` of their summary), in the order Placement listed them. A provider without a summary counts as
 * its own root. A root carrying MISC_SHARES_VIA_AGGREGATE next to another root in the same request is a sharing
 * provider (shared storage), not a host: its providers are listed under the host. Pure.
 */
export function candidateHosts(answer: AllocationCandidates): readonly CandidateHost[] {
  const hosts = new Map<string, { providers: string[]; requests: number }>();
  const rootOf = (provider: string): string => answer.providerSummaries[provider]?.rootProviderUuid ?? provider;
  for (const request of answer.allocationRequests) {
    const providers = Object.keys(request.allocations);
    const roots = [...new Set(providers.map(rootOf))];
    const computeRoots = roots.filter((root) => answer.providerSummaries[root]?.traits.includes(SHARING) !== true);
    const hostRoots = computeRoots.length > 0 ? computeRoots : roots;
    for (const root of hostRoots) {
      let entry = hosts.get(root);
      if (entry === undefined) {
        entry = { providers: [], requests: 0 };
        hosts.set(root, entry);
      }
      entry.requests += 1;
      const mine = providers.filter((p) => rootOf(p) === root || !hostRoots.includes(rootOf(p)));
      for (const provider of mine) if (!entry.providers.includes(provider)) entry.providers.push(provider);
    }
  }
  return Object.freeze([...hosts].map(([uuid, entry]) => {
    const summary = answer.providerSummaries[uuid];
    return Object.freeze({
      uuid,
      traits: summary?.traits ?? Object.freeze([]),
      resources: summary?.resources ?? Object.freeze({}),
      providers: Object.freeze([uuid, ...entry.providers.filter((p) => p !== uuid)]),
      allocationRequests: entry.requests,
    });
  }));
}
