import { describe, expect, it } from 'vitest';
import { imageMetadataTraits } from '../../../src/prefilter/image-metadata-traits.js';
import { ARCHITECTURES, DISK_BUSES, VIDEO_MODELS, VIF_MODELS, VIOMMU_MODELS } from '../../../src/prefilter/image-property-enums.js';
import { standardTraitCatalogue } from '../../../src/traits/trait-catalogue.js';

const catalogue = standardTraitCatalogue('2.9.0');
const traitsOf = (properties: Record<string, string>): string[] => imageMetadataTraits(properties, catalogue).traits.map((t) => t.name);
const unmappedOf = (properties: Record<string, string>) => imageMetadataTraits(properties, catalogue).unmapped;

// Every enum value of placement-and-traits.md §9.7 with the name it must give against os-traits 2.9.0.
const diskBuses: [string, string][] = [
  ['fdc', 'COMPUTE_STORAGE_BUS_FDC'], ['ide', 'COMPUTE_STORAGE_BUS_IDE'], ['sata', 'COMPUTE_STORAGE_BUS_SATA'],
  ['scsi', 'COMPUTE_STORAGE_BUS_SCSI'], ['usb', 'COMPUTE_STORAGE_BUS_USB'], ['virtio', 'COMPUTE_STORAGE_BUS_VIRTIO'],
  ['xen', 'COMPUTE_STORAGE_BUS_XEN'], ['lxc', 'COMPUTE_STORAGE_BUS_LXC'], ['uml', 'COMPUTE_STORAGE_BUS_UML'],
];
const videoModels: [string, string][] = [
  ['cirrus', 'COMPUTE_GRAPHICS_MODEL_CIRRUS'], ['qxl', 'COMPUTE_GRAPHICS_MODEL_QXL'], ['vga', 'COMPUTE_GRAPHICS_MODEL_VGA'],
  ['vmvga', 'COMPUTE_GRAPHICS_MODEL_VMVGA'], ['xen', 'COMPUTE_GRAPHICS_MODEL_XEN'], ['virtio', 'COMPUTE_GRAPHICS_MODEL_VIRTIO'],
  ['gop', 'COMPUTE_GRAPHICS_MODEL_GOP'], ['none', 'COMPUTE_GRAPHICS_MODEL_NONE'], ['bochs', 'COMPUTE_GRAPHICS_MODEL_BOCHS'],
];
const vifModels: [string, string][] = [
  ['virtio', 'COMPUTE_NET_VIF_MODEL_VIRTIO'], ['ne2k_pci', 'COMPUTE_NET_VIF_MODEL_NE2K_PCI'], ['pcnet', 'COMPUTE_NET_VIF_MODEL_PCNET'],
  ['rtl8139', 'COMPUTE_NET_VIF_MODEL_RTL8139'], ['e1000', 'COMPUTE_NET_VIF_MODEL_E1000'], ['e1000e', 'COMPUTE_NET_VIF_MODEL_E1000E'],
  ['netfront', 'COMPUTE_NET_VIF_MODEL_NETFRONT'], ['spapr-vlan', 'COMPUTE_NET_VIF_MODEL_SPAPR_VLAN'],
  ['lan9118', 'COMPUTE_NET_VIF_MODEL_LAN9118'], ['sriov', 'COMPUTE_NET_VIF_MODEL_SRIOV'], ['vmxnet', 'COMPUTE_NET_VIF_MODEL_VMXNET'],
  ['vmxnet3', 'COMPUTE_NET_VIF_MODEL_VMXNET3'],
  // legacy VMware names, mapped first; nova lower-cases VIF models
  ['virtuale1000', 'COMPUTE_NET_VIF_MODEL_E1000'], ['VirtualE1000', 'COMPUTE_NET_VIF_MODEL_E1000'],
  ['virtuale1000e', 'COMPUTE_NET_VIF_MODEL_E1000E'], ['virtualpcnet32', 'COMPUTE_NET_VIF_MODEL_PCNET'],
  ['virtualsriovethernetcard', 'COMPUTE_NET_VIF_MODEL_SRIOV'], ['virtualvmxnet', 'COMPUTE_NET_VIF_MODEL_VMXNET'],
  ['VirtualVmxnet3', 'COMPUTE_NET_VIF_MODEL_VMXNET3'], ['VIRTIO', 'COMPUTE_NET_VIF_MODEL_VIRTIO'],
];
const viommuModels: [string, string][] = [
  ['intel', 'COMPUTE_VIOMMU_MODEL_INTEL'], ['smmuv3', 'COMPUTE_VIOMMU_MODEL_SMMUV3'],
  ['virtio', 'COMPUTE_VIOMMU_MODEL_VIRTIO'], ['auto', 'COMPUTE_VIOMMU_MODEL_AUTO'],
];
const hwArch: [string, string][] = [
  ['alpha', 'HW_ARCH_ALPHA'], ['armv6', 'HW_ARCH_ARMV6'], ['armv7l', 'HW_ARCH_ARMV7'], ['armv7b', 'HW_ARCH_ARMV7B'],
  ['aarch64', 'HW_ARCH_AARCH64'], ['cris', 'HW_ARCH_CRIS'], ['i686', 'HW_ARCH_I686'], ['ia64', 'HW_ARCH_IA64'],
  ['lm32', 'HW_ARCH_LM32'], ['m68k', 'HW_ARCH_M68K'], ['microblaze', 'HW_ARCH_MICROBLAZE'], ['microblazeel', 'HW_ARCH_MICROBLAZEEL'],
  ['mips', 'HW_ARCH_MIPS'], ['mipsel', 'HW_ARCH_MIPSEL'], ['mips64', 'HW_ARCH_MIPS64'], ['mips64el', 'HW_ARCH_MIPS64EL'],
  ['openrisc', 'HW_ARCH_OPENRISC'], ['parisc', 'HW_ARCH_PARISC'], ['parisc64', 'HW_ARCH_PARISC64'], ['ppc', 'HW_ARCH_PPC'],
  ['ppcle', 'HW_ARCH_PPCLE'], ['ppc64', 'HW_ARCH_PPC64'], ['ppc64le', 'HW_ARCH_PPC64LE'], ['ppcemb', 'HW_ARCH_PPCEMB'],
  ['s390', 'HW_ARCH_S390'], ['s390x', 'HW_ARCH_S390X'], ['sh4', 'HW_ARCH_SH4'], ['sh4eb', 'HW_ARCH_SH4EB'],
  ['sparc', 'HW_ARCH_SPARC'], ['sparc64', 'HW_ARCH_SPARC64'], ['unicore32', 'HW_ARCH_UNICORE32'], ['x86_64', 'HW_ARCH_X86_64'],
  ['xtensa', 'HW_ARCH_XTENSA'], ['xtensaeb', 'HW_ARCH_XTENSAEB'],
  // Architecture.canonicalize
  ['i386', 'HW_ARCH_I686'], ['i486', 'HW_ARCH_I686'], ['i586', 'HW_ARCH_I686'], ['x86_32', 'HW_ARCH_I686'],
  ['x86_32p', 'HW_ARCH_I686'], ['amd64', 'HW_ARCH_X86_64'], ['X86_64', 'HW_ARCH_X86_64'], ['AArch64', 'HW_ARCH_AARCH64'],
];
// Only six COMPUTE_ARCH_* names exist in 2.9.0; riscv64 has one but is not in nova's Architecture enum.
const emulationArchMapped: [string, string][] = [
  ['aarch64', 'COMPUTE_ARCH_AARCH64'], ['mipsel', 'COMPUTE_ARCH_MIPSEL'], ['ppc64le', 'COMPUTE_ARCH_PPC64LE'],
  ['s390x', 'COMPUTE_ARCH_S390X'], ['x86_64', 'COMPUTE_ARCH_X86_64'], ['amd64', 'COMPUTE_ARCH_X86_64'],
];
const emulationArchUnmapped = ARCHITECTURES.filter((a) => !['aarch64', 'mipsel', 'ppc64le', 's390x', 'x86_64'].includes(a));

describe('imageMetadataTraits: every enum value against os-traits 2.9.0', () => {
  it('the tables cover every enum value', () => {
    expect(new Set(diskBuses.map(([v]) => v))).toEqual(new Set(DISK_BUSES));
    expect(new Set(videoModels.map(([v]) => v))).toEqual(new Set(VIDEO_MODELS));
    expect(new Set([...vifModels.map(([v]) => v), 'igb'])).toEqual(new Set([...VIF_MODELS, 'virtuale1000', 'VirtualE1000', 'virtuale1000e',
      'virtualpcnet32', 'virtualsriovethernetcard', 'virtualvmxnet', 'VirtualVmxnet3', 'VIRTIO']));
    expect(new Set(viommuModels.map(([v]) => v))).toEqual(new Set(VIOMMU_MODELS));
    expect(ARCHITECTURES.every((a) => hwArch.some(([v]) => v === a))).toBe(true);
    expect(emulationArchUnmapped).toHaveLength(29);
  });

  it.each(diskBuses)('hw_disk_bus=%s → %s', (value, trait) => expect(traitsOf({ hw_disk_bus: value })).toEqual([trait]));
  it.each(diskBuses)('hw_cdrom_bus=%s → %s', (value, trait) => expect(traitsOf({ hw_cdrom_bus: value })).toEqual([trait]));
  it.each(videoModels)('hw_video_model=%s → %s', (value, trait) => expect(traitsOf({ hw_video_model: value })).toEqual([trait]));
  it.each(vifModels)('hw_vif_model=%s → %s', (value, trait) => expect(traitsOf({ hw_vif_model: value })).toEqual([trait]));
  it.each(viommuModels)('hw_viommu_model=%s → %s (not nova\'s COMPUTE_VIOMMU_*)', (value, trait) => expect(traitsOf({ hw_viommu_model: value })).toEqual([trait]));
  it.each(hwArch)('hw_architecture=%s → %s', (value, trait) => expect(traitsOf({ hw_architecture: value })).toEqual([trait]));
  it.each(hwArch)('architecture=%s (legacy) → %s', (value, trait) => expect(traitsOf({ architecture: value })).toEqual([trait]));
  it.each(emulationArchMapped)('hw_emulation_architecture=%s → %s', (value, trait) => expect(traitsOf({ hw_emulation_architecture: value })).toEqual([trait]));

  it.each(emulationArchUnmapped)('hw_emulation_architecture=%s has no COMPUTE_ARCH_ trait in 2.9.0', (value) => {
    const trait = `COMPUTE_ARCH_${value.toUpperCase()}`;
    expect(imageMetadataTraits({ hw_emulation_architecture: value }, catalogue)).toEqual({
      traits: [],
      unmapped: [{ property: 'hw_emulation_architecture', value, kind: 'unknown-trait', trait, reason: `${trait} is not in os-traits 2.9.0` }],
    });
  });

  it('hw_vif_model=igb: COMPUTE_NET_VIF_MODEL_IGB is not in 2.9.0, with the release that has it', () => {
    expect(unmappedOf({ hw_vif_model: 'igb' })).toEqual([{ property: 'hw_vif_model', value: 'igb', kind: 'unknown-trait',
      trait: 'COMPUTE_NET_VIF_MODEL_IGB', reason: 'COMPUTE_NET_VIF_MODEL_IGB is not in os-traits 2.9.0 (first in os-traits 3.2.0)' }]);
  });

  it('hw_vif_model=igb maps once the catalogue has it (os-traits 3.2.0)', () => {
    expect(imageMetadataTraits({ hw_vif_model: 'igb' }, standardTraitCatalogue('3.2.0')).traits.map((t) => t.name)).toEqual(['COMPUTE_NET_VIF_MODEL_IGB']);
  });
});

describe('imageMetadataTraits: values nova rejects', () => {
  it.each([
    { property: 'hw_disk_bus', value: 'SCSI', enumName: 'DiskBus' },
    { property: 'hw_disk_bus', value: 'nvme', enumName: 'DiskBus' },
    { property: 'hw_cdrom_bus', value: 'floppy', enumName: 'DiskBus' },
    { property: 'hw_video_model', value: 'ramfb', enumName: 'VideoModel' },
    { property: 'hw_video_model', value: 'QXL', enumName: 'VideoModel' },
    { property: 'hw_vif_model', value: 'virtio-net', enumName: 'VIFModel' },
    { property: 'hw_viommu_model', value: 'Intel', enumName: 'VIOMMUModel' },
    { property: 'hw_architecture', value: 'arm64', enumName: 'Architecture' },
    { property: 'hw_architecture', value: '', enumName: 'Architecture' },
    { property: 'hw_emulation_architecture', value: 'riscv64', enumName: 'Architecture' },
  ])('$property=$value is not a $enumName value', ({ property, value, enumName }) => {
    const [entry, ...rest] = unmappedOf({ [property]: value });
    expect(rest).toEqual([]);
    expect(entry).toMatchObject({ property, value, kind: 'invalid-value' });
    expect(entry?.reason).toMatch(new RegExp(`^'${value}' is not one of nova's ${enumName} values \\(`));
    expect(entry?.trait).toBeUndefined();
  });
});

describe('imageMetadataTraits: legacy names, precedence, reasons', () => {
  it('hw_architecture wins over the legacy architecture', () => {
    expect(traitsOf({ architecture: 'aarch64', hw_architecture: 'x86_64' })).toEqual(['HW_ARCH_X86_64']);
  });

  it.each<{ properties: Record<string, string>; expected: string[] }>([
    { properties: { vmware_adaptertype: 'ide' }, expected: ['COMPUTE_STORAGE_BUS_IDE'] },
    { properties: { vmware_adaptertype: 'lsiLogic' }, expected: ['COMPUTE_STORAGE_BUS_SCSI'] },
    { properties: { vmware_adaptertype: 'paraVirtual' }, expected: ['COMPUTE_STORAGE_BUS_SCSI'] },
    { properties: { vmware_adaptertype: 'lsiLogic', hw_disk_bus: 'virtio' }, expected: ['COMPUTE_STORAGE_BUS_VIRTIO'] },
  ])('vmware_adaptertype: $properties → $expected', ({ properties, expected }) => {
    expect(traitsOf(properties)).toEqual(expected);
  });

  it.each<{ properties: Record<string, string>; reason: string }>([
    { properties: { hw_disk_bus: 'scsi' }, reason: 'image hw_disk_bus=scsi (image-metadata prefilter)' },
    { properties: { architecture: 'amd64' }, reason: 'image architecture=amd64 (image-metadata prefilter; architecture is the legacy name of hw_architecture; nova reads it as x86_64)' },
    { properties: { hw_architecture: 'armv7l' }, reason: 'image hw_architecture=armv7l (image-metadata prefilter; nova asks for HW_ARCH_ARMV7L, which does not exist)' },
    { properties: { hw_viommu_model: 'smmuv3' }, reason: 'image hw_viommu_model=smmuv3 (image-metadata prefilter; nova asks for COMPUTE_VIOMMU_SMMUV3, which does not exist)' },
    { properties: { hw_vif_model: 'VirtualE1000' }, reason: 'image hw_vif_model=VirtualE1000 (image-metadata prefilter; nova reads it as e1000)' },
    { properties: { vmware_adaptertype: 'lsiLogic' }, reason: 'image vmware_adaptertype=lsiLogic (image-metadata prefilter; nova turns vmware_adaptertype into hw_disk_bus=scsi)' },
  ])('reason for $properties', ({ properties, reason }) => {
    expect(imageMetadataTraits(properties, catalogue).traits.map((t) => t.reason)).toEqual([reason]);
  });

  it('one unmappable property does not drop the others (nova drops them all)', () => {
    expect(imageMetadataTraits({ hw_disk_bus: 'scsi', hw_vif_model: 'igb', hw_viommu_model: 'intel', hw_architecture: 'armv7l' }, catalogue)).toMatchObject({
      traits: [{ name: 'COMPUTE_STORAGE_BUS_SCSI' }, { name: 'HW_ARCH_ARMV7' }, { name: 'COMPUTE_VIOMMU_MODEL_INTEL' }],
      unmapped: [{ property: 'hw_vif_model', kind: 'unknown-trait' }],
    });
  });

  it.each<{ properties: Record<string, string>; property: string; what: string }>([
    { properties: { hypervisor_type: 'qemu' }, property: 'hypervisor_type', what: 'the hypervisor type' },
    { properties: { img_hv_type: 'kvm', hypervisor_type: 'qemu' }, property: 'img_hv_type', what: 'the hypervisor type' },
    { properties: { vm_mode: 'hvm' }, property: 'vm_mode', what: 'the VM mode' },
    { properties: { hw_vm_mode: 'exe' }, property: 'hw_vm_mode', what: 'the VM mode' },
  ])('$property is reported as not expressible, never guessed', ({ properties, property, what }) => {
    expect(imageMetadataTraits(properties, catalogue)).toEqual({ traits: [], unmapped: [{
      property, value: properties[property], kind: 'not-expressible',
      reason: `no standard trait expresses ${what} (os-traits 2.9.0); nova's ImagePropertiesFilter checks it on each host after Placement`,
    }] });
  });

  it('properties no rule reads give nothing', () => {
    expect(imageMetadataTraits({ name: 'img50', os_distro: 'debian', hw_scsi_model: 'virtio-scsi' }, catalogue)).toEqual({ traits: [], unmapped: [] });
  });
});
