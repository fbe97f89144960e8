import { FerryError } from '../errors/ferry-error.js';

// --rate-limit: a byte rate as operators write link speeds. Decimal and binary byte units, and bits.
const UNITS: Readonly<Record<string, number>> = {
  '': 1, b: 1, kb: 1e3, mb: 1e6, gb: 1e9, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3, kbit: 1e3 / 8, mbit: 1e6 / 8, gbit: 1e9 / 8,
};

/** Bytes a second from `100MB/s`, `50MiB`, `800Mbit/s`, `1Gbit`, `1048576`; at least 64 KiB/s. */
export function parseByteRate(text: string, origin = '--rate-limit'): number {
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)(?:\/s)?$/i.exec(text.trim());
  const unit = match?.[2]?.toLowerCase() ?? '';
  const bytes = match && UNITS[unit] !== undefined ? Math.round(Number(match[1]) * (UNITS[unit] ?? 1)) : Number.NaN;
  if (!(bytes >= 65_536)) {
    throw new FerryError('FERRY_INVALID_OPTION', `${origin} must be a byte rate of at least 64KiB/s, such as 100MB/s, 50MiB/s or 800Mbit/s, got '${text}'`,
      `Pass e.g. ${origin} 100MB/s (units: B, KB, MB, GB, KiB, MiB, GiB, Kbit, Mbit, Gbit; /s optional).`, { option: 'rateLimit' });
  }
  return bytes;
}
