import type { z } from 'zod';
import { FerryError } from '../errors/ferry-error.js';

/**
 * Check a service's answer against the fields ferry relies on. A mismatch is a clear error naming the endpoint and
 * the field, never a crash deeper in the code.
 */
export function validateResponse<T>(schema: z.ZodType<T>, body: unknown, endpoint: string): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(body)';
  const problem = issue?.message ?? 'unexpected shape';
  return failBadResponse(endpoint, path, problem);
}

function failBadResponse(endpoint: string, field: string, problem: string): never {
  throw new FerryError('FERRY_BAD_RESPONSE', `unexpected answer from ${endpoint}: field '${field}': ${problem}`,
    'The service speaks a version or configuration ferry does not understand; run with --debug and report it with the service version.',
    { endpoint, field, problem });
}
