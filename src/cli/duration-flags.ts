import { parseDuration } from '../clock/parse-duration.js';
import type { FlagValue, OptionSpec } from './command-spec.js';

/**
 * Every time flag takes the same syntax (`90`, `90s`, `10m`, `1h30m`, `500ms`; a plain number is seconds), read by
 * the one parser (parseDuration). The config layer takes seconds, so a duration flag reaches it as a number of
 * seconds: `--timeout 10m` → `600`. A malformed value is FERRY_INVALID_OPTION naming the flag.
 */
export function normalizeDurationFlags(flags: Readonly<Record<string, FlagValue>>, options: readonly OptionSpec[]): Record<string, FlagValue> {
  const normalized: Record<string, FlagValue> = { ...flags };
  for (const option of options) {
    const value = flags[option.name];
    if (option.duration === true && typeof value === 'string') normalized[option.name] = String(parseDuration(value, `--${option.name}`) / 1000);
  }
  return normalized;
}
