import type { FerryError } from '../../errors/ferry-error.js';
import type { TextStyle } from './text-style.js';

/** An error for a person: what happened, then what to do, on stderr. No stack (that needs --debug). */
export function renderError(error: FerryError, style: TextStyle): string {
  return `${style.bad('ferry: error:')} ${error.message}\n${style.dim(`  hint: ${error.hint}`)}\n${style.dim(`  (${error.code})`)}`;
}
