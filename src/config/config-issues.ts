import { FerryError } from '../errors/ferry-error.js';
import type { ConfigSource } from './config-source.js';

export interface ConfigIssue {
  readonly source: ConfigSource;
  /** The full line: where, what was expected, what was found (never a secret). */
  readonly message: string;
}

const MAX_SHOWN_CHARS = 120;

/**
 * Collects every configuration problem, so one run reports all of them instead of one per attempt. Resolution goes
 * on after a problem (with a placeholder value) and `throwIfAny` ends it with a single FerryError.
 */
export class ConfigIssues {
  readonly #issues: ConfigIssue[] = [];

  get count(): number {
    return this.#issues.length;
  }

  /** `--poll-interval: expected a number of seconds > 0, got 'fast'`. */
  invalidValue(source: ConfigSource, expected: string, raw: unknown, secret = false): void {
    this.add(source, `${source.label}: expected ${expected}, got ${showValue(raw, secret)}`);
  }

  /** The same problem found twice (one value read for two purposes) is reported once. */
  add(source: ConfigSource, message: string): void {
    if (this.#issues.some((issue) => issue.message === message)) return;
    this.#issues.push({ source, message });
  }

  /**
   * FERRY_INVALID_OPTION when any problem is in a flag or an environment variable (the operator can fix it on the
   * command line), FERRY_INVALID_CONFIG when all are in files.
   */
  throwIfAny(): void {
    const issues = this.#issues;
    const first = issues[0];
    if (first === undefined) return;
    const typed = issues.some((i) => i.source.kind === 'flag' || i.source.kind === 'env');
    const message = issues.length === 1
      ? first.message
      : `${issues.length} configuration problems:\n${issues.map((i) => `  - ${i.message}`).join('\n')}`;
    const hint = typed
      ? 'Correct the flag or environment variable named above (docs/configuration.md lists every option and its values).'
      : 'Correct the file named above, or override the value with its flag or environment variable (docs/configuration.md).';
    throw new FerryError(typed ? 'FERRY_INVALID_OPTION' : 'FERRY_INVALID_CONFIG', message, hint, {
      problems: issues.map((i) => ({ source: i.source.label, message: i.message })),
    });
  }
}

/** How a value appears in a message: quoted and shortened; secrets never; URL passwords blanked. */
export function showValue(raw: unknown, secret = false): string {
  if (secret) return 'a value that is not shown (secret)';
  if (raw === null || raw === undefined) return 'nothing';
  if (Array.isArray(raw)) return 'a list';
  if (typeof raw === 'object') return 'a mapping';
  if (typeof raw === 'number' || typeof raw === 'boolean' || typeof raw === 'bigint') return String(raw);
  if (typeof raw !== 'string') return 'a value of another kind';
  const withoutUserInfo = raw.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/i, '$1<user-info>@');
  const escaped = withoutUserInfo.replace(/\n/g, '\\n').replace(/\t/g, '\\t');
  const shown = escaped.length > MAX_SHOWN_CHARS ? `${escaped.slice(0, MAX_SHOWN_CHARS)}…` : escaped;
  return `'${shown}'`;
}
