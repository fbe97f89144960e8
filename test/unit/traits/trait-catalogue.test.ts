import { describe, expect, it } from 'vitest';
import { OS_TRAITS_BASE } from '../../../src/traits/os-traits-base.js';
import {
  KNOWN_OS_TRAITS_VERSIONS,
  describeMissingTrait,
  standardTraitCatalogue,
  traitCatalogueFromNames,
} from '../../../src/traits/trait-catalogue.js';

describe('OS_TRAITS_BASE', () => {
  // Counts from placement-and-traits.md §7 (os-traits 2.9.0 as Placement 8.0.0 loads it).
  const counts = [
    { prefix: '', n: 345 },
    { prefix: 'COMPUTE_', n: 81 },
    { prefix: 'HW_', n: 259 },
    { prefix: 'HW_CPU_', n: 84 },
    { prefix: 'HW_GPU_', n: 97 },
    { prefix: 'HW_NIC_', n: 43 },
    { prefix: 'HW_ARCH_', n: 34 },
    { prefix: 'STORAGE_', n: 2 },
    { prefix: 'OWNER_', n: 2 },
    { prefix: 'MISC_', n: 1 },
    { prefix: 'COMPUTE_IMAGE_TYPE_', n: 11 },
    { prefix: 'COMPUTE_NET_VIF_MODEL_', n: 12 },
    { prefix: 'COMPUTE_STORAGE_BUS_', n: 9 },
    { prefix: 'COMPUTE_GRAPHICS_MODEL_', n: 9 },
    { prefix: 'COMPUTE_ARCH_', n: 6 },
    { prefix: 'COMPUTE_VIOMMU_MODEL_', n: 4 },
    { prefix: 'COMPUTE_SECURITY_', n: 3 },
  ];
  it.each(counts)('OS_TRAITS_BASE: $n names with prefix "$prefix"', ({ prefix, n }) => {
    expect(OS_TRAITS_BASE.names.filter((name) => name.startsWith(prefix))).toHaveLength(n);
  });

  it('OS_TRAITS_BASE: version 2.9.0, sorted, no duplicates', () => {
    expect(OS_TRAITS_BASE.version).toBe('2.9.0');
    expect([...OS_TRAITS_BASE.names].sort()).toEqual(OS_TRAITS_BASE.names);
    expect(new Set(OS_TRAITS_BASE.names).size).toBe(OS_TRAITS_BASE.names.length);
  });
});

describe('standardTraitCatalogue', () => {
  const v290 = standardTraitCatalogue();
  const hasCases = [
    { version: '2.9.0', name: 'COMPUTE_IMAGE_TYPE_QCOW2', has: true },
    { version: '2.9.0', name: 'COMPUTE_VIOMMU_MODEL_INTEL', has: true },
    { version: '2.9.0', name: 'HW_ARCH_ARMV7', has: true },
    { version: '2.9.0', name: 'COMPUTE_NET_VIF_MODEL_IGB', has: false },
    { version: '2.9.0', name: 'COMPUTE_NET_VIRTIO_PACKED', has: false },
    { version: '2.9.0', name: 'COMPUTE_SECURITY_TPM_TIS', has: false },
    { version: '2.9.0', name: 'COMPUTE_VIOMMU_INTEL', has: false },
    { version: '2.9.0', name: 'HW_ARCH_ARMV7L', has: false },
    { version: '2.9.0', name: 'COMPUTE_GRAPHICS_MODEL_RAMFB', has: false },
    { version: '2.9.0', name: 'CUSTOM_IMAGE_CACHE_FAST', has: false },
    { version: '2.9.0', name: 'compute_image_type_qcow2', has: false },
    { version: '3.0.0', name: 'COMPUTE_NET_VIRTIO_PACKED', has: true },
    { version: '3.0.0', name: 'COMPUTE_NET_VIF_MODEL_IGB', has: false },
    { version: '3.2.0', name: 'COMPUTE_NET_VIF_MODEL_IGB', has: true },
    { version: '3.2.0', name: 'COMPUTE_NET_VIRTIO_PACKED', has: true },
    { version: '3.2.0', name: 'COMPUTE_IMAGE_TYPE_QCOW2', has: true },
    // Release unknown to ferry: never part of a catalogue built from a version number.
    { version: '3.2.0', name: 'COMPUTE_SECURITY_TPM_TIS', has: false },
    { version: '3.2.0', name: 'COMPUTE_SOUND_MODEL_VIRTIO', has: false },
  ];
  it.each(hasCases)('standardTraitCatalogue($version).has($name) is $has', ({ version, name, has }) => {
    expect(standardTraitCatalogue(version).has(name)).toBe(has);
  });

  it('standardTraitCatalogue: default version is 2.9.0 with its 345 names', () => {
    expect(v290.version).toBe('2.9.0');
    expect(v290.withPrefix('')).toHaveLength(345);
  });

  it('standardTraitCatalogue: known versions are 2.9.0 and the releases ferry knows additions of', () => {
    expect(KNOWN_OS_TRAITS_VERSIONS).toEqual(['2.9.0', '3.0.0', '3.2.0']);
    expect(standardTraitCatalogue('3.2.0').withPrefix('')).toHaveLength(347);
  });

  it.each(['2.8.0', '3.1.0', '3.7.0', 'latest', '', '2.9'])('standardTraitCatalogue(%j) → FERRY_INVALID_OPTION', (version) => {
    expect(() => standardTraitCatalogue(version)).toThrow(
      expect.objectContaining({ code: 'FERRY_INVALID_OPTION', details: expect.objectContaining({ value: version }) }),
    );
  });

  const prefixCases = [
    { prefix: 'COMPUTE_IMAGE_TYPE_', names: ['AKI', 'AMI', 'ARI', 'ISO', 'PLOOP', 'QCOW2', 'RAW', 'VDI', 'VHD', 'VHDX', 'VMDK'] },
    { prefix: 'COMPUTE_STORAGE_BUS_', names: ['FDC', 'IDE', 'LXC', 'SATA', 'SCSI', 'UML', 'USB', 'VIRTIO', 'XEN'] },
    { prefix: 'COMPUTE_GRAPHICS_MODEL_', names: ['BOCHS', 'CIRRUS', 'GOP', 'NONE', 'QXL', 'VGA', 'VIRTIO', 'VMVGA', 'XEN'] },
    { prefix: 'COMPUTE_ARCH_', names: ['AARCH64', 'MIPSEL', 'PPC64LE', 'RISCV64', 'S390X', 'X86_64'] },
    { prefix: 'COMPUTE_VIOMMU_MODEL_', names: ['AUTO', 'INTEL', 'SMMUV3', 'VIRTIO'] },
    { prefix: 'COMPUTE_SECURITY_', names: ['TPM_1_2', 'TPM_2_0', 'UEFI_SECURE_BOOT'] },
    { prefix: 'COMPUTE_NOPE_', names: [] },
  ];
  it.each(prefixCases)('withPrefix($prefix) on 2.9.0 is sorted and complete', ({ prefix, names }) => {
    expect(v290.withPrefix(prefix)).toEqual(names.map((n) => prefix + n));
  });

  it('partition: sorted, de-duplicated known and unknown names', () => {
    expect(v290.partition(['HW_ARCH_X86_64', 'COMPUTE_NET_VIF_MODEL_IGB', 'COMPUTE_IMAGE_TYPE_RAW', 'HW_ARCH_X86_64', 'CUSTOM_X'])).toEqual({
      known: ['COMPUTE_IMAGE_TYPE_RAW', 'HW_ARCH_X86_64'],
      unknown: ['COMPUTE_NET_VIF_MODEL_IGB', 'CUSTOM_X'],
    });
  });

  const firstVersionCases = [
    { name: 'COMPUTE_NET_VIF_MODEL_IGB', first: '3.2.0' },
    { name: 'COMPUTE_NET_VIRTIO_PACKED', first: '3.0.0' },
    { name: 'COMPUTE_IMAGE_TYPE_QCOW2', first: '0.12.0' },
    { name: 'COMPUTE_IMAGE_TYPE_PLOOP', first: '2.0.0' },
    { name: 'COMPUTE_GRAPHICS_MODEL_BOCHS', first: '2.6.0' },
    { name: 'COMPUTE_GRAPHICS_MODEL_QXL', first: '0.15.0' },
    { name: 'COMPUTE_STORAGE_BUS_SATA', first: '0.15.0' },
    { name: 'COMPUTE_NET_VIF_MODEL_E1000', first: '0.15.0' },
    { name: 'COMPUTE_ARCH_X86_64', first: '2.7.0' },
    { name: 'HW_ARCH_AARCH64', first: '2.7.0' },
    { name: 'COMPUTE_VIOMMU_MODEL_SMMUV3', first: '2.8.0' },
    { name: 'COMPUTE_SECURITY_TPM_TIS', first: undefined },
    { name: 'COMPUTE_SOUND_MODEL_ICH9', first: undefined },
    { name: 'COMPUTE_ARCH_I686', first: undefined },
    { name: 'COMPUTE_GRAPHICS_MODEL_RAMFB', first: undefined },
    { name: 'HW_CPU_X86_AVX2', first: undefined },
  ];
  it.each(firstVersionCases)('firstVersionOf($name) is $first', ({ name, first }) => {
    expect(v290.firstVersionOf(name)).toBe(first);
  });
});

describe('traitCatalogueFromNames', () => {
  // What GET /traits of a Placement with os-traits ≥ 3.2.0 and one custom trait could answer (unsorted, as Placement does).
  const fromPlacement = traitCatalogueFromNames(['HW_ARCH_X86_64', 'CUSTOM_IMAGE_CACHE_FAST', 'COMPUTE_NET_VIF_MODEL_IGB', 'COMPUTE_IMAGE_TYPE_RAW']);

  it('traitCatalogueFromNames: version "placement", CUSTOM_ names when given, later names when given', () => {
    expect(fromPlacement.version).toBe('placement');
    expect(fromPlacement.has('CUSTOM_IMAGE_CACHE_FAST')).toBe(true);
    expect(fromPlacement.has('COMPUTE_NET_VIF_MODEL_IGB')).toBe(true);
    expect(fromPlacement.has('COMPUTE_IMAGE_TYPE_QCOW2')).toBe(false);
    expect(fromPlacement.firstVersionOf('COMPUTE_NET_VIF_MODEL_IGB')).toBe('3.2.0');
  });

  it('traitCatalogueFromNames: withPrefix sorts what the server gave unsorted', () => {
    expect(fromPlacement.withPrefix('')).toEqual(['COMPUTE_IMAGE_TYPE_RAW', 'COMPUTE_NET_VIF_MODEL_IGB', 'CUSTOM_IMAGE_CACHE_FAST', 'HW_ARCH_X86_64']);
  });

  it('traitCatalogueFromNames: an explicit version label is kept', () => {
    expect(traitCatalogueFromNames([], '3.7.0').version).toBe('3.7.0');
  });
});

describe('describeMissingTrait', () => {
  const cases = [
    { name: 'COMPUTE_NET_VIF_MODEL_IGB', text: 'COMPUTE_NET_VIF_MODEL_IGB is not in os-traits 2.9.0; it first appears in os-traits 3.2.0' },
    {
      name: 'COMPUTE_SECURITY_TPM_CRB',
      text: 'COMPUTE_SECURITY_TPM_CRB is not in os-traits 2.9.0; it comes from an os-traits release after 2.9.0 (which one, ferry does not know)',
    },
    { name: 'COMPUTE_GRAPHICS_MODEL_RAMFB', text: 'COMPUTE_GRAPHICS_MODEL_RAMFB is not a trait in os-traits 2.9.0' },
  ];
  it.each(cases)('describeMissingTrait($name)', ({ name, text }) => {
    expect(describeMissingTrait(name, standardTraitCatalogue())).toBe(text);
  });

  it('describeMissingTrait: a Placement-read catalogue is named as such', () => {
    expect(describeMissingTrait('COMPUTE_VIOMMU_INTEL', traitCatalogueFromNames([]))).toBe(
      "COMPUTE_VIOMMU_INTEL is not a trait in the target Placement's trait list",
    );
  });
});
