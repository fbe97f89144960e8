import { describe, expect, it } from 'vitest';
import { hostTraits } from '../../../src/traits/host-traits.js';
import type { HostCapabilitiesInput } from '../../../src/traits/host-traits.js';
import { parseHostCapabilities } from '../../../src/traits/parse-host-capabilities.js';
import { standardTraitCatalogue } from '../../../src/traits/trait-catalogue.js';
import { loadDomcaps, readFixture } from './domcaps-fixtures.js';

const catalogue = standardTraitCatalogue();
const hostCapabilities = parseHostCapabilities(readFixture('capabilities.xml'), 'capabilities.xml');

// Expected traits per file, read off the XML by hand (libvirt 9.0.0, QEMU 7.2.22, swtpm enabled, default storage):
// disk buses from devices/disk/enum[@name='bus'] (q35 has no ide), video from modelType (ramfb has no trait),
// secure boot only where os/loader/enum[@name='secure'] lists yes (q35), TPM 1.2 + 2.0 from backendVersion,
// vIOMMU auto + intel (x86_64) + virtio (libvirt ≥ 8.3.0), VIF models from nova's table (qemu adds lan9118).
const IMAGE = ['COMPUTE_IMAGE_TYPE_AKI', 'COMPUTE_IMAGE_TYPE_AMI', 'COMPUTE_IMAGE_TYPE_ARI', 'COMPUTE_IMAGE_TYPE_ISO', 'COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_IMAGE_TYPE_RAW'];
const VIDEO = ['BOCHS', 'CIRRUS', 'NONE', 'QXL', 'VGA', 'VIRTIO', 'VMVGA'].map((m) => `COMPUTE_GRAPHICS_MODEL_${m}`);
const VIF_KVM = ['E1000', 'E1000E', 'NE2K_PCI', 'PCNET', 'RTL8139', 'SPAPR_VLAN', 'VIRTIO', 'VMXNET3'].map((m) => `COMPUTE_NET_VIF_MODEL_${m}`);
const VIF_QEMU = [...VIF_KVM, 'COMPUTE_NET_VIF_MODEL_LAN9118'];
const BUS_Q35 = ['FDC', 'SATA', 'SCSI', 'USB', 'VIRTIO'].map((b) => `COMPUTE_STORAGE_BUS_${b}`);
const BUS_PC = [...BUS_Q35, 'COMPUTE_STORAGE_BUS_IDE'];
const COMMON = [
  ...IMAGE, ...VIDEO, 'COMPUTE_ARCH_X86_64', 'HW_ARCH_X86_64', 'COMPUTE_SECURITY_TPM_1_2', 'COMPUTE_SECURITY_TPM_2_0',
  'COMPUTE_VIOMMU_MODEL_AUTO', 'COMPUTE_VIOMMU_MODEL_INTEL', 'COMPUTE_VIOMMU_MODEL_VIRTIO',
];

const perFile = [
  { file: 'domcaps-x86_64-kvm-pc.xml' as const, virtType: 'kvm' as const, expected: [...COMMON, ...BUS_PC, ...VIF_KVM] },
  { file: 'domcaps-x86_64-kvm-q35.xml' as const, virtType: 'kvm' as const, expected: [...COMMON, ...BUS_Q35, ...VIF_KVM, 'COMPUTE_SECURITY_UEFI_SECURE_BOOT'] },
  { file: 'domcaps-x86_64-qemu-pc.xml' as const, virtType: 'qemu' as const, expected: [...COMMON, ...BUS_PC, ...VIF_QEMU] },
  { file: 'domcaps-x86_64-qemu-q35.xml' as const, virtType: 'qemu' as const, expected: [...COMMON, ...BUS_Q35, ...VIF_QEMU, 'COMPUTE_SECURITY_UEFI_SECURE_BOOT'] },
];

const base = { hostCapabilities, libvirtVersion: '9.0.0', qemuVersion: '7.2.22', swtpmEnabled: true };

describe('hostTraits: one real domcaps file', () => {
  it.each(perFile)('hostTraits: $file ($virtType)', ({ file, virtType, expected }) => {
    const report = hostTraits({ ...base, virtType, domainCapabilities: [loadDomcaps(file)] }, catalogue);
    expect(report.traits).toEqual([...expected].sort());
    expect(Object.keys(report.reasons).sort()).toEqual(report.traits);
    expect(report.unmapped).toEqual([
      { value: 'ramfb', source: `devices/video/enum[@name='modelType'] in ${file}`, trait: 'COMPUTE_GRAPHICS_MODEL_RAMFB', why: 'COMPUTE_GRAPHICS_MODEL_RAMFB is not a trait in os-traits 2.9.0' },
      {
        value: 'tpm-crb', source: `devices/tpm/enum[@name='model'] in ${file}`, trait: 'COMPUTE_SECURITY_TPM_CRB',
        why: 'COMPUTE_SECURITY_TPM_CRB is not in os-traits 2.9.0; it comes from an os-traits release after 2.9.0 (which one, ferry does not know)',
      },
      {
        value: 'tpm-tis', source: `devices/tpm/enum[@name='model'] in ${file}`, trait: 'COMPUTE_SECURITY_TPM_TIS',
        why: 'COMPUTE_SECURITY_TPM_TIS is not in os-traits 2.9.0; it comes from an os-traits release after 2.9.0 (which one, ferry does not know)',
      },
    ]);
    expect(report).toMatchObject({ catalogueVersion: '2.9.0', virtType, hostArch: 'x86_64', domainCapabilities: [file] });
  });
});

describe('hostTraits: pc + q35 combine as a union, like nova', () => {
  const report = hostTraits(
    { ...base, virtType: 'kvm', domainCapabilities: [loadDomcaps('domcaps-x86_64-kvm-pc.xml'), loadDomcaps('domcaps-x86_64-kvm-q35.xml')] },
    catalogue,
  );

  it('hostTraits: ide from pc and secure boot from q35 both count', () => {
    expect(report.traits).toEqual([...COMMON, ...BUS_PC, ...VIF_KVM, 'COMPUTE_SECURITY_UEFI_SECURE_BOOT'].sort());
  });

  const reasons = [
    { trait: 'COMPUTE_STORAGE_BUS_SATA', reason: "devices/disk/enum[@name='bus'] value 'sata' in domcaps-x86_64-kvm-pc.xml, domcaps-x86_64-kvm-q35.xml" },
    { trait: 'COMPUTE_STORAGE_BUS_IDE', reason: "devices/disk/enum[@name='bus'] value 'ide' in domcaps-x86_64-kvm-pc.xml" },
    { trait: 'COMPUTE_SECURITY_UEFI_SECURE_BOOT', reason: "os/loader/enum[@name='secure'] value 'yes' in domcaps-x86_64-kvm-q35.xml" },
    { trait: 'COMPUTE_GRAPHICS_MODEL_QXL', reason: "devices/video/enum[@name='modelType'] value 'qxl' in domcaps-x86_64-kvm-pc.xml, domcaps-x86_64-kvm-q35.xml" },
    { trait: 'HW_ARCH_X86_64', reason: "host/cpu/arch value 'x86_64' in capabilities.xml" },
    { trait: 'COMPUTE_ARCH_X86_64', reason: "arch value 'x86_64' in domcaps-x86_64-kvm-pc.xml, domcaps-x86_64-kvm-q35.xml" },
    { trait: 'COMPUTE_VIOMMU_MODEL_VIRTIO', reason: 'libvirt 9.0.0 ≥ 8.3.0' },
    { trait: 'COMPUTE_IMAGE_TYPE_QCOW2', reason: '[libvirt] images_type=default, [DEFAULT] force_raw_images=true: only rbd or lvm without force_raw_images refuse qcow2' },
    { trait: 'COMPUTE_NET_VIF_MODEL_VIRTIO', reason: "[libvirt] virt_type=kvm: in nova's VIF model table for kvm (libvirt lists no NIC models)" },
    {
      trait: 'COMPUTE_SECURITY_TPM_2_0',
      reason: "[libvirt] swtpm_enabled=true, devices/tpm/enum[@name='backendVersion'] value '2.0' in domcaps-x86_64-kvm-pc.xml, domcaps-x86_64-kvm-q35.xml",
    },
  ];
  it.each(reasons)('hostTraits: reason for $trait', ({ trait, reason }) => {
    expect(report.reasons[trait]).toBe(reason);
  });

  it('hostTraits: unmapped values list every file they came from, once', () => {
    expect(report.unmapped.map((u) => [u.value, u.source])).toEqual([
      ['ramfb', "devices/video/enum[@name='modelType'] in domcaps-x86_64-kvm-pc.xml, domcaps-x86_64-kvm-q35.xml"],
      ['tpm-crb', "devices/tpm/enum[@name='model'] in domcaps-x86_64-kvm-pc.xml, domcaps-x86_64-kvm-q35.xml"],
      ['tpm-tis', "devices/tpm/enum[@name='model'] in domcaps-x86_64-kvm-pc.xml, domcaps-x86_64-kvm-q35.xml"],
    ]);
  });

  it('hostTraits: every family is decided when every input is given', () => {
    expect(report.decidedFamilies).toEqual([
      'COMPUTE_ARCH_', 'COMPUTE_GRAPHICS_MODEL_', 'COMPUTE_IMAGE_TYPE_', 'COMPUTE_NET_VIF_MODEL_',
      'COMPUTE_SECURITY_TPM_1_2', 'COMPUTE_SECURITY_TPM_2_0', 'COMPUTE_SECURITY_TPM_CRB', 'COMPUTE_SECURITY_TPM_TIS',
      'COMPUTE_SECURITY_UEFI_SECURE_BOOT', 'COMPUTE_STORAGE_BUS_', 'COMPUTE_VIOMMU_MODEL_AUTO', 'COMPUTE_VIOMMU_MODEL_INTEL',
      'COMPUTE_VIOMMU_MODEL_SMMUV3', 'COMPUTE_VIOMMU_MODEL_VIRTIO', 'HW_ARCH_',
    ]);
  });

  it('hostTraits: absent names explain themselves', () => {
    expect(report.absent).toMatchObject({
      COMPUTE_STORAGE_BUS_XEN: "not in devices/disk/enum[@name='bus'] of domcaps-x86_64-kvm-pc.xml, domcaps-x86_64-kvm-q35.xml",
      COMPUTE_GRAPHICS_MODEL_GOP: "not in devices/video/enum[@name='modelType'] of domcaps-x86_64-kvm-pc.xml, domcaps-x86_64-kvm-q35.xml",
      COMPUTE_VIOMMU_MODEL_SMMUV3: 'no aarch64 domain capabilities among domcaps-x86_64-kvm-pc.xml, domcaps-x86_64-kvm-q35.xml',
      COMPUTE_NET_VIF_MODEL_LAN9118: "[libvirt] virt_type=kvm: not in nova's VIF model table for kvm",
    });
  });
});

describe('hostTraits: partial input decides only what it can', () => {
  const cases: readonly { name: string; input: HostCapabilitiesInput; traits: readonly string[]; decided: readonly string[] }[] = [
    {
      name: 'storage config only (kvm)',
      input: { virtType: 'kvm' },
      traits: [...IMAGE, ...VIF_KVM, 'COMPUTE_VIOMMU_MODEL_AUTO'],
      decided: [
        'COMPUTE_IMAGE_TYPE_', 'COMPUTE_NET_VIF_MODEL_E1000', 'COMPUTE_NET_VIF_MODEL_E1000E', 'COMPUTE_NET_VIF_MODEL_LAN9118',
        'COMPUTE_NET_VIF_MODEL_NE2K_PCI', 'COMPUTE_NET_VIF_MODEL_NETFRONT', 'COMPUTE_NET_VIF_MODEL_PCNET', 'COMPUTE_NET_VIF_MODEL_RTL8139',
        'COMPUTE_NET_VIF_MODEL_SPAPR_VLAN', 'COMPUTE_NET_VIF_MODEL_SRIOV', 'COMPUTE_NET_VIF_MODEL_VIRTIO', 'COMPUTE_NET_VIF_MODEL_VMXNET',
        'COMPUTE_NET_VIF_MODEL_VMXNET3', 'COMPUTE_SECURITY_TPM_1_2', 'COMPUTE_SECURITY_TPM_2_0', 'COMPUTE_SECURITY_TPM_CRB',
        'COMPUTE_SECURITY_TPM_TIS', 'COMPUTE_VIOMMU_MODEL_AUTO',
      ],
    },
    {
      name: 'host arch given as an option, lxc',
      input: { virtType: 'lxc', hostArch: 'amd64', libvirtVersion: '9.0.0', qemuVersion: '7.2.22' },
      traits: [...IMAGE, 'COMPUTE_STORAGE_BUS_LXC', 'COMPUTE_VIOMMU_MODEL_AUTO', 'COMPUTE_VIOMMU_MODEL_VIRTIO', 'HW_ARCH_X86_64'],
      decided: [
        'COMPUTE_IMAGE_TYPE_', 'COMPUTE_NET_VIF_MODEL_', 'COMPUTE_SECURITY_TPM_1_2', 'COMPUTE_SECURITY_TPM_2_0', 'COMPUTE_SECURITY_TPM_CRB',
        'COMPUTE_SECURITY_TPM_TIS', 'COMPUTE_STORAGE_BUS_', 'COMPUTE_VIOMMU_MODEL_AUTO', 'COMPUTE_VIOMMU_MODEL_VIRTIO', 'HW_ARCH_',
      ],
    },
  ];
  it.each(cases)('hostTraits: $name', ({ input, traits, decided }) => {
    const report = hostTraits(input, catalogue);
    expect(report.traits).toEqual([...traits].sort());
    expect(report.decidedFamilies).toEqual(decided);
  });

  it('hostTraits: hostArch option is reported canonical, with its own reason', () => {
    const report = hostTraits({ virtType: 'kvm', hostArch: 'amd64' }, catalogue);
    expect(report.hostArch).toBe('x86_64');
    expect(report.reasons['HW_ARCH_X86_64']).toBe("hostArch option 'amd64'");
  });

  it('hostTraits: swtpm disabled (the default) gives no TPM trait and says why', () => {
    const report = hostTraits({ virtType: 'kvm', domainCapabilities: [loadDomcaps('domcaps-x86_64-kvm-q35.xml')] }, catalogue);
    expect(report.traits.filter((t) => t.startsWith('COMPUTE_SECURITY_TPM'))).toEqual([]);
    expect(report.absent['COMPUTE_SECURITY_TPM_2_0']).toBe('[libvirt] swtpm_enabled=false');
    expect(report.unmapped.map((u) => u.value)).toEqual(['ramfb']);
  });
});

describe('hostTraits: inconsistent input', () => {
  it('hostTraits: qemu domain capabilities for a kvm host → FERRY_INVALID_OPTION', () => {
    expect(() => hostTraits({ virtType: 'kvm', domainCapabilities: [loadDomcaps('domcaps-x86_64-qemu-q35.xml')] }, catalogue)).toThrow(
      expect.objectContaining({
        code: 'FERRY_INVALID_OPTION',
        message: 'domcaps-x86_64-qemu-q35.xml describes virt type qemu, but [libvirt] virt_type is kvm: its devices need not be what kvm guests get',
      }),
    );
  });

  it('hostTraits: hostArch contradicting capabilities.xml → FERRY_INVALID_OPTION', () => {
    expect(() => hostTraits({ virtType: 'kvm', hostCapabilities, hostArch: 'aarch64' }, catalogue)).toThrow(
      expect.objectContaining({ code: 'FERRY_INVALID_OPTION', details: { option: 'hostArch', value: 'aarch64', capabilities: 'x86_64' } }),
    );
  });

  it('hostTraits: hostArch agreeing with capabilities.xml after canonicalisation is fine', () => {
    expect(hostTraits({ virtType: 'kvm', hostCapabilities, hostArch: 'AMD64' }, catalogue).hostArch).toBe('x86_64');
  });

  it('hostTraits: a short libvirtVersion (9) counts as 9.0.0', () => {
    expect(hostTraits({ virtType: 'kvm', libvirtVersion: '9' }, catalogue).traits).toContain('COMPUTE_VIOMMU_MODEL_VIRTIO');
  });

  it.each(['9.0.0-4+deb12u2', 'nine', ''])('hostTraits: libvirtVersion %j → FERRY_INVALID_OPTION', (libvirtVersion) => {
    expect(() => hostTraits({ virtType: 'kvm', libvirtVersion }, catalogue)).toThrow(
      expect.objectContaining({ code: 'FERRY_INVALID_OPTION', details: { option: 'libvirtVersion', value: libvirtVersion } }),
    );
  });
});
