import type { TraitCatalogue } from '../traits/trait-catalogue.js';

/** `COMPUTE_NET_VIF_MODEL_IGB is not in os-traits 2.9.0 (first in os-traits 3.2.0)`: one wording for every report. */
export function missingTraitReason(name: string, catalogue: TraitCatalogue): string {
  return `${name} is not in ${catalogueLabel(catalogue)}${firstIn(name, catalogue)}`;
}

/** `os-traits 2.9.0`, or `the target Placement` for a catalogue read from a server. */
export function catalogueLabel(catalogue: TraitCatalogue): string {
  return catalogue.version === 'placement' ? 'the target Placement' : `os-traits ${catalogue.version}`;
}

function firstIn(name: string, catalogue: TraitCatalogue): string {
  const first = catalogue.firstVersionOf(name);
  return first === undefined ? '' : ` (first in os-traits ${first})`;
}
