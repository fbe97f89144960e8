import { FerryError } from '../errors/ferry-error.js';
import type { TraitCatalogue } from '../traits/trait-catalogue.js';
import { assertNoTraitConflict } from './assert-no-trait-conflict.js';
import { missingTraitReason } from './missing-trait-reason.js';
import type { TraitRequest } from './prefilter-result.js';

export interface AllocationQueryOptions {
  /** The microversion the request will be sent with (`1.36`); decides how traits can be expressed. */
  readonly microversion: string;
  /** `VCPU:1,MEMORY_MB:512,DISK_GB:1`: the unsuffixed resources group; without it only the trait parameters. */
  readonly resources?: string;
  /** Placement's `limit` (nova sends `[scheduler] max_placement_results`, 1000). */
  readonly limit?: number;
  /** When given, every trait name must be in it (an unknown one makes Placement reject the whole query). */
  readonly catalogue?: TraitCatalogue;
}

// The microversions that introduced what the query uses (placement-and-traits.md §3).
export const PLACEMENT_MICROVERSIONS = {
  allocationCandidates: 10, limit: 16, requiredTraits: 17, forbiddenTraits: 22, rootRequired: 35,
} as const;

const TRAIT_NAME = /^[A-Z0-9_]+$/;
const RESOURCES = /^[A-Z0-9_]+:[1-9]\d*(,[A-Z0-9_]+:[1-9]\d*)*$/;

/**
 * `GET /allocation_candidates?…` for a trait request, serialised like nova's `ResourceRequest.to_querystring`:
 * parameters sorted by name, each list sorted with the `!forbidden` names after the required ones. Trait names and
 * resource classes are `[A-Z0-9_]`, so the separators `,` `!` `:` are left readable (Placement takes them raw).
 * Names, conflicts and the microversion are checked before anything is built.
 */
export function buildAllocationCandidatesQuery(request: TraitRequest, options: AllocationQueryOptions): string {
  const minor = parseMicroversion(options.microversion);
  const tidy: SortedTraitRequest = {
    root_required: sortedUnique(request.root_required),
    root_forbidden: sortedUnique(request.root_forbidden),
    required: sortedUnique(request.required ?? []),
    forbidden: sortedUnique(request.forbidden ?? []),
  };
  checkNames([...tidy.root_required, ...tidy.root_forbidden, ...tidy.required, ...tidy.forbidden], options.catalogue);
  assertNoTraitConflict(tidy);
  return formatTraitQuery(tidy, minor, options.resources, options.limit);
}

/** A trait request whose four lists are sorted, without duplicates, checked names and no conflict. */
export interface SortedTraitRequest {
  readonly root_required: readonly string[];
  readonly root_forbidden: readonly string[];
  readonly required: readonly string[];
  readonly forbidden: readonly string[];
}

/**
 * The query for an already checked request; without `resources` only the trait parameters. From 1.35 the root
 * traits go into `root_required` (checked on the compute node only); before that they join the unsuffixed
 * `required`, which Placement checks on the providers that supply the unsuffixed resources: the same host for a
 * flat compute node, but a child provider can satisfy it in a tree.
 */
export function formatTraitQuery(request: SortedTraitRequest, minor: number, resources?: string, limit?: number): string {
  requireMicroversion(minor, PLACEMENT_MICROVERSIONS.allocationCandidates, 'GET /allocation_candidates');
  const { root_required: rootRequired, root_forbidden: rootForbidden, required, forbidden } = request;
  if (rootRequired.length + rootForbidden.length + required.length + forbidden.length > 0) {
    requireMicroversion(minor, PLACEMENT_MICROVERSIONS.requiredTraits, 'required traits');
  }
  if (rootForbidden.length + forbidden.length > 0) {
    requireMicroversion(minor, PLACEMENT_MICROVERSIONS.forbiddenTraits, `forbidden traits (${[...rootForbidden, ...forbidden].join(', ')})`);
  }
  if (resources !== undefined && !RESOURCES.test(resources)) {
    invalid(`resources must be like VCPU:1,MEMORY_MB:512 (upper-case classes, positive amounts), got '${resources}'`,
      'Give the flavor\'s resources as CLASS:AMOUNT pairs separated by commas, without spaces.', { resources });
  }
  if (limit !== undefined) {
    if (!Number.isInteger(limit) || limit < 1) {
      invalid(`limit must be an integer ≥ 1, got ${String(limit)}`, 'Leave limit out to get every candidate.', { limit });
    }
    requireMicroversion(minor, PLACEMENT_MICROVERSIONS.limit, 'limit');
  }
  const rootParameter = minor >= PLACEMENT_MICROVERSIONS.rootRequired;
  // Before 1.39 a repeated `required` keeps only its last value, so without root_required it is all one parameter.
  const requiredValue = rootParameter
    ? traitList(required, forbidden)
    : traitList(mergeSorted(rootRequired, required), mergeSorted(rootForbidden, forbidden));
  // Written in the sorted order of the parameter names: limit, required, resources, root_required.
  const parts: string[] = [];
  if (limit !== undefined) parts.push(`limit=${limit}`);
  if (requiredValue !== '') parts.push(`required=${requiredValue}`);
  if (resources !== undefined) parts.push(`resources=${resources}`);
  const rootValue = rootParameter ? traitList(rootRequired, rootForbidden) : '';
  if (rootValue !== '') parts.push(`root_required=${rootValue}`);
  return parts.join('&');
}

/** `1.36` → 36. Placement has only major version 1. */
export function parseMicroversion(value: string): number {
  const match = /^1\.(0|[1-9]\d*)$/.exec(value.trim());
  if (match?.[1] === undefined) {
    invalid(`the Placement microversion must be like 1.36, got '${value}'`,
      'Use the version the server announces (GET / → max_version; Placement 8.0.0 has 1.39).', { microversion: value });
  }
  return Number(match[1]);
}

function requireMicroversion(minor: number, needed: number, what: string): void {
  if (minor >= needed) return;
  invalid(`Placement microversion 1.${minor} cannot express ${what}: that needs 1.${needed} or later`,
    `Send the request at microversion 1.${needed} or later (Placement 8.0.0 supports up to 1.39).`, { microversion: `1.${minor}`, needed: `1.${needed}` });
}

function checkNames(all: readonly string[], catalogue: TraitCatalogue | undefined): void {
  const names = sortedUnique(all);
  const malformed = names.filter((n) => !TRAIT_NAME.test(n));
  const unknown = catalogue === undefined ? [] : names.filter((n) => TRAIT_NAME.test(n) && !catalogue.has(n));
  const bad = [...malformed, ...unknown];
  if (bad.length === 0) return;
  const described = [
    ...malformed.map((n) => `'${n}' is not a trait name`),
    ...(catalogue === undefined ? [] : unknown.map((n) => missingTraitReason(n, catalogue))),
  ];
  throw new FerryError('FERRY_UNKNOWN_TRAIT', `${described.join('; ')}; Placement would reject the whole query`,
    'Check the spelling (upper case, A-Z 0-9 _), create CUSTOM_ traits first, or pass the catalogue of the Placement you ask.', { traits: bad });
}

function sortedUnique(names: readonly string[]): string[] {
  return [...new Set(names)].sort();
}

function mergeSorted(a: readonly string[], b: readonly string[]): readonly string[] {
  return b.length === 0 ? a : a.length === 0 ? b : sortedUnique([...a, ...b]);
}

function traitList(yes: readonly string[], no: readonly string[]): string {
  if (no.length === 0) return yes.join(',');
  const forbidden = `!${no.join(',!')}`;
  return yes.length === 0 ? forbidden : `${yes.join(',')},${forbidden}`;
}

function invalid(message: string, hint: string, details: Readonly<Record<string, unknown>>): never {
  throw new FerryError('FERRY_INVALID_OPTION', message, hint, details);
}
