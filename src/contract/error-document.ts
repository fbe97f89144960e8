import { z } from 'zod';
import type { FerryError } from '../errors/ferry-error.js';

/** The one document on stdout when a command fails with --json / -f json|yaml. */
export const errorJsonSchema = z.object({
  error: z.object({
    code: z.string().regex(/^FERRY_[A-Z_]+$/),
    message: z.string(),
    hint: z.string(),
    details: z.record(z.string(), z.unknown()),
  }).strict(),
}).strict();

export type ErrorJson = z.infer<typeof errorJsonSchema>;

const SECRET_KEY = /token|password|secret|authorization|cookie|header|credential/i;
export const REDACTED_DETAIL = '<redacted>';

/**
 * An error as JSON, with `details` (what the error recorded: option, URL, status, request id, …) made safe to print:
 * a key that names a secret or headers is replaced whatever its value, top-level keys become snake_case, and values that are not plain JSON become
 * strings. FerryError details should never hold a secret; this is the belt to those braces.
 */
export function errorJson(error: FerryError): ErrorJson {
  return { error: { code: error.code, message: error.message, hint: error.hint, details: redactDetails(error.details) } };
}

export function redactDetails(details: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(details).map(([key, value]) => [snakeKey(key), SECRET_KEY.test(key) ? REDACTED_DETAIL : safeValue(value, 0)]));
}

/** The library records details under its own (camelCase) names; the JSON contract is snake_case (`imageRef` → `image_ref`). */
function snakeKey(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

function safeValue(value: unknown, depth: number): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (value === undefined) return null;
  if (depth >= 4) return '…';
  if (Array.isArray(value)) return value.map((item) => safeValue(item, depth + 1));
  if (value instanceof Error) return value.message;
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, SECRET_KEY.test(key) ? REDACTED_DETAIL : safeValue(inner, depth + 1)]));
  }
  return typeof value === 'bigint' ? value.toString() : `<${typeof value}>`;
}
