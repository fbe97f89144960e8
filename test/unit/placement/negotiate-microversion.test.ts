import { describe, expect, it } from 'vitest';
import { negotiateMicroversion, parsePlacementRoot } from '../../../src/placement/negotiate-microversion.js';
import { loadExchange } from '../../helpers/fixtures.js';

const root = (max: string, min = '1.0'): unknown => ({ versions: [{ id: 'v1.0', max_version: max, min_version: min, status: 'CURRENT' }] });

describe('negotiateMicroversion', () => {
  it('parsePlacementRoot: the recorded Placement 8.0.0 root announces 1.0 … 1.39', () => {
    expect(parsePlacementRoot(loadExchange('placement', 'root').body, 'GET /')).toEqual({
      minVersion: { major: 1, minor: 0 }, maxVersion: { major: 1, minor: 39 }, status: 'CURRENT',
    });
  });

  it.each([
    { case: 'server newer than ferry', wanted: '1.39', max: '1.42', expected: { major: 1, minor: 39 } },
    { case: 'same', wanted: '1.39', max: '1.39', expected: { major: 1, minor: 39 } },
    { case: 'server older: numeric, not text, comparison (1.10 < 1.9 as text)', wanted: '1.39', max: '1.10', expected: { major: 1, minor: 10 } },
    { case: 'caller wants less than 1.10', wanted: '1.9', max: '1.10', expected: { major: 1, minor: 9 } },
    { case: 'a root without microversions means 1.0', wanted: '1.39', max: '', expected: { major: 1, minor: 0 } },
  ])('negotiateMicroversion: $case', ({ wanted, max, expected }) => {
    expect(negotiateMicroversion(parsePlacementRoot(root(max, max === '' ? '' : '1.0'), 'GET /'), wanted)).toEqual(expected);
  });

  it('negotiateMicroversion: a malformed wanted version is FERRY_INVALID_OPTION', () => {
    expect(() => negotiateMicroversion(parsePlacementRoot(root('1.39'), 'GET /'), 'latest')).toThrow(expect.objectContaining({ code: 'FERRY_INVALID_OPTION' }));
  });

  it('parsePlacementRoot: no versions → FERRY_BAD_RESPONSE', () => {
    expect(() => parsePlacementRoot({ versions: [] }, 'GET http://p/')).toThrow(expect.objectContaining({ code: 'FERRY_BAD_RESPONSE' }));
  });
});
