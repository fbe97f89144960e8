import { describe, expect, it } from 'vitest';
import { formatRbdLocation } from '../../../src/rbd/format-rbd-location.js';
import { parseRbdLocation } from '../../../src/rbd/parse-rbd-location.js';
import type { RbdLocation } from '../../../src/rbd/parse-rbd-location.js';
import { pythonQuote, pythonUnquote } from '../../../src/rbd/python-quote.js';

const FSID_A = '1c8b72c6-a5a4-4acb-8aac-181c2f242f55';
const IMAGE = '872abc64-2f3d-4b6e-9c41-0d5e6f7a8b9c';

const parsed = (fsid: string, pool: string, image: string, snapshot: string) => ({
  ok: true,
  location: { fsid, pool, image, snapshot },
});

// Expected values follow nova's RBDDriver.parse_url (ceph-rbd.md §11, nova-behaviour.md §4).
const okCases = [
  { name: 'a Glance-written location', url: `rbd://${FSID_A}/images/${IMAGE}/snap`, expected: parsed(FSID_A, 'images', IMAGE, 'snap') },
  { name: '%2F inside a component is data', url: 'rbd://f/po%2Fol/im%2Fage/snap', expected: parsed('f', 'po/ol', 'im/age', 'snap') },
  { name: '%3A and %40 decode', url: 'rbd://f/pool/a%3Ab%40c/snap', expected: parsed('f', 'pool', 'a:b@c', 'snap') },
  { name: 'UTF-8 sequences decode', url: 'rbd://f/pool/caf%C3%A9/snap', expected: parsed('f', 'pool', 'café', 'snap') },
  { name: 'malformed %zz stays as is', url: 'rbd://f/pool/a%zz/snap', expected: parsed('f', 'pool', 'a%zz', 'snap') },
  { name: 'a lone % stays as is', url: 'rbd://f/pool/100%/snap', expected: parsed('f', 'pool', '100%', 'snap') },
  { name: 'a truncated %4 stays as is', url: 'rbd://f/pool/x%4/snap', expected: parsed('f', 'pool', 'x%4', 'snap') },
  { name: 'an invalid UTF-8 byte becomes U+FFFD', url: 'rbd://f/pool/x%C3/snap', expected: parsed('f', 'pool', 'x\uFFFD', 'snap') },
  { name: 'lowercase hex decodes', url: 'rbd://f/pool/a%2fb/snap', expected: parsed('f', 'pool', 'a/b', 'snap') },
  { name: 'an unencoded space is kept', url: 'rbd://f/pool/a b/snap', expected: parsed('f', 'pool', 'a b', 'snap') },
];

const problemCases = [
  { name: 'file:// is not rbd', url: 'file:///var/lib/glance/images/918dbaef-9ff3-4e50-8927-c4a15ff30f07', reason: 'not-rbd' },
  { name: 'http:// is not rbd', url: 'http://example.org/cirros.img', reason: 'not-rbd' },
  { name: 'the prefix is case-sensitive (as in nova)', url: `RBD://${FSID_A}/images/${IMAGE}/snap`, reason: 'not-rbd' },
  { name: 'rbd: without slashes is not rbd', url: `rbd:${FSID_A}/images/${IMAGE}/snap`, reason: 'not-rbd' },
  { name: 'the empty string is not rbd', url: '', reason: 'not-rbd' },
  { name: 'a trailing slash is blank components, not a count problem', url: `rbd://${FSID_A}/images/${IMAGE}/snap/`, reason: 'blank-components' },
  { name: 'an empty middle piece is blank components', url: `rbd://${FSID_A}//${IMAGE}/snap`, reason: 'blank-components' },
  { name: 'rbd:// alone is blank components', url: 'rbd://', reason: 'blank-components' },
  { name: 'a trailing slash on three parts is still blank components', url: 'rbd://f/pool/image/', reason: 'blank-components' },
  { name: 'the legacy form rbd://image is not a snapshot', url: `rbd://${IMAGE}`, reason: 'not-snapshot' },
  { name: 'three parts are not a snapshot', url: `rbd://${FSID_A}/images/${IMAGE}`, reason: 'not-snapshot' },
  { name: 'five parts are not a snapshot', url: `rbd://${FSID_A}/images/${IMAGE}/snap/extra`, reason: 'not-snapshot' },
  { name: 'an encoded %2F does not create a piece, so three pieces stay three', url: 'rbd://f/pool%2Fimage/snap', reason: 'not-snapshot' },
];

describe('parseRbdLocation', () => {
  it.each(okCases)('parseRbdLocation: $name', ({ url, expected }) => {
    expect(parseRbdLocation(url)).toEqual(expected);
  });

  it.each(problemCases)('parseRbdLocation: $name', ({ url, reason }) => {
    const result = parseRbdLocation(url);
    expect(result).toMatchObject({ ok: false, reason });
  });

  it('parseRbdLocation: messages name the URL and the rule', () => {
    expect(parseRbdLocation('file:///x')).toMatchObject({ message: 'file:///x is not stored in rbd (the URL does not start with rbd://)' });
    expect(parseRbdLocation('rbd://a/b/')).toMatchObject({ message: expect.stringContaining('blank components') });
    expect(parseRbdLocation('rbd://img')).toMatchObject({ message: expect.stringContaining('has 1 part(s)') });
  });
});

describe('pythonQuote / pythonUnquote', () => {
  // Values produced by CPython 3.11: urllib.parse.quote(x, safe='') and unquote(x).
  it.each([
    { input: "a/b:c!*'()~ é", quoted: 'a%2Fb%3Ac%21%2A%27%28%29~%20%C3%A9' },
    { input: 'images', quoted: 'images' },
    { input: 'A-Z_a.z~0', quoted: 'A-Z_a.z~0' },
    { input: '😀', quoted: '%F0%9F%98%80' },
  ])('pythonQuote($input)', ({ input, quoted }) => {
    expect(pythonQuote(input)).toBe(quoted);
  });

  it.each([
    { input: 'a%2Fb', plain: 'a/b' },
    { input: '%zz', plain: '%zz' },
    { input: '%4', plain: '%4' },
    { input: '%', plain: '%' },
    { input: '%C3%A9', plain: 'é' },
    { input: '%e9', plain: '\uFFFD' },
    { input: '%C3é%A9', plain: '\uFFFDé\uFFFD' },
    { input: '%%41', plain: '%A' },
    { input: '%E2%82', plain: '\uFFFD' },
    { input: '%F0%9F%98%80', plain: '😀' },
  ])('pythonUnquote($input)', ({ input, plain }) => {
    expect(pythonUnquote(input)).toBe(plain);
  });
});

describe('formatRbdLocation', () => {
  it('formatRbdLocation: writes what glance_store writes for a plain location', () => {
    expect(formatRbdLocation({ fsid: FSID_A, pool: 'images', image: IMAGE, snapshot: 'snap' })).toBe(
      `rbd://${FSID_A}/images/${IMAGE}/snap`,
    );
  });

  it('formatRbdLocation: escapes the characters encodeURIComponent leaves alone', () => {
    expect(formatRbdLocation({ fsid: 'f', pool: "p!*'()", image: 'a/b', snapshot: 's:1' })).toBe(
      'rbd://f/p%21%2A%27%28%29/a%2Fb/s%3A1',
    );
  });

  const roundTrips: RbdLocation[] = [
    { fsid: FSID_A, pool: 'images', image: IMAGE, snapshot: 'snap' },
    { fsid: FSID_A, pool: 'po/ol', image: 'a/b/c', snapshot: 'snap' },
    { fsid: FSID_A, pool: 'images', image: '100%', snapshot: '%2F' },
    { fsid: FSID_A, pool: 'ünïcødé', image: "it's (a) *test*!", snapshot: 'snap 1' },
    { fsid: FSID_A, pool: 'images', image: '😀', snapshot: '~.-_' },
  ];

  it.each(roundTrips)('formatRbdLocation → parseRbdLocation round trip: $pool/$image@$snapshot', (location) => {
    expect(parseRbdLocation(formatRbdLocation(location))).toEqual({ ok: true, location });
  });
});
