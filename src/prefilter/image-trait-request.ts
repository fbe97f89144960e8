import { FerryError } from '../errors/ferry-error.js';
import { standardTraitCatalogue } from '../traits/trait-catalogue.js';
import type { TraitCatalogue } from '../traits/trait-catalogue.js';
import { assertNoTraitConflict } from './assert-no-trait-conflict.js';
import { formatTraitQuery, parseMicroversion, PLACEMENT_MICROVERSIONS } from './build-allocation-candidates-query.js';
import { explicitTraits } from './explicit-traits.js';
import { imageMetadataTraits } from './image-metadata-traits.js';
import type { TraitWithReason } from './image-metadata-traits.js';
import { imageTypeTrait } from './image-type-trait.js';
import { missingTraitReason } from './missing-trait-reason.js';
import { parsePrefilterImage } from './prefilter-image.js';
import type { FilterState, PrefilterResult, UnmappedProperty } from './prefilter-result.js';

export interface ImageTraitOptions {
  /** The traits the target Placement knows; default the os-traits 2.9.0 catalogue. Pass Placement's own list for CUSTOM_ traits. */
  readonly catalogue?: TraitCatalogue;
  /** `[scheduler] query_placement_for_image_type_support`; default PREFILTER_DEFAULTS.imageTypeFilter. */
  readonly imageTypeFilter?: boolean;
  /** `[scheduler] image_metadata_prefilter`; default PREFILTER_DEFAULTS.imageMetadataFilter. */
  readonly imageMetadataFilter?: boolean;
  /** nova's compute_status_filter (always on in nova): forbid COMPUTE_STATUS_DISABLED on the root. */
  readonly forbidDisabled?: boolean;
  /** The server boots from a volume: the image-type filter does not apply (nova skips it too). */
  readonly bootFromVolume?: boolean;
  /** The flavor's extra specs; `trait:NAME=required|forbidden` entries are merged in. */
  readonly flavorExtraSpecs?: Readonly<Record<string, string>>;
  /** Fail with FERRY_UNKNOWN_TRAIT when a property gives no trait, instead of listing it in `unmapped`. */
  readonly strict?: boolean;
  /** Placement microversion the query is for; default PREFILTER_DEFAULTS.microversion (what nova sends). */
  readonly microversion?: string;
  /** The unsuffixed resources (`VCPU:1,MEMORY_MB:512`); when given, `query` is a complete request. */
  readonly resources?: string;
  readonly limit?: number;
}

/**
 * ferry exists to prefilter, so both image filters default on (nova defaults them off); set them from nova.conf to
 * reproduce exactly what a given nova scheduler asks.
 */
export const PREFILTER_DEFAULTS = {
  imageTypeFilter: true, imageMetadataFilter: true, forbidDisabled: true, bootFromVolume: false, strict: false, microversion: '1.36',
} as const;

const DISABLED = 'COMPUTE_STATUS_DISABLED';
let defaultCatalogue: TraitCatalogue | undefined;

/**
 * The traits a host needs to take this image (and flavor), with the reason for each, what could not be mapped, and
 * the allocation-candidates query. Pure: no request is made. Throws FERRY_UNKNOWN_TRAIT for an unknown explicit
 * `trait:` name (or any unmapped property with `strict`), FERRY_TRAIT_CONFLICT when a trait is both required and
 * forbidden, FERRY_INVALID_OPTION when the microversion cannot express the request.
 */
export function imageTraitRequest(image: unknown, options: ImageTraitOptions = {}): PrefilterResult {
  const catalogue = options.catalogue ?? (defaultCatalogue ??= standardTraitCatalogue());
  const minor = parseMicroversion(options.microversion ?? PREFILTER_DEFAULTS.microversion);
  const microversion = `1.${minor}`;
  const parsed = parsePrefilterImage(image);
  const rootRequired: TraitWithReason[] = [];
  const rootForbidden: TraitWithReason[] = [];
  const unmapped: UnmappedProperty[] = [];

  const imageTypeOn = options.imageTypeFilter ?? PREFILTER_DEFAULTS.imageTypeFilter;
  const bootFromVolume = options.bootFromVolume ?? PREFILTER_DEFAULTS.bootFromVolume;
  const imageType: FilterState = !imageTypeOn ? 'disabled' : bootFromVolume ? 'skipped' : 'applied';
  if (imageType === 'applied') {
    const derived = imageTypeTrait(parsed.diskFormat, catalogue);
    rootRequired.push(...derived.traits);
    unmapped.push(...derived.unmapped);
  }
  const imageMetadata: FilterState = options.imageMetadataFilter ?? PREFILTER_DEFAULTS.imageMetadataFilter ? 'applied' : 'disabled';
  if (imageMetadata === 'applied') {
    const derived = imageMetadataTraits(parsed.properties, catalogue);
    rootRequired.push(...derived.traits);
    unmapped.push(...derived.unmapped);
  }
  const computeStatus: FilterState = options.forbidDisabled ?? PREFILTER_DEFAULTS.forbidDisabled ? 'applied' : 'disabled';
  if (computeStatus === 'applied') rootForbidden.push({ name: DISABLED, reason: 'compute_status_filter: disabled computes are never candidates' });

  const fromImage = explicitTraits(parsed.properties, 'image property', catalogue);
  const fromFlavor = explicitTraits(options.flavorExtraSpecs ?? {}, 'flavor extra spec', catalogue);
  unmapped.push(...fromImage.unmapped, ...fromFlavor.unmapped);
  const unknownExplicit = [...fromFlavor.unknown, ...fromImage.unknown];
  if (unknownExplicit.length > 0) {
    throw new FerryError('FERRY_UNKNOWN_TRAIT',
      `${unknownExplicit.map((u) => `${u.reason}: ${missingTraitReason(u.name, catalogue)}`).join('; ')}; Placement would reject the whole query`,
      'Fix the trait name, create the CUSTOM_ trait in Placement first, or pass the catalogue of the Placement you ask (GET /traits).',
      { traits: unknownExplicit.map((u) => u.name), catalogueVersion: catalogue.version });
  }
  const failing = unmapped.filter((u) => u.kind !== 'not-expressible');
  if ((options.strict ?? PREFILTER_DEFAULTS.strict) && failing.length > 0) {
    throw new FerryError('FERRY_UNKNOWN_TRAIT',
      `image${parsed.id === undefined ? '' : ` ${parsed.id}`}: ${failing.map((u) => `${u.property}=${u.value}: ${u.reason}`).join('; ')}`,
      'Fix or remove the property, move to an os-traits/Placement that has the trait, or run without strict to keep the traits that exist.',
      { unmapped: failing });
  }

  // Keys are catalogue names ([A-Z0-9_]), so a plain object is safe, and faster here than a Map turned into one.
  const reasons: Record<string, string[]> = {};
  const request = {
    root_required: collectTraits(rootRequired, reasons),
    root_forbidden: collectTraits(rootForbidden, reasons),
    required: collectTraits([...fromFlavor.required, ...fromImage.required], reasons),
    forbidden: collectTraits([...fromFlavor.forbidden, ...fromImage.forbidden], reasons),
  };
  assertNoTraitConflict(request, reasons);
  // Every name above was checked against the catalogue where it was made, and the lists are sorted and unique.
  const query = formatTraitQuery(request, minor, options.resources, options.limit);
  const notes = minor < PLACEMENT_MICROVERSIONS.rootRequired && request.root_required.length + request.root_forbidden.length > 0
    ? [`microversion ${microversion} has no root_required (1.35): the root traits are sent in required, which a child provider supplying the resources can satisfy instead of the compute node`]
    : [];
  return {
    root_required: request.root_required, root_forbidden: request.root_forbidden, required: request.required, forbidden: request.forbidden,
    query, microversion, reasons, unmapped,
    filters: { image_type: imageType, image_metadata: imageMetadata, compute_status: computeStatus },
    notes,
  };
}

/** Sorted unique names of `list`, recording each one's reasons in `reasons`. */
function collectTraits(list: readonly TraitWithReason[], reasons: Record<string, string[]>): string[] {
  const names: string[] = [];
  for (const { name, reason } of list) {
    const known = reasons[name];
    if (known === undefined) reasons[name] = [reason];
    else known.push(reason);
    if (!names.includes(name)) names.push(name);
  }
  return names.sort();
}
