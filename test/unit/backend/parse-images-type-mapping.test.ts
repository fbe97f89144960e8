import { describe, expect, it } from 'vitest';
import { parseImagesTypeMapping } from '../../../src/backend/parse-images-type-mapping.js';
import { resolveBackendConfig } from '../../../src/backend/resolve-backend-config.js';
import { IMAGES_TYPE_VALUES } from '../../../src/backend/storage-backend.js';

// Every row of the runtime-image-type spec's table (nova-behaviour.md §13).
const specValid = [
  { imagesType: 'default', mapping: 'raw:lvm, ploop:ploop', expected: [['raw', 'lvm'], ['ploop', 'ploop']] },
  { imagesType: 'lvm', mapping: 'qcow2:qcow2', expected: [['qcow2', 'qcow2']] },
  { imagesType: 'qcow2', mapping: 'raw:raw, ploop:ploop', expected: [['raw', 'flat'], ['ploop', 'ploop']] },
  { imagesType: 'default', mapping: 'raw:raw, qcow2:qcow2', expected: [['raw', 'flat'], ['qcow2', 'qcow2']] },
  { imagesType: 'default', mapping: '', expected: [] },
];

const specInvalid = [
  { mapping: 'qcow2:raw, qcow2:qcow2', message: "images_type_mapping entry 'qcow2:raw' conflicts with 'qcow2:qcow2': one backend per source format" },
  { mapping: 'raw:rbd, raw:lvm', message: "images_type_mapping entry 'raw:rbd' conflicts with 'raw:lvm': one backend per source format" },
  { mapping: 'lvm:rbd, rbd:rbd', message: "images_type_mapping entry 'lvm:rbd': 'lvm' is a storage backend, not an image format" },
];

describe('images_type_mapping: the spec table', () => {
  it.each(specValid)('resolveBackendConfig: images_type=$imagesType, mapping "$mapping" is valid', ({ imagesType, mapping, expected }) => {
    const config = resolveBackendConfig({ imagesType, imagesTypeMapping: mapping });
    expect([...config.mapping.entries()]).toEqual(expected);
  });

  const invalidRows = specInvalid.flatMap((row) => IMAGES_TYPE_VALUES.map((imagesType) => ({ ...row, imagesType })));
  it.each(invalidRows)('resolveBackendConfig: images_type=$imagesType, mapping "$mapping" is invalid', ({ imagesType, mapping, message }) => {
    expect(() => resolveBackendConfig({ imagesType, imagesTypeMapping: mapping }))
      .toThrow(expect.objectContaining({ code: 'FERRY_INVALID_MAPPING', message }));
  });
});

describe('parseImagesTypeMapping: syntax', () => {
  it.each([
    { value: '', entries: [] },
    { value: '   ', entries: [] },
    { value: ',', entries: [] },
    { value: 'raw:rbd', entries: ['raw:rbd'] },
    { value: '  raw:rbd ,qcow2:qcow2  ', entries: ['raw:rbd', 'qcow2:qcow2'] },
    { value: 'raw : rbd', entries: ['raw : rbd'] },
    { value: 'raw:rbd,', entries: ['raw:rbd'] },
    { value: 'raw:rbd, iso:rbd, ami:lvm, aki:flat, ari:raw', entries: ['raw:rbd', 'iso:rbd', 'ami:lvm', 'aki:flat', 'ari:raw'] },
    { value: 'raw:default', entries: ['raw:default'] },
  ])('parseImagesTypeMapping($value) keeps $entries', ({ value, entries }) => {
    expect(parseImagesTypeMapping(value).entries.map((e) => e.text)).toEqual(entries);
  });

  it('parseImagesTypeMapping: an exact repeat is dropped and listed', () => {
    expect(parseImagesTypeMapping('raw:lvm, qcow2:qcow2, raw:lvm')).toEqual({
      entries: [{ source: 'raw', backend: 'lvm', text: 'raw:lvm' }, { source: 'qcow2', backend: 'qcow2', text: 'qcow2:qcow2' }],
      duplicates: ['raw:lvm'],
    });
  });

  it('parseImagesTypeMapping: raw and flat name the same backend, so raw:raw then raw:flat is a repeat', () => {
    expect(parseImagesTypeMapping('raw:raw, raw:flat').duplicates).toEqual(['raw:flat']);
  });

  it.each([
    { value: 'raw:lvm,,ploop:ploop', message: "images_type_mapping has an empty entry at position 2 in 'raw:lvm,,ploop:ploop'" },
    { value: ',raw:lvm', message: "images_type_mapping has an empty entry at position 1 in ',raw:lvm'" },
    { value: 'rawlvm', message: "images_type_mapping entry 'rawlvm' is not of the form <source format>:<backend>" },
    { value: 'raw:', message: "images_type_mapping entry 'raw:' is not of the form <source format>:<backend>" },
    { value: ':rbd', message: "images_type_mapping entry ':rbd' is not of the form <source format>:<backend>" },
    { value: 'raw:rbd:lvm', message: "images_type_mapping entry 'raw:rbd:lvm' is not of the form <source format>:<backend>" },
    { value: 'rbd:rbd', message: "images_type_mapping entry 'rbd:rbd': 'rbd' is a storage backend, not an image format" },
    { value: 'flat:flat', message: "images_type_mapping entry 'flat:flat': 'flat' is a storage backend, not an image format" },
    { value: 'default:qcow2', message: "images_type_mapping entry 'default:qcow2': 'default' is a storage backend, not an image format" },
    { value: 'img:rbd', message: "images_type_mapping entry 'img:rbd': 'img' is not a Glance disk format" },
    { value: 'RAW:rbd', message: "images_type_mapping entry 'RAW:rbd': 'RAW' is not a Glance disk format (did you mean 'raw'?)" },
    { value: 'raw:ceph', message: "images_type_mapping entry 'raw:ceph': 'ceph' is not a libvirt image backend" },
    { value: 'raw:RBD', message: "images_type_mapping entry 'raw:RBD': 'RBD' is not a libvirt image backend (did you mean 'rbd'?)" },
    { value: 'qcow2:rbd', message: "images_type_mapping entry 'qcow2:rbd' would convert the image: the rbd backend stores raw, qcow2 images are qcow2; a mapping keeps the format as-is" },
    { value: 'raw:qcow2', message: "images_type_mapping entry 'raw:qcow2' would convert the image: the qcow2 backend stores qcow2, raw images are raw; a mapping keeps the format as-is" },
    { value: 'vmdk:flat', message: "images_type_mapping entry 'vmdk:flat' would convert the image: the flat backend stores raw, vmdk images are vmdk; a mapping keeps the format as-is" },
    { value: 'ploop:lvm', message: "images_type_mapping entry 'ploop:lvm' would convert the image: the lvm backend stores raw, ploop images are ploop; a mapping keeps the format as-is" },
    { value: 'raw:rbd, raw:default', message: "images_type_mapping entry 'raw:rbd' conflicts with 'raw:default': one backend per source format" },
  ])('parseImagesTypeMapping($value) throws FERRY_INVALID_MAPPING', ({ value, message }) => {
    expect(() => parseImagesTypeMapping(value)).toThrow(expect.objectContaining({ code: 'FERRY_INVALID_MAPPING', message }));
  });

  it('parseImagesTypeMapping: the message names where the value came from, details name the entry', () => {
    expect(() => parseImagesTypeMapping('raw:lvm, raw:rbd', 'nova.conf [libvirt]')).toThrow(expect.objectContaining({
      message: "images_type_mapping entry 'raw:lvm' conflicts with 'raw:rbd': one backend per source format (from nova.conf [libvirt])",
      hint: "Keep one rule for raw: either 'raw:lvm' or 'raw:rbd'.",
      details: { option: 'images_type_mapping', entry: 'raw:rbd', conflictsWith: 'raw:lvm', source: 'nova.conf [libvirt]' },
    }));
  });

  it.each([
    { value: 'qcow2:rbd', hint: 'Map qcow2 to a backend that stores qcow2 (qcow2), or leave qcow2 out so images_type converts it.' },
    { value: 'vhd:qcow2', hint: 'No libvirt backend stores vhd; leave vhd out of the mapping so images_type converts it.' },
  ])('parseImagesTypeMapping($value): the hint says what would work', ({ value, hint }) => {
    expect(() => parseImagesTypeMapping(value)).toThrow(expect.objectContaining({ hint }));
  });
});
