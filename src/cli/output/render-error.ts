import type { FerryError } from '../../errors/ferry-error.js';
import { terminalText } from './terminal-text.js';
import type { TextStyle } from './text-style.js';

/**
 * An error for a person: what happened, then what to do, on stderr. No stack (that needs --debug). Its message quotes
 * the services (their error text, an image's name): shown through terminalText.
 */
export function renderError(error: FerryError, style: TextStyle): string {
  return `${style.bad('ferry: error:')} ${terminalText(error.message)}\n${style.dim(`  hint: ${terminalText(error.hint)}`)}\n${style.dim(`  (${error.code})`)}`;
}
