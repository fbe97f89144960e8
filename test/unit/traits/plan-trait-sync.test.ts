import { describe, expect, it } from 'vitest';
import { planTraitSync, unknownTraitsError } from '../../../src/traits/plan-trait-sync.js';
import { FERRY_TRAIT_FAMILIES } from '../../../src/traits/trait-families.js';
import { standardTraitCatalogue, traitCatalogueFromNames } from '../../../src/traits/trait-catalogue.js';

const catalogue = standardTraitCatalogue();

// Host "a" of placement-and-traits.md §5.2, as Placement reports it (unsorted, with a custom and a status trait).
const hostA = [
  'COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_IMAGE_TYPE_RAW', 'COMPUTE_IMAGE_TYPE_ISO', 'COMPUTE_NET_VIF_MODEL_VIRTIO',
  'COMPUTE_NET_VIF_MODEL_E1000', 'COMPUTE_STORAGE_BUS_VIRTIO', 'COMPUTE_STORAGE_BUS_SCSI', 'COMPUTE_STORAGE_BUS_SATA',
  'COMPUTE_GRAPHICS_MODEL_QXL', 'COMPUTE_GRAPHICS_MODEL_VIRTIO', 'HW_ARCH_X86_64', 'COMPUTE_ARCH_X86_64',
  'COMPUTE_VIOMMU_MODEL_INTEL', 'CUSTOM_IMAGE_CACHE_FAST', 'COMPUTE_STATUS_DISABLED', 'HW_CPU_X86_AVX2',
];

const cases = [
  {
    name: 'nothing to do',
    current: ['CUSTOM_X', 'COMPUTE_IMAGE_TYPE_RAW'],
    desired: ['COMPUTE_IMAGE_TYPE_RAW'],
    families: ['COMPUTE_IMAGE_TYPE_'],
    expected: { add: [], remove: [], keep: ['COMPUTE_IMAGE_TYPE_RAW', 'CUSTOM_X'], final: ['COMPUTE_IMAGE_TYPE_RAW', 'CUSTOM_X'], unknown: [], ignored: [], changed: false },
  },
  {
    name: 'qcow2 dropped (rbd without force_raw_images), foreign and CUSTOM kept',
    current: ['COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_IMAGE_TYPE_RAW', 'CUSTOM_IMAGE_CACHE_FAST', 'COMPUTE_STATUS_DISABLED'],
    desired: ['COMPUTE_IMAGE_TYPE_RAW', 'COMPUTE_IMAGE_TYPE_ISO'],
    families: ['COMPUTE_IMAGE_TYPE_'],
    expected: {
      add: ['COMPUTE_IMAGE_TYPE_ISO'],
      remove: ['COMPUTE_IMAGE_TYPE_QCOW2'],
      keep: ['COMPUTE_IMAGE_TYPE_RAW', 'COMPUTE_STATUS_DISABLED', 'CUSTOM_IMAGE_CACHE_FAST'],
      final: ['COMPUTE_IMAGE_TYPE_ISO', 'COMPUTE_IMAGE_TYPE_RAW', 'COMPUTE_STATUS_DISABLED', 'CUSTOM_IMAGE_CACHE_FAST'],
      unknown: [], ignored: [], changed: true,
    },
  },
  {
    name: 'an exact-name family owns only that name',
    current: ['COMPUTE_SECURITY_UEFI_SECURE_BOOT', 'COMPUTE_SECURITY_TPM_2_0'],
    desired: [],
    families: ['COMPUTE_SECURITY_UEFI_SECURE_BOOT'],
    expected: { add: [], remove: ['COMPUTE_SECURITY_UEFI_SECURE_BOOT'], keep: ['COMPUTE_SECURITY_TPM_2_0'], final: ['COMPUTE_SECURITY_TPM_2_0'], unknown: [], ignored: [], changed: true },
  },
  {
    name: 'unknown desired names are refused, not sent',
    current: ['COMPUTE_NET_VIF_MODEL_VIRTIO'],
    desired: ['COMPUTE_NET_VIF_MODEL_VIRTIO', 'COMPUTE_NET_VIF_MODEL_IGB', 'COMPUTE_VIOMMU_INTEL'],
    families: ['COMPUTE_NET_VIF_MODEL_', 'COMPUTE_VIOMMU_'],
    expected: {
      add: [], remove: [], keep: ['COMPUTE_NET_VIF_MODEL_VIRTIO'], final: ['COMPUTE_NET_VIF_MODEL_VIRTIO'],
      unknown: ['COMPUTE_NET_VIF_MODEL_IGB', 'COMPUTE_VIOMMU_INTEL'], ignored: [], changed: false,
    },
  },
  {
    name: 'desired names outside the owned families are ignored',
    current: [],
    desired: ['COMPUTE_IMAGE_TYPE_RAW', 'COMPUTE_STATUS_DISABLED', 'CUSTOM_FOO'],
    families: ['COMPUTE_IMAGE_TYPE_'],
    expected: {
      add: ['COMPUTE_IMAGE_TYPE_RAW'], remove: [], keep: [], final: ['COMPUTE_IMAGE_TYPE_RAW'], unknown: [],
      ignored: ['COMPUTE_STATUS_DISABLED', 'CUSTOM_FOO'], changed: true,
    },
  },
  {
    name: 'duplicates in either list collapse',
    current: ['HW_ARCH_X86_64', 'HW_ARCH_X86_64'],
    desired: ['HW_ARCH_AARCH64', 'HW_ARCH_AARCH64'],
    families: ['HW_ARCH_'],
    expected: { add: ['HW_ARCH_AARCH64'], remove: ['HW_ARCH_X86_64'], keep: [], final: ['HW_ARCH_AARCH64'], unknown: [], ignored: [], changed: true },
  },
  {
    name: 'host a: ferry reports an x86 kvm host without graphics qxl and with ide',
    current: hostA,
    desired: [
      'COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_IMAGE_TYPE_RAW', 'COMPUTE_IMAGE_TYPE_ISO', 'COMPUTE_NET_VIF_MODEL_VIRTIO', 'COMPUTE_NET_VIF_MODEL_E1000',
      'COMPUTE_STORAGE_BUS_VIRTIO', 'COMPUTE_STORAGE_BUS_SCSI', 'COMPUTE_STORAGE_BUS_SATA', 'COMPUTE_STORAGE_BUS_IDE',
      'COMPUTE_GRAPHICS_MODEL_VIRTIO', 'HW_ARCH_X86_64', 'COMPUTE_ARCH_X86_64', 'COMPUTE_VIOMMU_MODEL_INTEL',
    ],
    families: FERRY_TRAIT_FAMILIES,
    expected: {
      add: ['COMPUTE_STORAGE_BUS_IDE'],
      remove: ['COMPUTE_GRAPHICS_MODEL_QXL'],
      keep: [...hostA.filter((t) => t !== 'COMPUTE_GRAPHICS_MODEL_QXL')].sort(),
      final: [...hostA.filter((t) => t !== 'COMPUTE_GRAPHICS_MODEL_QXL'), 'COMPUTE_STORAGE_BUS_IDE'].sort(),
      unknown: [], ignored: [], changed: true,
    },
  },
];

describe('planTraitSync', () => {
  it.each(cases)('planTraitSync: $name', ({ current, desired, families, expected }) => {
    expect(planTraitSync(current, desired, families, catalogue)).toEqual(expected);
  });

  it('planTraitSync: CUSTOM_ traits are never owned, even by a matching prefix', () => {
    expect(() => planTraitSync(['CUSTOM_X'], [], ['CUSTOM_'], catalogue)).toThrow(
      expect.objectContaining({ code: 'FERRY_INVALID_OPTION', details: { option: 'ownedFamilies', value: ['CUSTOM_'] } }),
    );
  });

  it.each([[''], ['_'], ['compute_image_type_']])('planTraitSync: family %j → FERRY_INVALID_OPTION', (family) => {
    expect(() => planTraitSync([], [], [family], catalogue)).toThrow(expect.objectContaining({ code: 'FERRY_INVALID_OPTION' }));
  });

  it('planTraitSync: a Placement-read catalogue with igb accepts it', () => {
    const placement = traitCatalogueFromNames([...catalogue.withPrefix(''), 'COMPUTE_NET_VIF_MODEL_IGB']);
    expect(planTraitSync([], ['COMPUTE_NET_VIF_MODEL_IGB'], ['COMPUTE_NET_VIF_MODEL_'], placement)).toMatchObject({
      add: ['COMPUTE_NET_VIF_MODEL_IGB'], unknown: [],
    });
  });
});

describe('unknownTraitsError', () => {
  it('unknownTraitsError: FERRY_UNKNOWN_TRAIT naming each name and where it exists', () => {
    const error = unknownTraitsError(['COMPUTE_NET_VIF_MODEL_IGB', 'COMPUTE_VIOMMU_INTEL'], catalogue);
    expect(error).toMatchObject({
      code: 'FERRY_UNKNOWN_TRAIT',
      message:
        '2 trait name(s) are not known to os-traits 2.9.0, so Placement would refuse the update: ' +
        'COMPUTE_NET_VIF_MODEL_IGB is not in os-traits 2.9.0; it first appears in os-traits 3.2.0; ' +
        'COMPUTE_VIOMMU_INTEL is not a trait in os-traits 2.9.0',
      details: { unknown: ['COMPUTE_NET_VIF_MODEL_IGB', 'COMPUTE_VIOMMU_INTEL'], catalogueVersion: '2.9.0' },
    });
  });
});
