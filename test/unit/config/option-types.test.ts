import { describe, expect, it } from 'vitest';
import { optionTypes } from '../../../src/config/option-types.js';

const T = optionTypes;

describe('optionTypes', () => {
  it.each([
    { type: 'bool', raw: 'true', value: true }, { type: 'bool', raw: 'TRUE', value: true },
    { type: 'bool', raw: 'yes', value: true }, { type: 'bool', raw: 'On', value: true },
    { type: 'bool', raw: '1', value: true }, { type: 'bool', raw: true, value: true },
    { type: 'bool', raw: 'false', value: false }, { type: 'bool', raw: 'No', value: false },
    { type: 'bool', raw: 'off', value: false }, { type: 'bool', raw: '0', value: false },
    { type: 'bool', raw: ' False ', value: false },
    { type: 'secondsToMs', raw: '15', value: 15_000 }, { type: 'secondsToMs', raw: '0.5', value: 500 },
    { type: 'secondsToMs', raw: '0.001', value: 1 },
    { type: 'secondsOrZeroToMs', raw: '0', value: 0 }, { type: 'secondsOrZeroToMs', raw: '600', value: 600_000 },
    { type: 'url', raw: 'http://127.0.0.1:15000/v3', value: 'http://127.0.0.1:15000/v3' },
    { type: 'url', raw: 'https://keystone.example.org', value: 'https://keystone.example.org' },
    { type: 'interface', raw: 'internal', value: 'internal' }, { type: 'interface', raw: 'publicURL', value: 'public' },
    { type: 'interface', raw: 'adminURL', value: 'admin' },
    { type: 'list', raw: 'a, b,,c ', value: ['a', 'b', 'c'] }, { type: 'list', raw: '', value: [] },
    { type: 'list', raw: 'a,\nb', value: ['a', 'b'] },
    { type: 'interfaceList', raw: 'internal, publicURL', value: ['internal', 'public'] },
    { type: 'urlList', raw: 'glance:9292, https://g2:9292', value: ['http://glance:9292', 'https://g2:9292'] },
    { type: 'fsid', raw: '6F0A2C1E-3B5D-4E8F-9A7B-1C2D3E4F5A6B', value: '6f0a2c1e-3b5d-4e8f-9a7b-1c2d3e4f5a6b' },
    { type: 'storeName', raw: 'site-b', value: 'site-b' }, { type: 'storeName', raw: 'ceph_edge.1', value: 'ceph_edge.1' },
    { type: 'text', raw: 'demo', value: 'demo' }, { type: 'anyText', raw: '', value: '' },
  ] as const)('optionTypes.$type accepts $raw', ({ type, raw, value }) => {
    expect(T[type].parse(raw)).toEqual({ ok: true, value });
  });

  it.each([
    { type: 'bool', raw: 'maybe' }, { type: 'bool', raw: '' }, { type: 'bool', raw: 'y' }, { type: 'bool', raw: '2' },
    { type: 'secondsToMs', raw: '0' }, { type: 'secondsToMs', raw: '-5' }, { type: 'secondsToMs', raw: 'fast' },
    { type: 'secondsToMs', raw: '10s' }, { type: 'secondsToMs', raw: '' }, { type: 'secondsToMs', raw: true },
    { type: 'secondsToMs', raw: '0.0001' }, { type: 'secondsOrZeroToMs', raw: '-1' },
    { type: 'url', raw: 'keystone:5000' }, { type: 'url', raw: 'ftp://h/' }, { type: 'url', raw: '/v3' },
    { type: 'url', raw: 'http://' }, { type: 'url', raw: true },
    { type: 'interface', raw: 'private' }, { type: 'interface', raw: 'Public' },
    { type: 'interfaceList', raw: '' }, { type: 'interfaceList', raw: 'internal, bogus' },
    { type: 'urlList', raw: '' }, { type: 'urlList', raw: 'http://ok:1, ftp://no' },
    { type: 'fsid', raw: 'not-a-uuid' }, { type: 'fsid', raw: '6f0a2c1e3b5d4e8f9a7b1c2d3e4f5a6b' },
    { type: 'storeName', raw: 'a,b' }, { type: 'storeName', raw: 'site b' }, { type: 'storeName', raw: '' },
    { type: 'text', raw: '' }, { type: 'text', raw: true }, { type: 'path', raw: '' }, { type: 'list', raw: true },
  ] as const)('optionTypes.$type rejects $raw', ({ type, raw }) => {
    expect(T[type].parse(raw)).toEqual({ ok: false });
  });

  it.each([
    { min: 0, raw: '0', value: 0 }, { min: 0, raw: '3', value: 3 }, { min: 1, raw: '+7', value: 7 },
    { min: 1, raw: ' 15 ', value: 15 },
  ])('optionTypes.integer($min) accepts $raw', ({ min, raw, value }) => {
    expect(T.integer(min).parse(raw)).toEqual({ ok: true, value });
  });

  it.each([
    { min: 0, raw: '-1' }, { min: 1, raw: '0' }, { min: 0, raw: '1.5' }, { min: 0, raw: '0x10' }, { min: 0, raw: 'three' },
    { min: 0, raw: '' }, { min: 0, raw: '99999999999999999999' },
  ])('optionTypes.integer($min) rejects $raw', ({ min, raw }) => {
    expect(T.integer(min).parse(raw)).toEqual({ ok: false });
  });

  it('optionTypes.intSecondsToMs: nova seconds become milliseconds', () => {
    expect(T.intSecondsToMs(1).parse('15')).toEqual({ ok: true, value: 15_000 });
    expect(T.intSecondsToMs(0, ' (0 = no timeout)').expected).toBe('an integer ≥ 0 (0 = no timeout)');
  });

  it.each([
    { raw: '90', expected: { ok: true, value: 90_000 } }, { raw: '180.5', expected: { ok: true, value: 180_500 } },
    { raw: '89.999', expected: { ok: false } }, { raw: '0', expected: { ok: false } }, { raw: 'soon', expected: { ok: false } },
  ])('optionTypes.secondsAtLeastToMs(90): $raw', ({ raw, expected }) => {
    expect(T.secondsAtLeastToMs(90).parse(raw)).toEqual(expected);
    expect(T.secondsAtLeastToMs(90).expected).toBe('a number of seconds ≥ 90');
  });

  it('optionTypes.oneOf: names its choices and matches exactly', () => {
    const type = T.oneOf(['kvm', 'qemu'] as const);
    expect(type.expected).toBe('one of kvm, qemu');
    expect(type.parse('qemu')).toEqual({ ok: true, value: 'qemu' });
    expect(type.parse('KVM')).toEqual({ ok: false });
  });
});
