import { z } from 'zod';
import { storeNameSchema } from '../config/store-name.js';
import { FerryError } from '../errors/ferry-error.js';
import { parseImageRef } from '../glance/image-ref.js';

/** `POST /v1/ensure` body. Unknown fields are refused: a typo must not silently fall back to a default. */
export const ensureRequestSchema = z.strictObject({
  image: z.string().min(1).max(255),
  store: storeNameSchema().max(255).optional(),
  /** Seconds, like `ferry ensure --timeout`. */
  timeout: z.number().positive().max(86_400).optional(),
  /**
   * nova asks again because its clone of the copy it was handed failed (the source went away: ferry evict). Only then
   * does the agent look at the copy before answering. Absent in a first ask, and in every request of an older patch.
   */
  retry_after_failed_clone: z.strictObject({
    pool: z.string().min(1).max(255),
    image: z.string().min(1).max(255),
    snapshot: z.string().min(1).max(255),
  }).optional(),
});

export type EnsureRequest = z.infer<typeof ensureRequestSchema>;

/** Parse and check a request body (already JSON-decoded); every problem is one FERRY_AGENT_BAD_REQUEST naming it. */
export function parseEnsureRequest(body: unknown): EnsureRequest {
  const result = ensureRequestSchema.safeParse(body);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'body';
    const what = issue?.code === 'unrecognized_keys' ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}`
      : `${where}: ${issue?.message ?? 'invalid'}`;
    throw new FerryError('FERRY_AGENT_BAD_REQUEST', `bad ensure request: ${what}`,
      'Send {"image": ID or NAME, "store"?: NAME, "timeout"?: SECONDS, "retry_after_failed_clone"?: {"pool", "image", "snapshot"}} (docs/agent.md).', { field: where });
  }
  assertImageRef(result.data.image);
  return result.data;
}

/** A malformed image reference (a broken UUID, control characters) is a bad request, refused before any Glance call. */
export function assertImageRef(ref: string): void {
  try {
    parseImageRef(ref);
  } catch (error) {
    if (error instanceof FerryError) throw new FerryError('FERRY_AGENT_BAD_REQUEST', error.message, error.hint, error.details);
    throw error;
  }
}

/** The longest user token taken (Keystone's Fernet tokens are ~180-260 characters; a JWS one under 1 KiB). */
export const USER_TOKEN_MAX_LENGTH = 4096;

/**
 * The booting user's token from `X-Auth-Token` (docs/agent.md, "Acting for the booting user"); undefined without the
 * header (ferry's own identity, as before). Anything that is not one token of printable ASCII is refused before any
 * Glance call, and the message never repeats what was sent.
 */
export function parseUserToken(header: string | readonly string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = typeof header === 'string' ? header : header.length === 1 ? header[0] : undefined;
  if (value !== undefined && value.length > 0 && value.length <= USER_TOKEN_MAX_LENGTH && /^[\x21-\x7e]+$/.test(value)) return value;
  const why = value === undefined ? 'was sent more than once' : value.length === 0 ? 'is empty'
    : value.length > USER_TOKEN_MAX_LENGTH ? `is longer than ${USER_TOKEN_MAX_LENGTH} characters` : 'holds characters no token has (space, comma, control)';
  throw new FerryError('FERRY_AGENT_BAD_REQUEST', `bad ensure request: the X-Auth-Token header ${why}`,
    'Send the booting request\'s Keystone token as one X-Auth-Token header, or none (the agent then uses its own identity): docs/agent.md.',
    { field: 'X-Auth-Token' });
}
