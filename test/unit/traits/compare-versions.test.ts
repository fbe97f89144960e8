import { describe, expect, it } from 'vitest';
import { compareVersions, parseVersion, versionAtLeast } from '../../../src/traits/compare-versions.js';

describe('parseVersion / compareVersions', () => {
  const order = [
    { a: '9.0.0', b: '8.3.0', sign: 1 },
    { a: '8.3.0', b: '8.3', sign: 0 },
    { a: '9', b: '9.0.0', sign: 0 },
    { a: '7.2.22', b: '8.0.0', sign: -1 },
    { a: '10.0.0', b: '9.3.0', sign: 1 },
    { a: '3.2.0', b: '3.10.0', sign: -1 },
  ];
  it.each(order)('compareVersions($a, $b) has sign $sign', ({ a, b, sign }) => {
    expect(Math.sign(compareVersions(parseVersion(a, 'x'), parseVersion(b, 'x')))).toBe(sign);
  });

  it('versionAtLeast: an unknown version is never enough', () => {
    expect(versionAtLeast(undefined, [0])).toBe(false);
    expect(versionAtLeast([8, 3, 0], [8, 3, 0])).toBe(true);
  });

  it.each(['', 'v9.0.0', '9.0.0-4+deb12u2', '9..0', '1.2.3.4.5'])('parseVersion(%j) → FERRY_INVALID_OPTION', (value) => {
    expect(() => parseVersion(value, 'libvirtVersion')).toThrow(
      expect.objectContaining({ code: 'FERRY_INVALID_OPTION', details: { option: 'libvirtVersion', value } }),
    );
  });
});
