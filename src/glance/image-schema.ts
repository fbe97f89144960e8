import { z } from 'zod';

// The wire shape of a Glance v2 image: only the fields ferry relies on are typed; every other key passes through
// (looseObject) into `properties` / `raw`. Optional-and-nullable is spelled as a union so that an error message can
// say "expected a string or null" rather than zod's "expected string".

const orNull = <T extends z.ZodType>(schema: T) => z.union([schema, z.null()]);

/**
 * `stores`, `os_glance_importing_to_stores`, `os_glance_failed_import`: Glance sends comma-joined strings (absent or
 * `""` when empty); nova's internal image dicts and their test fakes use real lists, so both are accepted.
 */
export const commaListWire = orNull(z.union([z.string(), z.array(z.string())])).optional();

export const imageLocationWire = z.looseObject({
  url: z.string(),
  metadata: orNull(z.record(z.string(), z.unknown())).optional(),
});

export const imageWire = z.looseObject({
  id: z.string(),
  name: orNull(z.string()).optional(),
  status: z.string(),
  disk_format: orNull(z.string()).optional(),
  container_format: orNull(z.string()).optional(),
  size: orNull(z.number()).optional(),
  owner: orNull(z.string()).optional(),
  visibility: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  tags: z.array(z.string()).optional(),
  locations: z.array(imageLocationWire).optional(),
  direct_url: z.string().optional(),
  stores: commaListWire,
  os_glance_importing_to_stores: commaListWire,
  os_glance_failed_import: commaListWire,
  os_glance_import_task: orNull(z.string()).optional(),
});

export type ImageWire = z.output<typeof imageWire>;

/**
 * Keys of Glance's base image schema (`GET /v2/schemas/image`) plus the four `os_glance_*` keys ferry models.
 * Whatever is not listed here is an additional property (`hw_*`, `os_distro`, custom keys): that is `properties`.
 */
export const BASE_IMAGE_KEYS: ReadonlySet<string> = new Set([
  'id',
  'name',
  'status',
  'visibility',
  'protected',
  'os_hidden',
  'checksum',
  'os_hash_algo',
  'os_hash_value',
  'owner',
  'size',
  'virtual_size',
  'container_format',
  'disk_format',
  'created_at',
  'updated_at',
  'tags',
  'direct_url',
  'min_ram',
  'min_disk',
  'self',
  'file',
  'schema',
  'locations',
  'stores',
  'os_glance_importing_to_stores',
  'os_glance_failed_import',
  'os_glance_import_task',
]);

const NAIVE_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?$/;

/**
 * Glance sends UTC timestamps, but not always with a zone: images and `GET /v2/tasks/{id}` say
 * `2026-11-21T18:05:54Z`, while `GET /v2/images/{id}/tasks` says `2026-11-21T19:24:49.314979` (recorded on 25.1.0).
 * `Date.parse` reads a zoneless date-time as local time, which would shift the 60-min stale-lock rule by the host's
 * UTC offset, so the model appends the `Z` once, here. Anything else is passed through unchanged.
 */
export function asUtcTimestamp(value: string): string {
  return NAIVE_TIMESTAMP.test(value) ? `${value}Z` : value;
}
