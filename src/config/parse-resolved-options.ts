import type { z } from 'zod';
import { FerryError } from '../errors/ferry-error.js';

/**
 * Validate options whose defaults are filled in: the first problem becomes one FERRY_INVALID_OPTION naming the option,
 * the value it got and where that came from (`origin`: option → flag, env or file), so every resolver words it alike.
 */
export function parseResolvedOptions<T>(schema: z.ZodType<T>, merged: Readonly<Record<string, unknown>>,
  origin: Readonly<Record<string, string>> = {}): T {
  const result = schema.safeParse(merged);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = String(issue?.path[0] ?? 'options');
  const from = origin[field] === undefined ? '' : ` (from ${origin[field]})`;
  throw new FerryError('FERRY_INVALID_OPTION', `${field} must be ${issue?.message ?? 'valid'}, got ${JSON.stringify(merged[field])}${from}`,
    `Fix the ${origin[field] ?? field} option.`, { option: field });
}
