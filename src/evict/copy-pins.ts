import type { GlanceImage } from '../glance/image.js';

// Which copies stay whatever their use: pinned by a flag, by the image itself, or by a sync policy. Pure.

/** The tag that pins an image's copies in every store. */
export const PIN_TAG = 'ferry-pin';
/** The property that pins an image's copies in the stores it lists (comma-separated), or in every store (`*`). */
export const PIN_PROPERTY = 'ferry_pin';

export interface PinSet {
  /** Image IDs or names given with --pin. */
  readonly refs: ReadonlySet<string>;
  /** Image ID → the placements of a sync policy that want it in this store. */
  readonly wanted: ReadonlyMap<string, readonly string[]>;
}

export const NO_PINS: PinSet = Object.freeze({ refs: new Set<string>(), wanted: new Map<string, readonly string[]>() });

export type PinView = Pick<GlanceImage, 'id' | 'name' | 'tags' | 'properties'>;

/** Why `image`'s copy in `store` is pinned, or undefined. The policy's reason first: it is the one an operator edits. */
export function pinOf(image: PinView, store: string, pins: PinSet): string | undefined {
  const placements = pins.wanted.get(image.id);
  if (placements !== undefined && placements.length > 0) return `wanted here by the sync policy (${placements.join(', ')})`;
  if (pins.refs.has(image.id) || (image.name !== null && pins.refs.has(image.name))) return 'pinned by --pin';
  if (image.tags.includes(PIN_TAG)) return `pinned by its tag ${PIN_TAG}`;
  const property = image.properties[PIN_PROPERTY];
  if (typeof property === 'string') {
    const stores = property.split(',').map((part) => part.trim());
    if (stores.includes('*') || stores.includes(store)) return `pinned by its property ${PIN_PROPERTY}=${property}`;
  }
  return undefined;
}
