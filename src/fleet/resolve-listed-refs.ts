import { isFerryError } from '../errors/ferry-error.js';
import type { GlanceImage } from '../glance/image.js';
import { ambiguousName, parseImageRef } from '../glance/image-ref.js';
import { notFoundReason, selectedOf, type SelectedImages, type UnresolvedImage } from './select-images.js';

/**
 * Pure: named images (IDs or names) resolved on a listing of every image the caller may see (GET /v2/images?visibility=all)
 * exactly as selectImages resolves them one GET at a time (glance-client.ts findImage), so that a policy with budgets
 * selects what the same policy without them selects:
 * - an ID matches that image's ID only, never a name (anyone may name an image like another's ID);
 * - a name matches among the images Glance's default listing shows: community images only when the caller's project
 *   owns them (Glance's image_get_all), so another project's community image named like the golden one is never taken;
 * - two images of that name are FERRY_IMAGE_AMBIGUOUS, none FERRY_IMAGE_NOT_FOUND, with findImage's messages.
 * Differs in one case only, on the safe side: an image shared with the caller but not accepted is found by its ID with a
 * GET, and is not in the listing (unresolved here).
 * The listing is indexed once (indexListing) for all the refs of a policy.
 */
export function resolveListedRefs(refs: readonly string[], listing: ListingIndex): SelectedImages {
  return selectedOf(refs.map((ref) => resolveOne(ref, listing.byId, listing.byName)));
}

/** A listing by ID and by name, as the caller's project sees it. */
export interface ListingIndex {
  readonly byId: ReadonlyMap<string, GlanceImage>;
  /** Only what Glance's default listing shows (inDefaultListing). */
  readonly byName: ReadonlyMap<string, readonly GlanceImage[]>;
}

/** `viewerProject`: the token's project; undefined (a plain token) counts no community image for a name. */
export function indexListing(images: readonly GlanceImage[], viewerProject: string | undefined): ListingIndex {
  const byId = new Map<string, GlanceImage>();
  const byName = new Map<string, GlanceImage[]>();
  for (const image of images) {
    byId.set(image.id.toLowerCase(), image);
    if (image.name === null || !inDefaultListing(image, viewerProject)) continue;
    const named = byName.get(image.name) ?? [];
    named.push(image);
    byName.set(image.name, named);
  }
  return { byId, byName };
}

/** Whether Glance's listing without a visibility filter shows the image to this project (it leaves out others' community images). */
export function inDefaultListing(image: Pick<GlanceImage, 'visibility' | 'owner'>, viewerProject: string | undefined): boolean {
  return image.visibility !== 'community' || (viewerProject !== undefined && image.owner === viewerProject);
}

function resolveOne(ref: string, byId: ReadonlyMap<string, GlanceImage>, byName: ReadonlyMap<string, readonly GlanceImage[]>):
  GlanceImage | UnresolvedImage {
  let parsed;
  try {
    parsed = parseImageRef(ref);
  } catch (error) {
    if (isFerryError(error, 'FERRY_INVALID_IMAGE_REF')) return { ref, code: 'FERRY_INVALID_IMAGE_REF', reason: error.message };
    throw error;
  }
  if (parsed.kind === 'id') return byId.get(parsed.id) ?? { ref, code: 'FERRY_IMAGE_NOT_FOUND', reason: notFoundReason(ref) };
  // findImage asks Glance for the name as given (name=REF, limit 2): the same text here.
  const named = byName.get(ref) ?? [];
  if (named.length > 1) {
    return { ref, code: 'FERRY_IMAGE_AMBIGUOUS', reason: ambiguousName(ref, named.slice(0, 2).map((image) => image.id)).message };
  }
  return named[0] ?? { ref, code: 'FERRY_IMAGE_NOT_FOUND', reason: notFoundReason(ref) };
}
