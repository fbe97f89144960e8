import type { ImageWire } from './image-schema.js';

// A fleet's listing is thousands of images (issue 28: 10 000 images of 11 locations each in 50 pages), and zod's
// looseObject parse costs more than the plan that reads them and makes a second copy of every body, its locations and
// their metadata (bench/fleet-plan.ts). fitImageWire checks the fields ferry relies on by hand, as imageWire does, and
// hands back the body itself: the image keeps the keys in the order Glance sent them (zod puts its schema's first).
// It accepts only what the schema accepts; anything else (a missing field, a wrong type, an object that is not plain)
// gets undefined, and the caller runs the schema, whose message names the field.

const isPlain = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
const stringOrNull = (value: unknown): boolean => value === undefined || value === null || typeof value === 'string';
const stringArray = (value: unknown): boolean => Array.isArray(value) && value.every((item) => typeof item === 'string');
const commaList = (value: unknown): boolean => stringOrNull(value) || stringArray(value);
const isLocation = (value: unknown): boolean => isPlain(value) && typeof value['url'] === 'string'
  && (value['metadata'] === undefined || value['metadata'] === null || isPlain(value['metadata']));

/**
 * The body, when it fits imageWire; undefined when the schema must judge it. The body becomes the image's frozen `raw`:
 * pass the client's freshly parsed answer, not an object someone still writes to.
 */
export function fitImageWire(raw: unknown): ImageWire | undefined {
  if (!isPlain(raw)) return undefined;
  const fits = typeof raw['id'] === 'string' && typeof raw['status'] === 'string' && typeof raw['visibility'] === 'string'
    && typeof raw['created_at'] === 'string' && typeof raw['updated_at'] === 'string'
    && stringOrNull(raw['name']) && stringOrNull(raw['disk_format']) && stringOrNull(raw['container_format']) && stringOrNull(raw['owner'])
    && (raw['size'] === undefined || raw['size'] === null || Number.isFinite(raw['size']))
    && (raw['tags'] === undefined || stringArray(raw['tags']))
    && (raw['direct_url'] === undefined || typeof raw['direct_url'] === 'string')
    && commaList(raw['stores']) && commaList(raw['os_glance_importing_to_stores']) && commaList(raw['os_glance_failed_import'])
    && stringOrNull(raw['os_glance_import_task'])
    && (raw['locations'] === undefined || (Array.isArray(raw['locations']) && raw['locations'].every(isLocation)));
  return fits ? raw as ImageWire : undefined;
}
