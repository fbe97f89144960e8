import { FerryError } from '../errors/ferry-error.js';
import { compareVersions, parseVersion } from './compare-versions.js';
import { OS_TRAITS_BASE } from './os-traits-base.js';
import { LATER_TRAIT_NAMES, isLaterTraitName, traitFirstVersion } from './trait-history.js';

/** The trait names a target Placement accepts: every name ferry emits or sends is checked against one of these. */
export interface TraitCatalogue {
  /** os-traits version, or 'placement' when read from a server. */
  readonly version: string;
  /** Standard names of this version; CUSTOM_* names only if given. */
  has(name: string): boolean;
  /** Sorted. */
  withPrefix(prefix: string): readonly string[];
  /** Both sorted and without duplicates. */
  partition(names: Iterable<string>): { readonly known: readonly string[]; readonly unknown: readonly string[] };
  /** os-traits version that introduced it, when ferry knows. */
  firstVersionOf(name: string): string | undefined;
}

export const DEFAULT_OS_TRAITS_VERSION = OS_TRAITS_BASE.version;

const BASE_NAMES = new Set(OS_TRAITS_BASE.names);

/**
 * The os-traits versions ferry can build a catalogue for: the base list, and each later release where ferry knows
 * which names were added. Ferry's list for a later version holds only the later names it knows, so it may miss
 * names that release has, never the other way round: it can make ferry hold back a trait, never send an unknown one.
 */
export const KNOWN_OS_TRAITS_VERSIONS: readonly string[] = [
  DEFAULT_OS_TRAITS_VERSION,
  ...new Set(
    LATER_TRAIT_NAMES.flatMap((entry) => (entry.firstVersion === undefined ? [] : [entry.firstVersion]))
      .filter((v) => compareVersions(parseVersion(v, 'firstVersion'), parseVersion(DEFAULT_OS_TRAITS_VERSION, 'base')) > 0)
      .sort((a, b) => compareVersions(parseVersion(a, 'firstVersion'), parseVersion(b, 'firstVersion'))),
  ),
];

// Catalogues are frozen and their data never changes at run time, so one per version is enough.
const byVersion = new Map<string, TraitCatalogue>();

/**
 * The standard names of os-traits `version` (default 2.9.0, what Placement 8.0.0 on Debian 12 loads). A later
 * known version is 2.9.0 plus the later names ferry knows with their release. Any other version throws
 * FERRY_INVALID_OPTION: ferry cannot tell which names it has, so it refuses rather than guess.
 */
export function standardTraitCatalogue(version: string = DEFAULT_OS_TRAITS_VERSION): TraitCatalogue {
  if (!KNOWN_OS_TRAITS_VERSIONS.includes(version)) {
    throw new FerryError(
      'FERRY_INVALID_OPTION',
      `os-traits version must be one ferry knows (${KNOWN_OS_TRAITS_VERSIONS.join(', ')}), got '${version}'`,
      'Read the names from the target Placement instead (GET /traits, traitCatalogueFromNames), or give the ' +
        'nearest known version below the one Placement runs.',
      { option: 'osTraitsVersion', value: version, known: KNOWN_OS_TRAITS_VERSIONS },
    );
  }
  let catalogue = byVersion.get(version);
  if (catalogue === undefined) {
    const wanted = parseVersion(version, 'osTraitsVersion');
    const later = LATER_TRAIT_NAMES.filter(
      (entry) => entry.firstVersion !== undefined && compareVersions(parseVersion(entry.firstVersion, 'firstVersion'), wanted) <= 0,
    ).map((entry) => entry.name);
    catalogue = buildCatalogue([...OS_TRAITS_BASE.names, ...later], version);
    byVersion.set(version, catalogue);
  }
  return catalogue;
}

/**
 * A catalogue of exactly `names`: the answer of the target Placement's `GET /traits` (standard names of the
 * os-traits it runs, plus the CUSTOM_ traits created there). `version` defaults to 'placement'.
 */
export function traitCatalogueFromNames(names: Iterable<string>, version = 'placement'): TraitCatalogue {
  return buildCatalogue(names, version);
}

function buildCatalogue(names: Iterable<string>, version: string): TraitCatalogue {
  const set = new Set(names);
  const sorted = [...set].sort();
  const catalogue: TraitCatalogue = {
    version,
    has: (name) => set.has(name),
    withPrefix: (prefix) => sorted.filter((name) => name.startsWith(prefix)),
    partition(candidates) {
      const unique = [...new Set(candidates)].sort();
      return { known: unique.filter((n) => set.has(n)), unknown: unique.filter((n) => !set.has(n)) };
    },
    firstVersionOf: (name) => traitFirstVersion(name, BASE_NAMES.has(name)),
  };
  return Object.freeze(catalogue);
}

/** One phrase for messages: why a name is missing from this catalogue, with the release that has it if known. */
export function describeMissingTrait(name: string, catalogue: TraitCatalogue): string {
  const target = catalogue.version === 'placement' ? "the target Placement's trait list" : `os-traits ${catalogue.version}`;
  const first = catalogue.firstVersionOf(name);
  if (first !== undefined) return `${name} is not in ${target}; it first appears in os-traits ${first}`;
  if (isLaterTraitName(name)) {
    return `${name} is not in ${target}; it comes from an os-traits release after ${DEFAULT_OS_TRAITS_VERSION} (which one, ferry does not know)`;
  }
  return `${name} is not a trait in ${target}`;
}
