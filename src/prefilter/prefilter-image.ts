import { z } from 'zod';
import { FerryError } from '../errors/ferry-error.js';

/**
 * Just the part of a Glance `GET /v2/images/{id}` body the prefilter reads. Glance returns custom properties as
 * top-level string keys; `disk_format` is null until data is uploaded. Every other key passes through untouched.
 */
const glanceImageSchema = z.looseObject({
  id: z.string().optional(),
  disk_format: z.string().nullable().optional(),
});

export interface PrefilterImage {
  readonly id: string | undefined;
  readonly diskFormat: string | undefined;
  /** Every top-level string-valued key: the image's properties (plus base fields, which no rule reads). */
  readonly properties: Readonly<Record<string, string>>;
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
  const properties: Record<string, string> = {};
  for (const [key, value] of Object.entries(result.data)) {
    if (typeof value === 'string') properties[key] = value;
  }
  return { id: result.data.id, diskFormat: result.data.disk_format ?? undefined, properties };
}
