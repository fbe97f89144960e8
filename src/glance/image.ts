import { asUtcTimestamp, BASE_IMAGE_KEYS, imageWire } from './image-schema.js';
import type { ImageWire } from './image-schema.js';
import { validateResponse } from '../openstack/validate-response.js';
import { fitImageWire } from './fit-image-wire.js';

/** One entry of an image's `locations` (shown only with `show_multiple_locations` and the location policy). */
export interface ImageLocation {
  readonly url: string;
  /** `metadata.store` when it is a string: the Glance store id that holds this location. */
  readonly store: string | undefined;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** A Glance v2 image as ferry uses it: comma strings already split, every field typed, the raw body kept. */
export interface GlanceImage {
  readonly id: string;
  readonly name: string | null;
  readonly status: string;
  readonly diskFormat: string | null;
  readonly containerFormat: string | null;
  readonly size: number | null;
  readonly owner: string | null;
  readonly visibility: string;
  /** ISO 8601 in UTC, always with a zone. */
  readonly updatedAt: string;
  readonly createdAt: string;
  /** Stores holding the image, in location order. Empty when absent (no data yet, or hidden: see storesVisible). */
  readonly stores: readonly string[];
  /** `os_glance_importing_to_stores`. */
  readonly importingTo: readonly string[];
  /** `os_glance_failed_import`. */
  readonly failedImport: readonly string[];
  /** `os_glance_import_task`: the task holding the image's import lock; undefined when no lock is held. */
  readonly importTask: string | undefined;
  /** undefined = Glance hides them (show_multiple_locations off, or policy get_image_location). */
  readonly locations: readonly ImageLocation[] | undefined;
  readonly directUrl: string | undefined;
  /** false when `stores` is absent on an active image: Glance hides it (location policy) or is not multistore. */
  readonly storesVisible: boolean;
  readonly tags: readonly string[];
  /** Every top-level key outside Glance's base schema (hw_*, os_distro, custom keys). */
  readonly properties: Readonly<Record<string, unknown>>;
  readonly raw: Readonly<Record<string, unknown>>;
}

export const GET_IMAGE_ENDPOINT = 'GET /v2/images/{id}';

/** Parses one image body. A body that does not fit throws FERRY_BAD_RESPONSE naming `endpoint` and the field. */
export function parseImage(raw: unknown, endpoint: string = GET_IMAGE_ENDPOINT): GlanceImage {
  return imageFromWire(fitImageWire(raw) ?? validateResponse(imageWire, raw, endpoint));
}

/** Same as parseImage for an image inside a larger body; `path` makes messages read `images[3].status`. */
export function parseImageAt(raw: unknown, endpoint: string, path: readonly (string | number)[]): GlanceImage {
  return imageFromWire(fitImageWire(raw) ?? validateResponse(imageWire, raw, endpoint, path));
}

/** Whole-token membership: `ceph` is not in `['ceph-edge1']` (the substring trap nova and Glance's tests fall into). */
export function hasStore(list: readonly string[], store: string): boolean {
  return list.includes(store);
}

/**
 * Splits Glance's comma-joined store lists once: absent, null or `""` is empty; pieces are trimmed, empty pieces
 * dropped, and a store named again dropped (its first mention kept). Real arrays (nova-style fakes) get the same trimming.
 */
export function parseStoreList(value: string | readonly string[] | null | undefined): readonly string[] {
  if (value === undefined || value === null || value === '') return NO_STORES;
  const pieces = typeof value === 'string' ? value.split(',') : value;
  // A store named twice is one store: counted twice, its only copy would not look like the image's last location.
  const stores = pieces.map((piece) => piece.trim()).filter((piece, at, all) => piece !== '' && all.indexOf(piece) === at);
  return stores.length === 0 ? NO_STORES : Object.freeze(stores);
}

/** One frozen empty list for every image with none (most have no import running, no failed import). */
const NO_STORES: readonly string[] = Object.freeze([]);

/**
 * `wire` is the answer's own object as the client parsed it (fitImageWire), or zod's fresh copy: it becomes `raw` and
 * its locations' metadata the locations', frozen, rather than copied again (a fleet's listing holds 10 000 images).
 */
function imageFromWire(wire: ImageWire): GlanceImage {
  const properties: Record<string, unknown> = {};
  for (const key of Object.keys(wire)) {
    if (!BASE_IMAGE_KEYS.has(key)) properties[key] = wire[key];
  }
  const importTask = wire.os_glance_import_task ?? undefined;
  return Object.freeze({
    id: wire.id,
    name: wire.name ?? null,
    status: wire.status,
    diskFormat: wire.disk_format ?? null,
    containerFormat: wire.container_format ?? null,
    size: wire.size ?? null,
    owner: wire.owner ?? null,
    visibility: wire.visibility,
    updatedAt: asUtcTimestamp(wire.updated_at),
    createdAt: asUtcTimestamp(wire.created_at),
    stores: parseStoreList(wire.stores),
    importingTo: parseStoreList(wire.os_glance_importing_to_stores),
    failedImport: parseStoreList(wire.os_glance_failed_import),
    importTask: importTask === '' ? undefined : importTask,
    locations: wire.locations === undefined ? undefined : Object.freeze(wire.locations.map(locationFromWire)),
    directUrl: wire.direct_url,
    storesVisible: !(wire.status === 'active' && (wire.stores === undefined || wire.stores === null)),
    tags: Object.freeze([...(wire.tags ?? [])]),
    properties: Object.freeze(properties),
    raw: Object.freeze(wire),
  });
}

function locationFromWire(wire: NonNullable<ImageWire['locations']>[number]): ImageLocation {
  const metadata = wire.metadata ?? {};
  const store = metadata['store'];
  return Object.freeze({
    url: wire.url,
    store: typeof store === 'string' && store !== '' ? store : undefined,
    metadata: Object.freeze(metadata),
  });
}
