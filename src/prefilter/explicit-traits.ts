import type { TraitCatalogue } from '../traits/trait-catalogue.js';
import type { TraitWithReason } from './image-metadata-traits.js';
import { stringProperty } from './prefilter-image.js';
import type { ImageProperties } from './prefilter-image.js';
import type { UnmappedProperty } from './prefilter-result.js';

export interface ExplicitTraits {
  readonly required: readonly TraitWithReason[];
  readonly forbidden: readonly TraitWithReason[];
  readonly unmapped: readonly UnmappedProperty[];
  /** `trait:NAME` entries whose NAME the catalogue does not know: Placement would answer 400 for the whole query. */
  readonly unknown: readonly { readonly name: string; readonly reason: string }[];
}

const UNSUFFIXED = 'trait:';
// Granular groups (`trait1:`, `trait_GPU:`) belong to numbered/suffixed resource groups ferry does not build.
const GRANULAR = /^trait(\d+|_[A-Za-z0-9_-]+):/;

/**
 * The traits a flavor (extra specs) or an image (properties) asks for explicitly with `trait:NAME=required|forbidden`.
 * nova puts these in the unsuffixed group (`required=`), not in `root_required`. `origin` names the source in reasons.
 */
export function explicitTraits(entries: ImageProperties, origin: 'image property' | 'flavor extra spec', catalogue: TraitCatalogue): ExplicitTraits {
  const required: TraitWithReason[] = [];
  const forbidden: TraitWithReason[] = [];
  const unmapped: UnmappedProperty[] = [];
  const unknown: { name: string; reason: string }[] = [];
  for (const key of Object.keys(entries)) {
    if (!key.startsWith('trait')) continue;
    const value = stringProperty(entries, key);
    if (value === undefined) continue;
    if (GRANULAR.test(key)) {
      unmapped.push({ property: key, value, kind: 'not-expressible',
        reason: `${origin} ${key} belongs to a granular request group, which ferry does not build; hosts are checked without it` });
      continue;
    }
    if (!key.startsWith(UNSUFFIXED)) continue;
    const name = key.slice(UNSUFFIXED.length);
    const reason = `${origin} ${key}=${value}`;
    if (value !== 'required' && value !== 'forbidden') {
      unmapped.push({ property: key, value, kind: 'invalid-value', trait: name,
        reason: `'${value}' is neither required nor forbidden; nova ignores this ${origin}` });
      continue;
    }
    if (!catalogue.has(name)) {
      unknown.push({ name, reason });
      continue;
    }
    (value === 'required' ? required : forbidden).push({ name, reason });
  }
  return { required, forbidden, unmapped, unknown };
}
