import type { GlanceImage } from '../glance/image.js';
import { ownedBy } from './project-owners.js';

// Which copies stay whatever their use: pinned by a flag, by a sync policy, or by the image itself when a project the
// operator trusts owns it. Pure.

/** The tag that pins an image's copies in every store. */
export const PIN_TAG = 'ferry-pin';
/** The property that pins an image's copies in the stores it lists (comma-separated), or in every store (`*`). */
export const PIN_PROPERTY = 'ferry_pin';

export interface PinSet {
  /** Image IDs given with --pin (its names resolved on the listing first: cli/inputs/pin-flags.ts). */
  readonly refs: ReadonlySet<string>;
  /** Image ID → the placements of a sync policy that want it in this store. */
  readonly wanted: ReadonlyMap<string, readonly string[]>;
  /**
   * The pin owners: projects whose images' own tag or property pins. Any project may tag its own image, and the agent
   * copies whatever a boot asks for: a pin honoured from anyone would let a tenant keep its copies everywhere and a
   * budget from ever being met. Empty: no image pins itself; `*`: every project's does (project-owners.ts).
   */
  readonly owners: ReadonlySet<string>;
}

export const NO_PINS: PinSet = Object.freeze({ refs: new Set<string>(), wanted: new Map<string, readonly string[]>(), owners: new Set<string>() });

export type PinView = Pick<GlanceImage, 'id' | 'name' | 'owner' | 'tags' | 'properties'>;

/** Why `image`'s copy in `store` is pinned, or undefined. The policy's reason first: it is the one an operator edits. */
export function pinOf(image: PinView, store: string, pins: PinSet): string | undefined {
  const placements = pins.wanted.get(image.id);
  if (placements !== undefined && placements.length > 0) return `wanted here by the sync policy (${placements.join(', ')})`;
  // By id only: --pin's names were resolved on the listing (pin-flags.ts); an image merely named like a pinned ref is
  // any project's to name so.
  if (pins.refs.has(image.id)) return 'pinned by --pin';
  const own = ownPinOf(image, store);
  if (own === undefined || !isPinOwner(image, pins)) return undefined;
  return `pinned by ${own} (owner ${image.owner ?? ''}, a pin owner)`;
}

/** The image's own pin in `store` when it does not count (its owner is not a pin owner), said as a plan says it; else undefined. */
export function ignoredPinOf(image: PinView, store: string, pins: PinSet): string | undefined {
  const own = ownPinOf(image, store);
  if (own === undefined || isPinOwner(image, pins)) return undefined;
  return `${own} ignored: owner ${image.owner ?? '(none)'} is not a pin owner`;
}

/** Image ID → its ignored pin (ignoredPinOf), for the images with a copy in `store`: a plan says why such a copy is not pinned. */
export function ignoredPins(images: readonly (PinView & Pick<GlanceImage, 'stores'>)[], store: string, pins: PinSet): ReadonlyMap<string, string> {
  const ignored = new Map<string, string>();
  for (const image of images) {
    if (!image.stores.includes(store)) continue;
    const note = ignoredPinOf(image, store, pins);
    if (note !== undefined) ignored.set(image.id, note);
  }
  return ignored;
}

function isPinOwner(image: PinView, pins: PinSet): boolean {
  return ownedBy(image.owner, pins.owners);
}

/** What on the image asks to pin its copy in `store`: its tag, or its property naming the store or `*`. */
function ownPinOf(image: PinView, store: string): string | undefined {
  if (image.tags.includes(PIN_TAG)) return `its tag ${PIN_TAG}`;
  const property = image.properties[PIN_PROPERTY];
  if (typeof property !== 'string') return undefined;
  const stores = property.split(',').map((part) => part.trim());
  return stores.includes('*') || stores.includes(store) ? `its property ${PIN_PROPERTY}=${property}` : undefined;
}
