import type { GlanceImage } from '../glance/image.js';
import type { PrewarmSelection } from '../prewarm/prewarm-selection.js';
import type { SyncPolicy } from './sync-policy.js';

/** Store → image ID → the placements that want the image there. */
export type PolicyWants = ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>;

/**
 * Pure: which images each placement selects, judged on a listing of every image (GET /v2/images?visibility=all, read
 * once for the whole fleet) instead of a listing per placement. The filters mean what Glance's do: a tag is one of the
 * image's tags, properties must all equal (as strings), `all` is every image; ids and names match an image's id or
 * its name. Without `visibility`, community images are left out, as Glance's default listing leaves them out.
 */
export function policyWants(policy: SyncPolicy, images: readonly GlanceImage[]): PolicyWants {
  const wants = new Map<string, Map<string, string[]>>();
  for (const placement of policy.placements) {
    const matches = selectFromListing(placement.selection, images);
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

/** The images of `images` a selection takes, in listing order. */
export function selectFromListing(selection: PrewarmSelection, images: readonly GlanceImage[]): readonly GlanceImage[] {
  const refs = selection.images ?? [];
  if (refs.length > 0) {
    const wanted = new Set(refs.map((ref) => ref.trim()));
    return images.filter((image) => wanted.has(image.id) || (image.name !== null && wanted.has(image.name)));
  }
  const visibility = selection.visibility;
  return images.filter((image) => {
    if (visibility === undefined ? image.visibility === 'community' : visibility !== 'all' && image.visibility !== visibility) return false;
    if (selection.all === true) return true;
    if (selection.tag !== undefined && !image.tags.includes(selection.tag)) return false;
    return Object.entries(selection.properties ?? {}).every(([key, value]) => {
      // Glance compares the stored text; a property ferry reads back as a number or boolean compares as its JSON text.
      const held = image.properties[key];
      return held !== undefined && held !== null && (typeof held === 'string' ? held : JSON.stringify(held)) === value;
    });
  });
}
