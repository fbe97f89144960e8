import type { FerryConfig } from './ferry-config.js';
import { redactConfig } from './redact-config.js';

/** One resolved setting: its path in FerryConfig, its value (secrets hidden) and where it came from. */
export interface ConfigShowEntry {
  readonly key: string;
  readonly value: unknown;
  /** undefined for a setting nothing set and without a default (e.g. no --store). */
  readonly source: string | undefined;
}

export interface ConfigShowReport {
  readonly entries: readonly ConfigShowEntry[];
  readonly origin: FerryConfig['origin'];
  readonly missingAuth: readonly string[];
}

/** The configuration as path → value pairs, secrets replaced (redactConfig), each with its source (config.sources). */
export function configShowReport(config: FerryConfig): ConfigShowReport {
  const { sources, origin, missingAuth, ...rest } = redactConfig(config);
  const entries: ConfigShowEntry[] = [];
  const walk = (value: unknown, path: string): void => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) {
      for (const [key, inner] of Object.entries(value)) walk(inner, path === '' ? key : `${path}.${key}`);
      return;
    }
    entries.push({ key: path, value: value ?? null, source: sourceOf(sources, path) });
  };
  walk(rest, '');
  return { entries, origin, missingAuth: missingAuth.map(String) };
}

/** A value's own source, or the nearest recorded parent's (auth records `auth`, not each field). */
function sourceOf(sources: Readonly<Record<string, string>>, path: string): string | undefined {
  for (let key = path; key !== ''; key = key.includes('.') ? key.slice(0, key.lastIndexOf('.')) : '') {
    if (Object.hasOwn(sources, key)) return sources[key];
  }
  return undefined;
}
