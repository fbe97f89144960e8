import { describe, expect, it } from 'vitest';
import { IMAGE_FORMATS } from '../../../src/backend/image-formats.js';
import { keptFormats } from '../../../src/backend/kept-formats.js';
import { resolveBackendConfig } from '../../../src/backend/resolve-backend-config.js';
import { needsRbdCopy, selectBackend } from '../../../src/backend/select-backend.js';

const rbdHost = resolveBackendConfig({ imagesType: 'rbd', imagesTypeMapping: 'qcow2:qcow2, ploop:ploop' });

describe('selectBackend', () => {
  it.each([
    { input: { imagesType: 'rbd', imagesTypeMapping: 'qcow2:qcow2' }, disk: 'qcow2', backend: 'qcow2', converted: false, reason: 'images_type_mapping maps qcow2 to qcow2' },
    { input: { imagesType: 'rbd' }, disk: 'qcow2', backend: 'rbd', converted: true, reason: 'qcow2 not in images_type_mapping; images_type=rbd stores raw, so it is converted' },
    { input: { imagesType: 'rbd' }, disk: 'raw', backend: 'rbd', converted: false, reason: 'raw not in images_type_mapping; images_type=rbd stores raw, so it is kept as-is' },
    { input: { imagesType: 'rbd' }, disk: 'iso', backend: 'rbd', converted: false, reason: 'iso not in images_type_mapping; images_type=rbd stores raw, so it is kept as-is' },
    { input: { imagesType: 'rbd' }, disk: 'vmdk', backend: 'rbd', converted: true, reason: 'vmdk not in images_type_mapping; images_type=rbd stores raw, so it is converted' },
    { input: { imagesType: 'lvm', imagesTypeMapping: 'qcow2:qcow2' }, disk: 'raw', backend: 'lvm', converted: false, reason: 'raw not in images_type_mapping; images_type=lvm stores raw, so it is kept as-is' },
    { input: { imagesType: 'lvm', imagesTypeMapping: 'qcow2:qcow2' }, disk: 'ploop', backend: 'lvm', converted: true, reason: 'ploop not in images_type_mapping; images_type=lvm stores raw, so it is converted' },
    { input: { imagesType: 'default', imagesTypeMapping: 'raw:lvm, ploop:ploop' }, disk: 'raw', backend: 'lvm', converted: false, reason: 'images_type_mapping maps raw to lvm' },
    { input: { imagesType: 'default', imagesTypeMapping: 'raw:lvm, ploop:ploop' }, disk: 'ploop', backend: 'ploop', converted: false, reason: 'images_type_mapping maps ploop to ploop' },
    { input: { imagesType: 'default', imagesTypeMapping: 'raw:lvm' }, disk: 'vdi', backend: 'qcow2', converted: true, reason: 'vdi not in images_type_mapping; images_type=default (use_cow_images=true: qcow2) stores qcow2, so it is converted' },
    { input: { imagesType: 'default', useCowImages: false }, disk: 'qcow2', backend: 'flat', converted: true, reason: 'qcow2 not in images_type_mapping; images_type=default (use_cow_images=false: flat) stores raw, so it is converted' },
    { input: { imagesType: 'qcow2', imagesTypeMapping: 'raw:raw, ploop:ploop' }, disk: 'raw', backend: 'flat', converted: false, reason: "images_type_mapping maps raw to flat ('raw:raw')" },
    { input: { imagesType: 'qcow2', imagesTypeMapping: 'raw:raw' }, disk: 'qcow2', backend: 'qcow2', converted: false, reason: 'qcow2 not in images_type_mapping; images_type=qcow2 stores qcow2, so it is kept as-is' },
    { input: { imagesType: 'raw' }, disk: 'qcow2', backend: 'flat', converted: true, reason: 'qcow2 not in images_type_mapping; images_type=raw (flat) stores raw, so it is converted' },
    { input: { imagesType: 'rbd', imagesTypeMapping: 'raw:default', useCowImages: false }, disk: 'raw', backend: 'flat', converted: false, reason: "images_type_mapping maps raw to flat ('raw:default', use_cow_images=false)" },
  ])('selectBackend($disk) with $input → $backend', ({ input, disk, backend, converted, reason }) => {
    expect(selectBackend(disk, resolveBackendConfig(input))).toMatchObject({ backend, converted, reason });
  });

  it('selectBackend: the choice carries the deciding option and the stored format', () => {
    expect(selectBackend('qcow2', rbdHost)).toEqual({
      backend: 'qcow2', converted: false, decidedBy: 'images_type_mapping', diskFormat: 'qcow2', storedFormat: 'qcow2',
      reason: 'images_type_mapping maps qcow2 to qcow2',
    });
  });

  it.each(['', 'QCOW2', 'lvm', 'img'])('selectBackend("%s") throws FERRY_INVALID_OPTION', (disk) => {
    expect(() => selectBackend(disk, rbdHost)).toThrow(expect.objectContaining({
      code: 'FERRY_INVALID_OPTION', message: `disk_format '${disk}' is not a Glance disk format, so no storage backend can be chosen for it`,
    }));
  });
});

describe('needsRbdCopy', () => {
  it.each([
    { disk: 'raw', expected: true },
    { disk: 'iso', expected: true },
    { disk: 'vmdk', expected: true },
    { disk: 'qcow2', expected: false },
    { disk: 'ploop', expected: false },
  ])('needsRbdCopy: $disk on an rbd host with qcow2:qcow2, ploop:ploop → $expected', ({ disk, expected }) => {
    expect(needsRbdCopy(selectBackend(disk, rbdHost))).toBe(expected);
  });
});

describe('keptFormats', () => {
  it.each([
    { input: { imagesType: 'rbd', imagesTypeMapping: 'qcow2:qcow2, ploop:ploop' },
      expected: { raw: 'rbd', qcow2: 'qcow2', ploop: 'ploop', iso: 'rbd', aki: 'rbd', ari: 'rbd', ami: 'rbd' } },
    { input: { imagesType: 'rbd' }, expected: { raw: 'rbd', iso: 'rbd', aki: 'rbd', ari: 'rbd', ami: 'rbd' } },
    { input: { imagesType: 'default' }, expected: { qcow2: 'qcow2' } },
    { input: { imagesType: 'qcow2', imagesTypeMapping: 'raw:raw, ploop:ploop' }, expected: { raw: 'flat', qcow2: 'qcow2', ploop: 'ploop' } },
    { input: { imagesType: 'ploop', imagesTypeMapping: 'raw:lvm, iso:lvm' }, expected: { raw: 'lvm', ploop: 'ploop', iso: 'lvm' } },
  ])('keptFormats($input)', ({ input, expected }) => {
    const kept = keptFormats(resolveBackendConfig(input));
    expect(Object.fromEntries(kept)).toEqual(expected);
    expect([...kept.keys()].every((f) => (IMAGE_FORMATS as readonly string[]).includes(f))).toBe(true);
  });
});
