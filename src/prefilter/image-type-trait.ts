import { IMAGE_FORMATS } from '../backend/image-formats.js';
import type { TraitCatalogue } from '../traits/trait-catalogue.js';
import type { DerivedTraits } from './image-metadata-traits.js';
import { missingTraitReason } from './missing-trait-reason.js';

const PREFIX = 'COMPUTE_IMAGE_TYPE_';
// Made once per Glance format, so every call hands the catalogue the same string (its hash is kept).
const NAMES = new Map<string, string>(IMAGE_FORMATS.map((format) => [format, `${PREFIX}${format.toUpperCase()}`]));

/**
 * nova's `require_image_type_support`: the host must support the image's disk_format. An image without a
 * disk_format (never uploaded) or with a format that has no trait is reported, not guessed.
 */
export function imageTypeTrait(diskFormat: string | undefined, catalogue: TraitCatalogue): DerivedTraits {
  if (diskFormat === undefined || diskFormat === '') {
    return { traits: [], unmapped: [{ property: 'disk_format', value: '', kind: 'invalid-value',
      reason: 'the image has no disk_format (no data uploaded yet), so the image type cannot be required' }] };
  }
  const name = NAMES.get(diskFormat) ?? `${PREFIX}${diskFormat.toUpperCase()}`;
  if (!catalogue.has(name)) {
    return { traits: [], unmapped: [{ property: 'disk_format', value: diskFormat, kind: 'unknown-trait', trait: name,
      reason: missingTraitReason(name, catalogue) }] };
  }
  return { traits: [{ name, reason: `image disk_format=${diskFormat} (image-type prefilter)` }], unmapped: [] };
}
