import type { GlanceImage } from '../glance/image.js';
import type { PrewarmSelection } from './prewarm-selection.js';
import { indexListing, inDefaultListing, resolveListedRefs, type ListingIndex } from './resolve-listed-refs.js';
import type { SelectedImages, UnresolvedImage } from './select-images.js';
import type { SyncPolicy } from './sync-policy.js';

/** Store → image ID → the placements that want the image there. */
export type PolicyWants = ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>;

/**
 * Pure: which images each placement selects, judged on a listing of every image (GET /v2/images?visibility=all, read
 * once for the whole fleet) instead of a listing per placement, with the answers Glance gives the per-placement reads
 * (selectImages) to the same project. The filters mean what Glance's do: a tag is one of the image's tags, properties
 * must all equal (as strings), `all` is every image. Named images resolve as findImage resolves them
 * (resolveListedRefs): an ID as an ID only, a name among what the default listing shows, an ambiguous name not at all.
 * Without `visibility`, other projects' community images are left out, as Glance's default listing leaves them out.
 * `viewerProject`: the project of the token that read the listing (Session.projectId).
 */
export function policyWants(policy: SyncPolicy, images: readonly GlanceImage[], viewerProject: string | undefined): PolicyWants {
  const wants = new Map<string, Map<string, string[]>>();
  const listing = lazyIndex(images, viewerProject);
  for (const placement of policy.placements) {
    const matches = selectFromListing(placement.selection, images, viewerProject, listing).images;
    for (const store of placement.stores) {
      const inStore = wants.get(store) ?? new Map<string, string[]>();
      wants.set(store, inStore);
      for (const image of matches) {
        const names = inStore.get(image.id) ?? [];
        if (!names.includes(placement.name)) names.push(placement.name);
        inStore.set(image.id, names);
      }
    }
  }
  return wants;
}

/** The placements' named images the listing does not resolve (not found, ambiguous, not an ID), each once, with its stores. */
export function unresolvedPolicyRefs(policy: SyncPolicy, images: readonly GlanceImage[], viewerProject: string | undefined):
  { image: UnresolvedImage; stores: string[] }[] {
  const listing = lazyIndex(images, viewerProject);
  const unresolved = new Map<string, { image: UnresolvedImage; stores: string[] }>();
  for (const placement of policy.placements) {
    if ((placement.selection.images ?? []).length === 0) continue;
    for (const image of selectFromListing(placement.selection, images, viewerProject, listing).unresolved) {
      const entry = unresolved.get(image.ref) ?? { image, stores: [] };
      entry.stores.push(...placement.stores.filter((store) => !entry.stores.includes(store)));
      unresolved.set(image.ref, entry);
    }
  }
  return [...unresolved.values()];
}

/** The images of `images` a selection takes (in listing order; named ones in the order named), and the names it could not resolve. */
export function selectFromListing(selection: PrewarmSelection, images: readonly GlanceImage[], viewerProject: string | undefined,
  listing: () => ListingIndex = lazyIndex(images, viewerProject)): SelectedImages {
  const refs = selection.images ?? [];
  if (refs.length > 0) return resolveListedRefs(refs, listing());
  const visibility = selection.visibility;
  const selected = images.filter((image) => {
    if (visibility === undefined ? !inDefaultListing(image, viewerProject) : visibility !== 'all' && image.visibility !== visibility) return false;
    if (selection.all === true) return true;
    if (selection.tag !== undefined && !image.tags.includes(selection.tag)) return false;
    return Object.entries(selection.properties ?? {}).every(([key, value]) => {
      // Glance compares the stored text; a property ferry reads back as a number or boolean compares as its JSON text.
      const held = image.properties[key];
      return held !== undefined && held !== null && (typeof held === 'string' ? held : JSON.stringify(held)) === value;
    });
  });
  return Object.freeze({ images: selected, unresolved: Object.freeze([]) });
}

/** The listing indexed once, and only if a placement names images (a policy of tags never needs it). */
function lazyIndex(images: readonly GlanceImage[], viewerProject: string | undefined): () => ListingIndex {
  let index: ListingIndex | undefined;
  return () => (index ??= indexListing(images, viewerProject));
}
