import { describe, expect, it } from 'vitest';
import { readByteSize } from '../../../src/config/byte-size.js';
import { parseByteRate } from '../../../src/config/byte-rate.js';
import { parseBudget } from '../../../src/fleet/store-budget.js';

// One size language for --budget (and a policy's budget:) and --rate-limit: K, M, G… (and KiB, MiB…) are powers of
// 1024 as Ceph writes them, KB, MB, GB… powers of 1000, Kbit, Mbit… bits (rates only); a lowercase b is refused.
const KIB = 2 ** 10;
const MIB = 2 ** 20;
const GIB = 2 ** 30;

describe('readByteSize', () => {
  it.each([
    { text: '1048576', bits: false, bytes: 1048576 },
    { text: '512B', bits: false, bytes: 512 },
    { text: '2k', bits: false, bytes: 2 * KIB },
    { text: '100M', bits: false, bytes: 100 * MIB },
    { text: '10 M', bits: false, bytes: 10 * MIB },
    { text: '100Mi', bits: false, bytes: 100 * MIB },
    { text: '100MiB', bits: false, bytes: 100 * MIB },
    { text: '100MB', bits: false, bytes: 100e6 },
    { text: '100mB', bits: false, bytes: 100e6 },
    { text: '500G', bits: false, bytes: 500 * GIB },
    { text: '1.5TiB', bits: false, bytes: 1.5 * 2 ** 40 },
    { text: '750GB', bits: false, bytes: 750e9 },
    { text: '2P', bits: false, bytes: 2 * 2 ** 50 },
    { text: '1PB', bits: false, bytes: 1e15 },
    { text: '800Mbit', bits: true, bytes: 100e6 },
    { text: '1Gbit', bits: true, bytes: 125e6 },
    { text: '8000bit', bits: true, bytes: 1000 },
    { text: '1 TBIT', bits: true, bytes: 125e9 },
  ])('$text (bits $bits) → $bytes bytes', ({ text, bits, bytes }) => {
    expect(readByteSize(text, { bits })).toEqual({ ok: true, bytes });
  });

  it.each([
    { text: '', bits: false, why: /a number of bytes with an optional unit/ },
    { text: 'G', bits: false, why: /a number of bytes with an optional unit/ },
    { text: '-5G', bits: false, why: /a number of bytes with an optional unit/ },
    { text: '5 gigs', bits: false, why: /unknown unit 'gigs'; the units are B, K, M, G, T, P, KiB, MiB, GiB, TiB, PiB \(powers of 1024\), KB, MB, GB, TB, PB \(powers of 1000\)$/ },
    { text: '5GX', bits: false, why: /unknown unit 'GX'/ },
    { text: '800Mbit', bits: false, why: /unknown unit 'Mbit'; the units are B, K, .*PB \(powers of 1000\)$/ },
    { text: '5furlongs', bits: true, why: /unknown unit 'furlongs'; the units are .*PB \(powers of 1000\), Kbit, Mbit, Gbit, Tbit \(bits, powers of 1000\)$/ },
    { text: '100Mb', bits: true, why: /'Mb' could be bits or bytes: write MB \(bytes\) or Mbit \(bits\)/ },
    { text: '100Mb', bits: false, why: /'Mb' could be bits or bytes: write MB \(bytes\), M or MiB/ },
    { text: '100mib', bits: false, why: /'mib' could be bits or bytes/ },
    { text: '100b', bits: false, why: /'b' could be bits or bytes/ },
  ])('$text (bits $bits) → refused: $why', ({ text, bits, why }) => {
    const reading = readByteSize(text, { bits });
    expect(reading.ok).toBe(false);
    expect(reading.ok ? '' : reading.why).toMatch(why);
  });
});

describe('parseByteRate', () => {
  it.each([
    { text: '100MB/s', bytes: 100e6 },
    { text: '50MiB', bytes: 50 * 1024 ** 2 },
    { text: '800Mbit/s', bytes: 100e6 },
    { text: '1Gbit', bytes: 125e6 },
    { text: '1048576', bytes: 1048576 },
    { text: '2.5 GB/s', bytes: 2.5e9 },
    { text: '100M/s', bytes: 100 * MIB },
    { text: '64K', bytes: 64 * KIB },
  ])('$text = $bytes B/s', ({ text, bytes }) => expect(parseByteRate(text)).toBe(bytes));

  it.each(['', 'fast', '0', '10KB/s', '-5MB', '5 furlongs', '5MB/h', '100Mb/s', '63K'])('refuses %j', (text) => {
    expect(() => parseByteRate(text)).toThrow(/--rate-limit must be a byte rate of at least 64KiB\/s/);
  });
});

describe('--budget and --rate-limit read sizes alike', () => {
  it.each(['100M', '100MiB', '100MB', '1.5G', '2TiB', '1048576', '64K'])('%s: the same bytes as a budget and as a rate', (text) => {
    const budget = parseBudget(text);
    expect(budget.kind === 'bytes' ? budget.bytes : undefined).toBe(parseByteRate(text));
    expect(parseByteRate(`${text}/s`)).toBe(parseByteRate(text));
  });

  it('a bad unit: each message names the option, the value and the accepted units', () => {
    expect(() => parseBudget('5 gigs')).toThrow(expect.objectContaining({ code: 'FERRY_INVALID_OPTION',
      message: expect.stringMatching(/^--budget must be bytes or a percentage .*got '5 gigs': unknown unit 'gigs'; the units are B, K, M, G/) as unknown }));
    expect(() => parseByteRate('5 furlongs/s')).toThrow(expect.objectContaining({ code: 'FERRY_INVALID_OPTION',
      message: expect.stringMatching(/^--rate-limit must be a byte rate .*got '5 furlongs\/s': unknown unit 'furlongs'; the units are B, K, .*Kbit, Mbit, Gbit, Tbit/) as unknown }));
  });
});
