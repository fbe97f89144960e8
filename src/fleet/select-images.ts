import pLimit from 'p-limit';
import { FerryError, isFerryError } from '../errors/ferry-error.js';
import type { GlanceClient } from '../glance/glance-client.js';
import type { GlanceImage } from '../glance/image.js';
import { parseImageRef } from '../glance/image-ref.js';
import { assertSelection, type PrewarmSelection } from './prewarm-selection.js';

/** A named image that could not be resolved: reported per image, so one typo does not stop the rest. */
export interface UnresolvedImage {
  readonly ref: string;
  readonly code: UnresolvedCode;
  readonly reason: string;
}

/** Why a named image did not resolve: none by that ID or name, two of that name, or not an image reference at all. */
export type UnresolvedCode = (typeof UNRESOLVED_CODES)[number];

const UNRESOLVED_CODES = ['FERRY_IMAGE_NOT_FOUND', 'FERRY_IMAGE_AMBIGUOUS', 'FERRY_INVALID_IMAGE_REF'] as const;

/** Why a named image is unresolved when Glance has none by that ID or name (resolveListedRefs says the same). */
export function notFoundReason(ref: string): string {
  return `Glance has no image with ID or name '${ref}' visible to this project`;
}

export interface SelectedImages {
  /** In selection order (names as given, listings as Glance sorts them), each image once. */
  readonly images: readonly GlanceImage[];
  readonly unresolved: readonly UnresolvedImage[];
}

export const SELECT_DEFAULTS = {
  /** Glance's own page size cap is api_limit_max (1000); 200 keeps each answer small on a busy single-process API. */
  pageSize: 200,
  /** Named images are looked up a few at a time. */
  lookups: 4,
  /** Image IDs per `id=in:` listing: keeps the URL well under common 8 KiB limits. */
  idsPerList: 50,
  /** A listing larger than this is refused rather than copied: a runaway --all on a public cloud. */
  maxImages: 20_000,
} as const;

export interface SelectOptions {
  readonly signal?: AbortSignal | undefined;
  readonly pageSize?: number;
  readonly maxImages?: number;
}

/** Read the selected images from Glance: one GET per name, or the listing page by page. */
export async function selectImages(glance: GlanceClient, selection: PrewarmSelection, options: SelectOptions = {}): Promise<SelectedImages> {
  assertSelection(selection);
  const { signal } = options;
  if ((selection.images ?? []).length > 0) return resolveNamed(glance, selection.images ?? [], signal);

  const pageSize = options.pageSize ?? SELECT_DEFAULTS.pageSize;
  const maxImages = options.maxImages ?? SELECT_DEFAULTS.maxImages;
  const images: GlanceImage[] = [];
  const seen = new Set<string>();
  let marker: string | undefined;
  for (;;) {
    const page = await glance.listImages({
      limit: pageSize,
      ...(marker === undefined ? {} : { marker }),
      ...(selection.tag === undefined ? {} : { tag: selection.tag }),
      ...(selection.visibility === undefined ? {} : { visibility: selection.visibility }),
      ...(selection.properties === undefined ? {} : { filters: selection.properties }),
    }, { signal });
    for (const image of page.images) {
      if (seen.has(image.id)) continue;
      seen.add(image.id);
      images.push(image);
    }
    if (images.length > maxImages) {
      throw new FerryError('FERRY_INVALID_OPTION', `the selection matches more than ${maxImages} images`,
        'Narrow it with --tag, --property or --visibility, or name the images.', { maxImages });
    }
    const last = page.images.at(-1);
    // A page without a `next` link is the last; a repeated marker would loop forever.
    if (page.next === undefined || last === undefined || last.id === marker) break;
    marker = last.id;
  }
  return Object.freeze({ images: Object.freeze(images), unresolved: Object.freeze([]) });
}

async function resolveNamed(glance: GlanceClient, refs: readonly string[], signal: AbortSignal | undefined): Promise<SelectedImages> {
  const byId = await listByIds(glance, refs, signal);
  const limit = pLimit(SELECT_DEFAULTS.lookups);
  const found = await Promise.all(refs.map((ref) => limit(async (): Promise<GlanceImage | UnresolvedImage> => {
    const listed = byId.get(ref.trim().toLowerCase());
    if (listed !== undefined) return listed;
    try {
      const image = await glance.findImage(ref, { signal });
      return image ?? { ref, code: 'FERRY_IMAGE_NOT_FOUND', reason: notFoundReason(ref) };
    } catch (error) {
      const code = UNRESOLVED_CODES.find((candidate) => isFerryError(error, candidate));
      if (code !== undefined && error instanceof Error) return { ref, code, reason: error.message };
      throw error;
    }
  })));
  return selectedOf(found);
}

/** Named images as resolved, in the order named: each image once, and every ref that did not resolve. */
export function selectedOf(found: readonly (GlanceImage | UnresolvedImage)[]): SelectedImages {
  const images: GlanceImage[] = [];
  const unresolved: UnresolvedImage[] = [];
  const seen = new Set<string>();
  for (const entry of found) {
    if ('ref' in entry) {
      unresolved.push(entry);
    } else if (!seen.has(entry.id)) {
      seen.add(entry.id);
      images.push(entry);
    }
  }
  return Object.freeze({ images: Object.freeze(images), unresolved: Object.freeze(unresolved) });
}

/**
 * The refs that are image IDs, read a page at a time (`GET /v2/images?id=in:…`) instead of one GET each. Whatever the
 * listing leaves out (hidden or community images, names that look like IDs) is looked up one by one afterwards.
 */
async function listByIds(glance: GlanceClient, refs: readonly string[], signal: AbortSignal | undefined): Promise<Map<string, GlanceImage>> {
  const ids = [...new Set(refs.flatMap((ref) => {
    try {
      const parsed = parseImageRef(ref);
      return parsed.kind === 'id' ? [parsed.id] : [];
    } catch {
      return [];
    }
  }))];
  const found = new Map<string, GlanceImage>();
  for (let i = 0; i < ids.length; i += SELECT_DEFAULTS.idsPerList) {
    const chunk = ids.slice(i, i + SELECT_DEFAULTS.idsPerList);
    const page = await glance.listImages({ limit: chunk.length, filters: { id: `in:${chunk.join(',')}` } }, { signal });
    for (const image of page.images) found.set(image.id.toLowerCase(), image);
  }
  return found;
}
