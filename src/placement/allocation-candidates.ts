import { z } from 'zod';
import { validateResponse } from '../openstack/validate-response.js';

/** One way to satisfy the request: amounts per provider, and which providers serve which request group. */
export interface AllocationRequest {
  /** Provider UUID → resource class → amount. */
  readonly allocations: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** Group suffix (`''` = the unsuffixed group) → provider UUIDs; empty before microversion 1.34. */
  readonly mappings: Readonly<Record<string, readonly string[]>>;
}

/** What Placement says about one provider that appears in some candidate. */
export interface ProviderSummary {
  /** Resource class → capacity ((total − reserved) × allocation_ratio) and usage. */
  readonly resources: Readonly<Record<string, { readonly capacity: number; readonly used: number }>>;
  /** Sorted (Placement's list is not). */
  readonly traits: readonly string[];
  readonly parentProviderUuid: string | undefined;
  readonly rootProviderUuid: string | undefined;
}

/** `GET /allocation_candidates`: the candidates and the providers they name. */
export interface AllocationCandidates {
  readonly allocationRequests: readonly AllocationRequest[];
  /** Provider UUID → summary. */
  readonly providerSummaries: Readonly<Record<string, ProviderSummary>>;
}

const candidatesSchema = z.object({
  allocation_requests: z.array(z.object({
    allocations: z.record(z.string(), z.object({ resources: z.record(z.string(), z.number()) })),
    mappings: z.record(z.string(), z.array(z.string())).optional(),
  })),
  provider_summaries: z.record(z.string(), z.object({
    resources: z.record(z.string(), z.object({ capacity: z.number(), used: z.number() })),
    traits: z.array(z.string()),
    parent_provider_uuid: z.string().nullable().optional(),
    root_provider_uuid: z.string().nullable().optional(),
  })),
});

/** Parse the dict form of the answer (microversion ≥ 1.12, with provider traits from 1.17). */
export function parseAllocationCandidates(body: unknown, endpoint: string): AllocationCandidates {
  const wire = validateResponse(candidatesSchema, body, endpoint);
  const allocationRequests = wire.allocation_requests.map((request) => Object.freeze({
    allocations: Object.freeze(Object.fromEntries(Object.entries(request.allocations)
      .map(([uuid, allocation]) => [uuid, Object.freeze({ ...allocation.resources })]))),
    mappings: Object.freeze({ ...request.mappings }),
  }));
  const providerSummaries = Object.fromEntries(Object.entries(wire.provider_summaries).map(([uuid, summary]) => [uuid,
    Object.freeze({
      resources: Object.freeze({ ...summary.resources }),
      traits: Object.freeze([...new Set(summary.traits)].sort()),
      parentProviderUuid: summary.parent_provider_uuid ?? undefined,
      rootProviderUuid: summary.root_provider_uuid ?? undefined,
    })]));
  return Object.freeze({ allocationRequests: Object.freeze(allocationRequests), providerSummaries: Object.freeze(providerSummaries) });
}
