import { describe, expect, it } from 'vitest';
import { BACKEND_DEFAULTS, resolveBackendConfig } from '../../../src/backend/resolve-backend-config.js';

describe('resolveBackendConfig', () => {
  it.each([
    { input: {}, imagesType: 'qcow2', declared: 'default' },
    { input: { useCowImages: false }, imagesType: 'flat', declared: 'default' },
    { input: { imagesType: 'default', useCowImages: true }, imagesType: 'qcow2', declared: 'default' },
    { input: { imagesType: 'raw' }, imagesType: 'flat', declared: 'raw' },
    { input: { imagesType: 'flat' }, imagesType: 'flat', declared: 'flat' },
    { input: { imagesType: 'qcow2', useCowImages: false }, imagesType: 'qcow2', declared: 'qcow2' },
    { input: { imagesType: 'lvm' }, imagesType: 'lvm', declared: 'lvm' },
    { input: { imagesType: ' rbd ' }, imagesType: 'rbd', declared: 'rbd' },
    { input: { imagesType: 'ploop' }, imagesType: 'ploop', declared: 'ploop' },
  ])('resolveBackendConfig($input): images_type resolves to $imagesType', ({ input, imagesType, declared }) => {
    const config = resolveBackendConfig(input);
    expect(config.imagesType).toBe(imagesType);
    expect(config.imagesTypeDeclared).toBe(declared);
  });

  it('resolveBackendConfig: defaults are nova\'s', () => {
    expect(BACKEND_DEFAULTS).toEqual({ imagesType: 'default', imagesTypeMapping: '', useCowImages: true });
    expect(resolveBackendConfig({})).toMatchObject({ useCowImages: true, entries: [], duplicates: [] });
  });

  it.each([
    { input: { imagesType: 'ceph' }, message: "images_type 'ceph' is not a libvirt image backend" },
    { input: { imagesType: 'RBD', source: 'nova.conf' }, message: "images_type 'RBD' is not a libvirt image backend (from nova.conf)" },
    { input: { imagesType: '' }, message: "images_type '' is not a libvirt image backend" },
  ])('resolveBackendConfig($input) throws FERRY_INVALID_MAPPING', ({ input, message }) => {
    expect(() => resolveBackendConfig(input)).toThrow(expect.objectContaining({ code: 'FERRY_INVALID_MAPPING', message }));
  });

  it.each([
    { mapping: 'qcow2:default', useCowImages: true, backend: 'qcow2' },
    { mapping: 'raw:default', useCowImages: false, backend: 'flat' },
  ])('resolveBackendConfig: "$mapping" with use_cow_images=$useCowImages maps to $backend', ({ mapping, useCowImages, backend }) => {
    const config = resolveBackendConfig({ imagesTypeMapping: mapping, useCowImages });
    expect([...config.mapping.values()]).toEqual([backend]);
  });

  it.each([
    { mapping: 'raw:default', useCowImages: true, message: "images_type_mapping entry 'raw:default' would convert the image: the qcow2 backend (default with use_cow_images=true) stores qcow2, raw images are raw; a mapping keeps the format as-is" },
    { mapping: 'qcow2:default', useCowImages: false, message: "images_type_mapping entry 'qcow2:default' would convert the image: the flat backend (default with use_cow_images=false) stores raw, qcow2 images are qcow2; a mapping keeps the format as-is" },
  ])('resolveBackendConfig: "$mapping" with use_cow_images=$useCowImages throws', ({ mapping, useCowImages, message }) => {
    expect(() => resolveBackendConfig({ imagesTypeMapping: mapping, useCowImages }))
      .toThrow(expect.objectContaining({ code: 'FERRY_INVALID_MAPPING', message }));
  });
});
