import { FerryError } from '../errors/ferry-error.js';

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90`, `90s`, `5m`, `1h30m`, `500ms`, `7d` → milliseconds. A bare number is seconds, as every other ferry duration flag. */
export function parseDuration(value: string, flag = '--interval'): number {
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  const covered = parts.map((part) => part[0]).join('');
  if (parts.length === 0 || covered !== trimmed) {
    throw new FerryError('FERRY_INVALID_OPTION', `${flag} must be a duration such as 30s, 5m, 1h30m or a number of seconds, got '${value}'`,
      `Pass e.g. ${flag} 5m.`, { option: flag.replace(/^--/, '') });
  }
  return Math.round(parts.reduce((sum, part) => sum + Number(part[1]) * (UNITS[part[2] ?? 's'] ?? 1000), 0));
}
