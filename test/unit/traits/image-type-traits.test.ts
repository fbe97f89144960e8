import { describe, expect, it } from 'vitest';
import type { ImagesTypeValue } from '../../../src/backend/storage-backend.js';
import { imageTypeTraits } from '../../../src/traits/image-type-traits.js';
import type { ImageTypeInput } from '../../../src/traits/image-type-traits.js';
import { standardTraitCatalogue, traitCatalogueFromNames } from '../../../src/traits/trait-catalogue.js';
import type { VirtType } from '../../../src/traits/virt-type.js';

const catalogue = standardTraitCatalogue();
const names = (suffixes: string): string[] => suffixes.split(' ').map((s) => `COMPUTE_IMAGE_TYPE_${s}`);

// nova's rule (placement-and-traits.md §9.2) for every images_type × force_raw_images × virt_type:
// aki ami ari iso raw always; qcow2 unless images_type ∈ {rbd, lvm} with force_raw_images=false; ploop only for
// parallels; vdi vhd vhdx vmdk never.
const novaMatrix: readonly (readonly [ImagesTypeValue, boolean, VirtType, string])[] = [
  ['raw', true, 'kvm', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['raw', true, 'qemu', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['raw', true, 'lxc', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['raw', true, 'parallels', 'AKI AMI ARI ISO PLOOP QCOW2 RAW'],
  ['raw', false, 'kvm', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['raw', false, 'qemu', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['raw', false, 'lxc', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['raw', false, 'parallels', 'AKI AMI ARI ISO PLOOP QCOW2 RAW'],
  ['flat', true, 'kvm', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['flat', true, 'qemu', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['flat', true, 'lxc', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['flat', true, 'parallels', 'AKI AMI ARI ISO PLOOP QCOW2 RAW'],
  ['flat', false, 'kvm', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['flat', false, 'qemu', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['flat', false, 'lxc', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['flat', false, 'parallels', 'AKI AMI ARI ISO PLOOP QCOW2 RAW'],
  ['qcow2', true, 'kvm', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['qcow2', true, 'qemu', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['qcow2', true, 'lxc', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['qcow2', true, 'parallels', 'AKI AMI ARI ISO PLOOP QCOW2 RAW'],
  ['qcow2', false, 'kvm', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['qcow2', false, 'qemu', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['qcow2', false, 'lxc', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['qcow2', false, 'parallels', 'AKI AMI ARI ISO PLOOP QCOW2 RAW'],
  ['lvm', true, 'kvm', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['lvm', true, 'qemu', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['lvm', true, 'lxc', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['lvm', true, 'parallels', 'AKI AMI ARI ISO PLOOP QCOW2 RAW'],
  ['lvm', false, 'kvm', 'AKI AMI ARI ISO RAW'],
  ['lvm', false, 'qemu', 'AKI AMI ARI ISO RAW'],
  ['lvm', false, 'lxc', 'AKI AMI ARI ISO RAW'],
  ['lvm', false, 'parallels', 'AKI AMI ARI ISO PLOOP RAW'],
  ['rbd', true, 'kvm', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['rbd', true, 'qemu', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['rbd', true, 'lxc', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['rbd', true, 'parallels', 'AKI AMI ARI ISO PLOOP QCOW2 RAW'],
  ['rbd', false, 'kvm', 'AKI AMI ARI ISO RAW'],
  ['rbd', false, 'qemu', 'AKI AMI ARI ISO RAW'],
  ['rbd', false, 'lxc', 'AKI AMI ARI ISO RAW'],
  ['rbd', false, 'parallels', 'AKI AMI ARI ISO PLOOP RAW'],
  ['ploop', true, 'kvm', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['ploop', true, 'qemu', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['ploop', true, 'lxc', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['ploop', true, 'parallels', 'AKI AMI ARI ISO PLOOP QCOW2 RAW'],
  ['ploop', false, 'kvm', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['ploop', false, 'qemu', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['ploop', false, 'lxc', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['ploop', false, 'parallels', 'AKI AMI ARI ISO PLOOP QCOW2 RAW'],
  ['default', true, 'kvm', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['default', true, 'qemu', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['default', true, 'lxc', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['default', true, 'parallels', 'AKI AMI ARI ISO PLOOP QCOW2 RAW'],
  ['default', false, 'kvm', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['default', false, 'qemu', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['default', false, 'lxc', 'AKI AMI ARI ISO QCOW2 RAW'],
  ['default', false, 'parallels', 'AKI AMI ARI ISO PLOOP QCOW2 RAW'],
];

describe('imageTypeTraits: nova rule', () => {
  it.each(novaMatrix)('imageTypeTraits(images_type=%s, force_raw_images=%s, virt_type=%s) → %s', (imagesType, forceRawImages, virtType, expected) => {
    const result = imageTypeTraits({ imagesType, forceRawImages, virtType }, catalogue);
    expect(result.traits).toEqual(names(expected));
    expect(result.decidedFamilies).toEqual(['COMPUTE_IMAGE_TYPE_']);
    expect(Object.keys(result.absent).sort()).toEqual(
      catalogue.withPrefix('COMPUTE_IMAGE_TYPE_').filter((t) => !names(expected).includes(t)),
    );
    expect(result.unmapped).toEqual([]);
  });

  it('imageTypeTraits: defaults are images_type=default, force_raw_images=true, nothing excluded', () => {
    expect(imageTypeTraits({ virtType: 'kvm' }, catalogue).traits).toEqual(names('AKI AMI ARI ISO QCOW2 RAW'));
  });
});

const reasonCases: readonly { input: ImageTypeInput; trait: string; reason: string; present: boolean }[] = [
  {
    input: { virtType: 'kvm', imagesType: 'rbd', forceRawImages: true },
    trait: 'COMPUTE_IMAGE_TYPE_QCOW2', present: true,
    reason: '[libvirt] images_type=rbd, [DEFAULT] force_raw_images=true: qcow2 is converted to raw',
  },
  {
    input: { virtType: 'kvm', imagesType: 'rbd', forceRawImages: false },
    trait: 'COMPUTE_IMAGE_TYPE_QCOW2', present: false,
    reason: '[libvirt] images_type=rbd, [DEFAULT] force_raw_images=false: the rbd backend would get qcow2 unconverted',
  },
  {
    input: { virtType: 'kvm', imagesType: 'qcow2', forceRawImages: false },
    trait: 'COMPUTE_IMAGE_TYPE_QCOW2', present: true,
    reason: '[libvirt] images_type=qcow2, [DEFAULT] force_raw_images=false: only rbd or lvm without force_raw_images refuse qcow2',
  },
  { input: { virtType: 'kvm' }, trait: 'COMPUTE_IMAGE_TYPE_RAW', present: true, reason: 'the libvirt driver always supports raw images' },
  { input: { virtType: 'kvm' }, trait: 'COMPUTE_IMAGE_TYPE_VMDK', present: false, reason: 'the libvirt driver never supports vmdk images' },
  { input: { virtType: 'parallels' }, trait: 'COMPUTE_IMAGE_TYPE_PLOOP', present: true, reason: '[libvirt] virt_type=parallels' },
  { input: { virtType: 'qemu' }, trait: 'COMPUTE_IMAGE_TYPE_PLOOP', present: false, reason: '[libvirt] virt_type=qemu: ploop needs virt_type=parallels' },
];

describe('imageTypeTraits: reasons', () => {
  it.each(reasonCases)('imageTypeTraits: $trait reason for $input.imagesType/$input.forceRawImages/$input.virtType', ({ input, trait, reason, present }) => {
    const result = imageTypeTraits(input, catalogue);
    expect(present ? result.reasons[trait] : result.absent[trait]).toBe(reason);
  });
});

describe('imageTypeTraits: [compute] image_type_exclude_list', () => {
  const cases = [
    { list: ['qcow2'], expected: 'AKI AMI ARI ISO RAW' },
    { list: ['aki', 'ari', 'ami'], expected: 'ISO QCOW2 RAW' },
    { list: [' QCOW2 ', 'Raw'], expected: 'AKI AMI ARI ISO' },
    { list: ['vmdk'], expected: 'AKI AMI ARI ISO QCOW2 RAW' },
    { list: [], expected: 'AKI AMI ARI ISO QCOW2 RAW' },
  ];
  it.each(cases)('imageTypeTraits: exclude $list → $expected', ({ list, expected }) => {
    expect(imageTypeTraits({ virtType: 'kvm', imageTypeExcludeList: list }, catalogue).traits).toEqual(names(expected));
  });

  it('imageTypeTraits: an excluded type says so, even where nova would support it', () => {
    const result = imageTypeTraits({ virtType: 'parallels', imageTypeExcludeList: ['ploop'] }, catalogue);
    expect(result.absent['COMPUTE_IMAGE_TYPE_PLOOP']).toBe('[compute] image_type_exclude_list lists ploop');
  });

  it('imageTypeTraits: an entry that is no image type is reported unmapped, not fatal', () => {
    expect(imageTypeTraits({ virtType: 'kvm', imageTypeExcludeList: ['qcow3'] }, catalogue).unmapped).toEqual([
      { value: 'qcow3', source: '[compute] image_type_exclude_list', why: 'not an image type nova reports; ignored' },
    ]);
  });
});

describe('imageTypeTraits: per-image backend mapping (keptFormats)', () => {
  const cases: readonly { name: string; input: ImageTypeInput; expected: string }[] = [
    {
      name: 'qcow2:qcow2 on rbd without force_raw_images',
      input: { virtType: 'kvm', imagesType: 'rbd', forceRawImages: false, keptFormats: new Map([['raw', 'rbd'], ['qcow2', 'qcow2']]) },
      expected: 'AKI AMI ARI ISO QCOW2 RAW',
    },
    {
      name: 'ploop:ploop on kvm',
      input: { virtType: 'kvm', keptFormats: new Map([['ploop', 'ploop']]) },
      expected: 'AKI AMI ARI ISO PLOOP QCOW2 RAW',
    },
    {
      name: 'kept formats nova already supports change nothing',
      input: { virtType: 'kvm', imagesType: 'rbd', keptFormats: new Map([['raw', 'rbd'], ['iso', 'rbd'], ['aki', 'rbd']]) },
      expected: 'AKI AMI ARI ISO QCOW2 RAW',
    },
    {
      name: 'the exclude list wins over the mapping',
      input: { virtType: 'kvm', imagesType: 'rbd', forceRawImages: false, keptFormats: new Map([['qcow2', 'qcow2']]), imageTypeExcludeList: ['qcow2'] },
      expected: 'AKI AMI ARI ISO RAW',
    },
  ];
  it.each(cases)('imageTypeTraits: $name', ({ input, expected }) => {
    expect(imageTypeTraits(input, catalogue).traits).toEqual(names(expected));
  });

  it('imageTypeTraits: a mapped qcow2 says both why it is supported and what nova alone would say', () => {
    const result = imageTypeTraits({ virtType: 'kvm', imagesType: 'rbd', forceRawImages: false, keptFormats: new Map([['qcow2', 'qcow2']]) }, catalogue);
    expect(result.reasons['COMPUTE_IMAGE_TYPE_QCOW2']).toBe(
      'the per-image backend mapping keeps qcow2 as-is on the qcow2 backend (qcow2:qcow2); nova alone would not: ' +
        '[libvirt] images_type=rbd, [DEFAULT] force_raw_images=false: the rbd backend would get qcow2 unconverted',
    );
  });

  it('imageTypeTraits: a kept format with no trait in the catalogue is unmapped', () => {
    const result = imageTypeTraits({ virtType: 'kvm', keptFormats: new Map([['docker', 'flat']]) }, catalogue);
    expect(result.traits).toEqual(names('AKI AMI ARI ISO QCOW2 RAW'));
    expect(result.unmapped).toEqual([
      {
        value: 'docker', source: 'per-image backend mapping docker:flat', trait: 'COMPUTE_IMAGE_TYPE_DOCKER',
        why: 'COMPUTE_IMAGE_TYPE_DOCKER is not a trait in os-traits 2.9.0',
      },
    ]);
  });

  it('imageTypeTraits: a catalogue without a name never gets it emitted', () => {
    const small = traitCatalogueFromNames(['COMPUTE_IMAGE_TYPE_RAW', 'COMPUTE_IMAGE_TYPE_QCOW2']);
    const result = imageTypeTraits({ virtType: 'kvm' }, small);
    expect(result.traits).toEqual(['COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_IMAGE_TYPE_RAW']);
    expect(result.unmapped.map((u) => u.value)).toEqual(['aki', 'ami', 'ari', 'iso']);
  });
});

describe('imageTypeTraits: invalid options', () => {
  it('imageTypeTraits: unknown images_type → FERRY_INVALID_OPTION naming the option', () => {
    expect(() => imageTypeTraits({ virtType: 'kvm', imagesType: 'ceph' as ImagesTypeValue }, catalogue)).toThrow(
      expect.objectContaining({ code: 'FERRY_INVALID_OPTION', message: expect.stringContaining("[libvirt] images_type must be one of") }),
    );
  });

  it('imageTypeTraits: unknown virt_type → FERRY_INVALID_OPTION naming the option', () => {
    expect(() => imageTypeTraits({ virtType: 'xen' as VirtType }, catalogue)).toThrow(
      expect.objectContaining({ code: 'FERRY_INVALID_OPTION', details: { option: '[libvirt] virt_type', value: 'xen' } }),
    );
  });
});
