import { FerryError } from '../errors/ferry-error.js';
import type { TraitCatalogue } from '../traits/trait-catalogue.js';
import { assertNoTraitConflict } from './assert-no-trait-conflict.js';
import { missingTraitReason } from './missing-trait-reason.js';
import type { TraitRequest } from './prefilter-result.js';

export interface AllocationQueryOptions {
  /** The microversion the request will be sent with (`1.36`); decides how traits can be expressed. */
  readonly microversion: string;
  /** `VCPU:1,MEMORY_MB:512,DISK_GB:1`: the unsuffixed resources group. */
  readonly resources: string;
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
 */
export function buildAllocationCandidatesQuery(request: TraitRequest, options: AllocationQueryOptions): string {
  const minor = parseMicroversion(options.microversion);
  const params = traitQueryParameters(request, options.microversion, options.catalogue);
  if (!RESOURCES.test(options.resources)) {
    invalid(`resources must be like VCPU:1,MEMORY_MB:512 (upper-case classes, positive amounts), got '${options.resources}'`,
      'Give the flavor\'s resources as CLASS:AMOUNT pairs separated by commas, without spaces.', { resources: options.resources });
  }
  params.push(['resources', options.resources]);
  if (options.limit !== undefined) {
    if (!Number.isInteger(options.limit) || options.limit < 1) {
      invalid(`limit must be an integer ≥ 1, got ${String(options.limit)}`, 'Leave limit out to get every candidate.', { limit: options.limit });
    }
    requireMicroversion(minor, PLACEMENT_MICROVERSIONS.limit, 'limit');
    params.push(['limit', String(options.limit)]);
  }
  return serializeQuery(params);
}

/**
 * Just the trait parameters. From 1.35 the root traits go into `root_required` (checked on the compute node only);
 * before that they join the unsuffixed `required`, which Placement checks on the providers that supply the
 * unsuffixed resources: the same host for a flat compute node, but a child provider can satisfy it in a tree.
 */
export function traitQueryParameters(request: TraitRequest, microversion: string, catalogue?: TraitCatalogue): [string, string][] {
  const minor = parseMicroversion(microversion);
  requireMicroversion(minor, PLACEMENT_MICROVERSIONS.allocationCandidates, 'GET /allocation_candidates');
  const rootRequired = tidy(request.root_required);
  const rootForbidden = tidy(request.root_forbidden);
  const required = tidy(request.required ?? []);
  const forbidden = tidy(request.forbidden ?? []);
  checkNames([...rootRequired, ...rootForbidden, ...required, ...forbidden], catalogue);
  assertNoTraitConflict(request);
  if (rootRequired.length + rootForbidden.length + required.length + forbidden.length > 0) {
    requireMicroversion(minor, PLACEMENT_MICROVERSIONS.requiredTraits, 'required traits');
  }
  if (rootForbidden.length + forbidden.length > 0) {
    requireMicroversion(minor, PLACEMENT_MICROVERSIONS.forbiddenTraits, `forbidden traits (${[...rootForbidden, ...forbidden].join(', ')})`);
  }
  const params: [string, string][] = [];
  const push = (key: string, yes: readonly string[], no: readonly string[]): void => {
    if (yes.length + no.length > 0) params.push([key, [...yes, ...no.map((t) => `!${t}`)].join(',')]);
  };
  if (minor >= PLACEMENT_MICROVERSIONS.rootRequired) {
    push('root_required', rootRequired, rootForbidden);
    push('required', required, forbidden);
  } else {
    // Before 1.39 a repeated `required` keeps only its last value, so everything goes into one parameter.
    push('required', tidy([...rootRequired, ...required]), tidy([...rootForbidden, ...forbidden]));
  }
  return params;
}

/** `key=value` pairs sorted by key and joined with `&`, as nova sends them. */
export function serializeQuery(params: readonly (readonly [string, string])[]): string {
  return [...params].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${k}=${v}`).join('&');
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

function checkNames(names: readonly string[], catalogue: TraitCatalogue | undefined): void {
  const malformed = names.filter((n) => !TRAIT_NAME.test(n));
  const unknown = catalogue === undefined ? [] : catalogue.partition(names.filter((n) => TRAIT_NAME.test(n))).unknown;
  const bad = [...malformed, ...unknown];
  if (bad.length === 0) return;
  const described = [
    ...malformed.map((n) => `'${n}' is not a trait name`),
    ...(catalogue === undefined ? [] : unknown.map((n) => missingTraitReason(n, catalogue))),
  ];
  throw new FerryError('FERRY_UNKNOWN_TRAIT', `${described.join('; ')}; Placement would reject the whole query`,
    'Check the spelling (upper case, A-Z 0-9 _), create CUSTOM_ traits first, or pass the catalogue of the Placement you ask.', { traits: bad });
}

function tidy(names: readonly string[]): string[] {
  return [...new Set(names)].sort();
}

function invalid(message: string, hint: string, details: Readonly<Record<string, unknown>>): never {
  throw new FerryError('FERRY_INVALID_OPTION', message, hint, details);
}
