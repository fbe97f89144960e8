import { FerryError } from '../errors/ferry-error.js';
import { describeMissingTrait } from './trait-catalogue.js';
import type { TraitCatalogue } from './trait-catalogue.js';
import { assertTraitFamilies, inTraitFamilies } from './trait-families.js';

/** What to send to Placement so a provider's traits match ferry's report, touching only ferry's families. */
export interface TraitSyncPlan {
  /** Desired names of owned families the provider lacks. */
  readonly add: readonly string[];
  /** Current names of owned families ferry no longer reports. */
  readonly remove: readonly string[];
  /** Current names that stay: every name outside the owned families (CUSTOM_*, others), and owned ones still desired. */
  readonly keep: readonly string[];
  /** keep + add, sorted: the `traits` body of `PUT /resource_providers/{uuid}/traits`. */
  readonly final: readonly string[];
  /** Desired names of owned families the catalogue lacks; non-empty → raise FERRY_UNKNOWN_TRAIT, send nothing. */
  readonly unknown: readonly string[];
  /** Desired names outside the owned families: neither added nor removed. */
  readonly ignored: readonly string[];
  /** Whether `final` differs from `current` (no PUT needed otherwise). */
  readonly changed: boolean;
}

/**
 * The pure decision behind `ferry traits report`: given the provider's `current` traits and the `desired` ones
 * (HostTraitReport.traits), add and remove only names of `ownedFamilies` (prefixes ending in `_`, or exact names;
 * usually HostTraitReport.decidedFamilies), keep everything else. All lists are sorted and without duplicates.
 */
export function planTraitSync(
  current: readonly string[],
  desired: readonly string[],
  ownedFamilies: readonly string[],
  catalogue: TraitCatalogue,
): TraitSyncPlan {
  assertTraitFamilies(ownedFamilies);
  const owned = (name: string): boolean => !name.startsWith('CUSTOM_') && inTraitFamilies(name, ownedFamilies);
  const currentSet = new Set(current);
  const wanted = unique(desired.filter(owned));
  const { known, unknown } = catalogue.partition(wanted);
  const wantedSet = new Set(wanted);

  const add = known.filter((name) => !currentSet.has(name));
  const remove = unique(current.filter((name) => owned(name) && !wantedSet.has(name)));
  const removeSet = new Set(remove);
  const keep = unique(current.filter((name) => !removeSet.has(name)));
  const final = unique([...keep, ...add]);
  return Object.freeze({
    add,
    remove,
    keep,
    final,
    unknown,
    ignored: unique(desired.filter((name) => !owned(name))),
    changed: add.length > 0 || remove.length > 0,
  });
}

/** The error a caller raises when `plan.unknown` is not empty: one message naming every name and its release. */
export function unknownTraitsError(unknown: readonly string[], catalogue: TraitCatalogue): FerryError {
  const target = catalogue.version === 'placement' ? 'the target Placement' : `os-traits ${catalogue.version}`;
  return new FerryError(
    'FERRY_UNKNOWN_TRAIT',
    `${unknown.length} trait name(s) are not known to ${target}, so Placement would refuse the update: ` +
      unknown.map((name) => describeMissingTrait(name, catalogue)).join('; '),
    'Build the catalogue from what Placement runs (GET /traits, or the os-traits version it has installed) so ferry ' +
      'leaves these names out, or upgrade os-traits where Placement runs.',
    { unknown, catalogueVersion: catalogue.version },
  );
}

function unique(names: readonly string[]): readonly string[] {
  return Object.freeze([...new Set(names)].sort());
}
