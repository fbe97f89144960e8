import { FerryError } from '../errors/ferry-error.js';
import { byteSizeUnits, readByteSize } from './byte-size.js';

// --rate-limit: a byte rate as operators write link speeds, in the size units of a budget (byte-size.ts: 100M is
// 100 MiB, 100MB is 10^8 bytes) and bits (800Mbit), with an optional /s.

const MIN_BYTES_PER_SECOND = 64 * 1024;

/** Bytes a second from `100MB/s`, `50MiB`, `100M`, `800Mbit/s`, `1Gbit`, `1048576`; at least 64 KiB/s. */
export function parseByteRate(text: string, origin = '--rate-limit'): number {
  const reading = readByteSize(text.trim().replace(/\/s$/i, ''), { bits: true });
  if (reading.ok && reading.bytes >= MIN_BYTES_PER_SECOND) return reading.bytes;
  const why = reading.ok ? 'the least is 64KiB/s' : reading.why;
  throw new FerryError('FERRY_INVALID_OPTION', `${origin} must be a byte rate of at least 64KiB/s, such as 100MB/s, 50MiB/s or 800Mbit/s, got '${text}': ${why}`,
    `Pass e.g. ${origin} 100MB/s (units: ${byteSizeUnits({ bits: true })}; /s optional).`, { option: 'rateLimit' });
}
