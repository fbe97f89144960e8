import { z } from 'zod';
import { FerryError } from '../errors/ferry-error.js';

/**
 * Just the part of a Glance `GET /v2/images/{id}` body the prefilter reads. Glance returns custom properties as
 * top-level string keys; `disk_format` is null until data is uploaded. Every other key passes through untouched.
 */
// Only the two base fields are checked by zod; the rules read the properties one by one. (A loose object schema
// would copy the whole body on every call, which was most of the cost of a prefilter computation.)
const glanceImageSchema = z.object({
  id: z.string().optional(),
  disk_format: z.string().nullable().optional(),
});

export interface PrefilterImage {
  readonly id: string | undefined;
  readonly diskFormat: string | undefined;
  /**
   * The body itself: properties are its top-level keys. Rules read them with `stringProperty` (a non-string value is
   * no property); no copy is made, which keeps a prefilter computation cheap.
   */
  readonly properties: ImageProperties;
}

export type ImageProperties = Readonly<Record<string, unknown>>;

/** The string value of `key`, or undefined when absent or not a string. */
export function stringProperty(properties: ImageProperties, key: string): string | undefined {
  const value = properties[key];
  return typeof value === 'string' ? value : undefined;
}

/** Validate an image body at the boundary; FERRY_INVALID_OPTION when it is not an image object. */
export function parsePrefilterImage(body: unknown): PrefilterImage {
  const result = glanceImageSchema.safeParse(body);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(image)';
    throw new FerryError('FERRY_INVALID_OPTION', `the image is not a Glance image object: field '${field}': ${issue?.message ?? 'unexpected shape'}`,
      'Pass the body of GET /v2/images/{id} as returned by Glance (properties as top-level keys).', { field });
  }
  return { id: result.data.id, diskFormat: result.data.disk_format ?? undefined, properties: body as ImageProperties };
}
