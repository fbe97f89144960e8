// A size in bytes as operators write it, for a store's budget (--budget, a policy's budget:) and a rate (--rate-limit).
// One meaning everywhere:
// - K, M, G, T, P (and Ki, Mi…, KiB, MiB…) are powers of 1024, as Ceph writes them: 100M is 100 MiB;
// - KB, MB, GB, TB, PB are powers of 1000: 100MB is 100 000 000 bytes;
// - Kbit, Mbit, Gbit, Tbit (and bit) are bits, powers of 1000, where a rate may be given as a link speed;
// - the letters are read in any case, except b: a lowercase b (Mb, Kib, b) could be bits or bytes, and is refused.
// Pure.

const PREFIXES = ['K', 'M', 'G', 'T', 'P'] as const;
type Prefix = (typeof PREFIXES)[number];
const BINARY: Readonly<Record<Prefix, number>> = { K: 2 ** 10, M: 2 ** 20, G: 2 ** 30, T: 2 ** 40, P: 2 ** 50 };
const DECIMAL: Readonly<Record<Prefix, number>> = { K: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15 };
const BIT_PREFIXES: readonly Prefix[] = ['K', 'M', 'G', 'T'];

export interface ByteSizeForm {
  /** A rate: Kbit, Mbit, Gbit, Tbit (and bit) are taken too. A budget's size is in bytes only. */
  readonly bits: boolean;
}

export type ByteSizeReading = { readonly ok: true; readonly bytes: number } | { readonly ok: false; readonly why: string };

/** The accepted units, as the messages and docs name them. */
export function byteSizeUnits(form: ByteSizeForm): string {
  const bytes = `B, ${PREFIXES.join(', ')}, ${PREFIXES.map((p) => `${p}iB`).join(', ')} (powers of 1024), ${PREFIXES.map((p) => `${p}B`).join(', ')} (powers of 1000)`;
  return form.bits ? `${bytes}, ${BIT_PREFIXES.map((p) => `${p}bit`).join(', ')} (bits, powers of 1000)` : bytes;
}

/** `100M`, `1.5TiB`, `750GB`, `800Mbit` (with bits), `1048576` → whole bytes (rounded down), or why not. */
export function readByteSize(text: string, form: ByteSizeForm): ByteSizeReading {
  const match = /^(\d+(?:\.\d+)?)\s*([a-zA-Z]*)$/.exec(text.trim());
  if (!match) return { ok: false, why: 'write a number of bytes with an optional unit' };
  const unit = match[2] ?? '';
  const multiplier = unitMultiplier(unit, form);
  if (typeof multiplier === 'string') return { ok: false, why: multiplier };
  return { ok: true, bytes: Math.floor(Number(match[1]) * multiplier) };
}

/** Bytes per unit, or why the unit is refused. */
function unitMultiplier(unit: string, form: ByteSizeForm): number | string {
  const parts = /^([kmgtp]?)(i?)(b|bit)?$/i.exec(unit);
  const prefix = parts?.[1]?.toUpperCase() as Prefix | '' | undefined;
  const binaryMark = parts?.[2] ?? '';
  const suffix = parts?.[3] ?? '';
  if (parts && suffix === 'b') {
    const bytesForm = prefix === '' ? 'B' : `${prefix}B`;
    const instead = form.bits && binaryMark === '' ? `${bytesForm} (bytes) or ${prefix ?? ''}bit (bits)`
      : `${bytesForm} (bytes)${prefix === '' ? '' : `, ${prefix} or ${prefix}iB`}`;
    return `'${unit}' could be bits or bytes: write ${instead}`;
  }
  const isBits = suffix.toLowerCase() === 'bit';
  const unknown = `unknown unit '${unit}'; the units are ${byteSizeUnits(form)}`;
  if (!parts || prefix === undefined) return unknown;
  if (binaryMark !== '' && (prefix === '' || isBits)) return unknown; // i alone, Mibit
  if (isBits && (!form.bits || (prefix !== '' && !BIT_PREFIXES.includes(prefix)))) return unknown;
  if (isBits) return (prefix === '' ? 1 : DECIMAL[prefix]) / 8;
  if (prefix === '') return 1;
  return binaryMark !== '' || suffix === '' ? BINARY[prefix] : DECIMAL[prefix];
}
