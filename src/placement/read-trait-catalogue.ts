import { traitCatalogueFromNames } from '../traits/trait-catalogue.js';
import type { TraitCatalogue } from '../traits/trait-catalogue.js';
import type { CallOptions, PlacementClient } from './placement-client.js';

/**
 * The target Placement's own trait list as a catalogue (version `placement`): the standard names of the os-traits it
 * runs plus its CUSTOM_ traits. One `GET /traits` (Placement 8.0.0: 345 names, about 10 kB). With this catalogue
 * ferry emits exactly the names this Placement accepts, whatever its os-traits release.
 */
export async function readTraitCatalogue(placement: PlacementClient, call: CallOptions = {}): Promise<TraitCatalogue> {
  return traitCatalogueFromNames(await placement.listTraits({}, call));
}

/**
 * Which of `names` the target Placement knows, as a catalogue of just those: one `GET /traits?name=in:…`
 * (Placement leaves unknown names out of the answer). No request for an empty list.
 */
export async function knownTraits(placement: PlacementClient, names: readonly string[], call: CallOptions = {}): Promise<TraitCatalogue> {
  const unique = [...new Set(names)].sort();
  if (unique.length === 0) return traitCatalogueFromNames([]);
  return traitCatalogueFromNames(await placement.listTraits({ name: `in:${unique.join(',')}` }, call));
}
