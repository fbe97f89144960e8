import { isFerryError } from '../errors/ferry-error.js';
import { standardTraitCatalogue, type TraitCatalogue } from '../traits/trait-catalogue.js';

/** What a command knows when it picks the names a trait request is checked against. */
export interface TraitCatalogueNeed {
  /** The catalogue the operator named (--os-traits-version), already loaded: a typo fails before any request. */
  readonly given: TraitCatalogue | undefined;
  /** The command talks to the cloud anyway (an image read from Glance, Placement asked): its list costs one GET. */
  readonly cloud: boolean;
  /** The request goes to this Placement (candidates, explain) or is written into it (traits report): only its names will do. */
  readonly sentToPlacement: boolean;
}

/**
 * Where the names come from: the operator's release; else, without a cloud, ferry's default os-traits release; else
 * the target Placement's own list, which a request sent to it must use, and a look (`ferry prefilter`) may replace by
 * the default release when this account may not read it.
 */
export type TraitCatalogueChoice =
  | { readonly from: 'given' }
  | { readonly from: 'os-traits' }
  | { readonly from: 'placement'; readonly orElse: 'fail' | 'os-traits' };

export function chooseTraitCatalogue(need: TraitCatalogueNeed): TraitCatalogueChoice {
  if (need.given !== undefined) return { from: 'given' };
  if (!need.cloud) return { from: 'os-traits' };
  return { from: 'placement', orElse: need.sentToPlacement ? 'fail' : 'os-traits' };
}

export interface ResolvedTraitCatalogue {
  readonly catalogue: TraitCatalogue;
  readonly choice: TraitCatalogueChoice;
  /** Why Placement's list was not used, when it was wanted and the default release stood in. */
  readonly note?: string;
}

/**
 * The catalogue `need` calls for; `readPlacement` (one GET /traits) is called only when Placement's list is chosen. A
 * look never fails because Placement could not be asked (a coded error other than an abort): the default release
 * stands in, with a note saying why.
 */
export async function resolveTraitCatalogue(need: TraitCatalogueNeed, readPlacement: () => Promise<TraitCatalogue>): Promise<ResolvedTraitCatalogue> {
  const choice = chooseTraitCatalogue(need);
  if (choice.from === 'given' && need.given !== undefined) return { catalogue: need.given, choice };
  if (choice.from !== 'placement') return { catalogue: standardTraitCatalogue(), choice };
  try {
    return { catalogue: await readPlacement(), choice };
  } catch (error) {
    if (choice.orElse === 'fail' || !isFerryError(error) || error.code === 'FERRY_ABORTED') throw error;
    const catalogue = standardTraitCatalogue();
    return { catalogue, choice, note: `names checked against os-traits ${catalogue.version}, not the target Placement's list: ${error.message}` };
  }
}
