import type { FerryErrorCode } from './error-table.js';

/**
 * The one error type ferry throws on purpose. Callers match on `code` (not `instanceof`), so two installed copies
 * of ferry still agree. `message` says what happened and why; `hint` says what the operator can do next.
 * `details` never holds headers, tokens or passwords.
 */
export class FerryError extends Error {
  override readonly name = 'FerryError';

  constructor(
    readonly code: FerryErrorCode,
    message: string,
    readonly hint: string,
    readonly details: Readonly<Record<string, unknown>> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  toJSON(): { code: FerryErrorCode; message: string; hint: string; details: Readonly<Record<string, unknown>> } {
    return { code: this.code, message: this.message, hint: this.hint, details: this.details };
  }
}

export function isFerryError(e: unknown, code?: FerryErrorCode): e is FerryError {
  if (typeof e !== 'object' || e === null) return false;
  const candidate = e as { name?: unknown; code?: unknown };
  if (candidate.name !== 'FerryError' || typeof candidate.code !== 'string') return false;
  return code === undefined || candidate.code === code;
}
