import { z } from 'zod';
import { validateResponse } from '../openstack/validate-response.js';

/** A Placement resource provider, as ferry uses it. */
export interface ResourceProvider {
  readonly uuid: string;
  readonly name: string;
  /** Bumped by every change to its traits, inventories or aggregates; sent back with each write. */
  readonly generation: number;
  /** undefined for a root provider (and before microversion 1.14). */
  readonly parentProviderUuid: string | undefined;
  readonly rootProviderUuid: string | undefined;
}

/** A provider's traits with the generation they were read at: the pair a trait update must send back. */
export interface ProviderTraits {
  /** Sorted (Placement's GET answer is not). */
  readonly traits: readonly string[];
  readonly generation: number;
}

const providerSchema = z.object({
  uuid: z.string().min(1),
  name: z.string(),
  generation: z.number().int().nonnegative(),
  parent_provider_uuid: z.string().nullable().optional(),
  root_provider_uuid: z.string().nullable().optional(),
});

const providerListSchema = z.object({ resource_providers: z.array(providerSchema) });

const providerTraitsSchema = z.object({
  traits: z.array(z.string()),
  resource_provider_generation: z.number().int().nonnegative(),
});

const traitListSchema = z.object({ traits: z.array(z.string()) });

type ProviderWire = z.infer<typeof providerSchema>;

function toProvider(wire: ProviderWire): ResourceProvider {
  return Object.freeze({
    uuid: wire.uuid,
    name: wire.name,
    generation: wire.generation,
    parentProviderUuid: wire.parent_provider_uuid ?? undefined,
    rootProviderUuid: wire.root_provider_uuid ?? undefined,
  });
}

/** `GET /resource_providers/{uuid}` (and the `POST /resource_providers` answer from 1.20). */
export function parseResourceProvider(body: unknown, endpoint: string): ResourceProvider {
  return toProvider(validateResponse(providerSchema, body, endpoint));
}

/** `GET /resource_providers?…`. */
export function parseResourceProviderList(body: unknown, endpoint: string): readonly ResourceProvider[] {
  return Object.freeze(validateResponse(providerListSchema, body, endpoint).resource_providers.map(toProvider));
}

/** `GET` and `PUT /resource_providers/{uuid}/traits`. */
export function parseProviderTraits(body: unknown, endpoint: string): ProviderTraits {
  const wire = validateResponse(providerTraitsSchema, body, endpoint);
  return Object.freeze({ traits: sortedUnique(wire.traits), generation: wire.resource_provider_generation });
}

/** `GET /traits?…`, sorted. */
export function parseTraitList(body: unknown, endpoint: string): readonly string[] {
  return sortedUnique(validateResponse(traitListSchema, body, endpoint).traits);
}

function sortedUnique(names: readonly string[]): readonly string[] {
  return Object.freeze([...new Set(names)].sort());
}
