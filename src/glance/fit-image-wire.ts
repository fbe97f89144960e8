import { imageWire, type ImageWire } from './image-schema.js';

// A fleet's listing is thousands of images (issue 28: 10 000 images of 11 locations each in 50 pages), and zod's
// looseObject costs ~40 µs per such image (bench/fleet-plan.ts: ~0.4 s of the sync plan's 1 s). fitImageWire checks
// the same fields by hand and gives what imageWire.parse would give for the bodies it accepts: the same keys in the
// same order (the schema's first, then the others as sent), fresh objects for the image, its locations and their
// metadata. It accepts only what the schema accepts; anything else (a missing field, a wrong type, an object that is
// not plain) gets undefined, and the caller runs the schema, whose message names the field.

const SHAPE_KEYS: readonly string[] = Object.keys(imageWire.shape);
const SHAPE: ReadonlySet<string> = new Set(SHAPE_KEYS);
const LOCATION_KEYS: ReadonlySet<string> = new Set(['url', 'metadata']);

const isPlain = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
const absent = (value: unknown): boolean => value === undefined;
const stringOrNull = (value: unknown): boolean => value === undefined || value === null || typeof value === 'string';
const stringArray = (value: unknown): boolean => Array.isArray(value) && value.every((item) => typeof item === 'string');
const commaList = (value: unknown): boolean => stringOrNull(value) || stringArray(value);

function fits(raw: Record<string, unknown>): boolean {
  return typeof raw['id'] === 'string' && typeof raw['status'] === 'string' && typeof raw['visibility'] === 'string'
    && typeof raw['created_at'] === 'string' && typeof raw['updated_at'] === 'string'
    && stringOrNull(raw['name']) && stringOrNull(raw['disk_format']) && stringOrNull(raw['container_format']) && stringOrNull(raw['owner'])
    && (raw['size'] === undefined || raw['size'] === null || Number.isFinite(raw['size']))
    && (absent(raw['tags']) || stringArray(raw['tags']))
    && (absent(raw['direct_url']) || typeof raw['direct_url'] === 'string')
    && commaList(raw['stores']) && commaList(raw['os_glance_importing_to_stores']) && commaList(raw['os_glance_failed_import'])
    && stringOrNull(raw['os_glance_import_task'])
    && (absent(raw['locations']) || (Array.isArray(raw['locations']) && raw['locations'].every((location: unknown) => isPlain(location)
      && typeof location['url'] === 'string' && (location['metadata'] === undefined || location['metadata'] === null || isPlain(location['metadata'])))));
}

/** `keys` first (those present), then every other key of `raw` in its order: zod's looseObject output order. */
function ordered(raw: Record<string, unknown>, keys: Iterable<string>, known: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (Object.hasOwn(raw, key)) out[key] = raw[key];
  for (const key of Object.keys(raw)) if (!known.has(key)) out[key] = raw[key];
  return out;
}

/** The image body as imageWire.parse gives it, when it fits; undefined when the schema must judge it. */
export function fitImageWire(raw: unknown): ImageWire | undefined {
  if (!isPlain(raw) || !fits(raw)) return undefined;
  const out = ordered(raw, SHAPE_KEYS, SHAPE);
  const locations = raw['locations'] as Record<string, unknown>[] | undefined;
  if (locations !== undefined) {
    out['locations'] = locations.map((location) => {
      const copy = ordered(location, LOCATION_KEYS, LOCATION_KEYS);
      const metadata = location['metadata'];
      if (isPlain(metadata)) copy['metadata'] = { ...metadata };
      return copy;
    });
  }
  if (Array.isArray(raw['tags'])) out['tags'] = [...(raw['tags'] as string[])];
  for (const key of ['stores', 'os_glance_importing_to_stores', 'os_glance_failed_import']) {
    if (Array.isArray(raw[key])) out[key] = [...(raw[key] as string[])];
  }
  return out as ImageWire;
}
