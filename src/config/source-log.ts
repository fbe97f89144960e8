import { DEFAULT_SOURCE, type ConfigSource, type Sourced } from './config-source.js';

/** Records where each value of FerryConfig came from, keyed by its path ('copy.timeoutMs'), while choosing it. */
export class SourceLog {
  readonly #entries = new Map<string, string>();

  record(key: string, source: ConfigSource): void {
    this.#entries.set(key, source.label);
  }

  /** The first candidate that is set, in precedence order; else the default. */
  choose<T>(key: string, candidates: readonly (Sourced<T> | undefined)[], fallback: T): T {
    return this.chooseOptional(key, candidates) ?? this.fallback(key, fallback);
  }

  /** Like choose, for settings without a default (undefined, and no source recorded, when nothing sets them). */
  chooseOptional<T>(key: string, candidates: readonly (Sourced<T> | undefined)[]): T | undefined {
    const chosen = candidates.find((c): c is Sourced<T> => c !== undefined);
    if (chosen === undefined) return undefined;
    this.record(key, chosen.source);
    return chosen.value;
  }

  private fallback<T>(key: string, value: T): T {
    this.record(key, DEFAULT_SOURCE);
    return value;
  }

  toRecord(): Readonly<Record<string, string>> {
    return Object.freeze(Object.fromEntries([...this.#entries].sort(([a], [b]) => a.localeCompare(b))));
  }
}
