import { describe, expect, it } from 'vitest';
import { standardTraitCatalogue } from '../../../src/traits/trait-catalogue.js';
import { vifModelTraits } from '../../../src/traits/vif-model-traits.js';
import type { VirtType } from '../../../src/traits/virt-type.js';

const v290 = standardTraitCatalogue('2.9.0');
const v320 = standardTraitCatalogue('3.2.0');
const vif = (models: string): string[] => (models === '' ? [] : models.split(' ').map((m) => `COMPUTE_NET_VIF_MODEL_${m}`).sort());

// nova's SUPPORTED_VIF_MODELS (placement-and-traits.md §9.6); igb needs libvirt ≥ 9.3.0, QEMU ≥ 8.0.0, os-traits ≥ 3.2.0.
const cases: readonly { virtType: VirtType; libvirt?: number[]; qemu?: number[]; v: string; expected: string }[] = [
  { virtType: 'kvm', libvirt: [9, 0, 0], qemu: [7, 2, 22], v: '2.9.0', expected: 'VIRTIO NE2K_PCI PCNET RTL8139 E1000 E1000E SPAPR_VLAN VMXNET3' },
  { virtType: 'qemu', libvirt: [9, 0, 0], qemu: [7, 2, 22], v: '2.9.0', expected: 'VIRTIO NE2K_PCI PCNET RTL8139 E1000 E1000E LAN9118 SPAPR_VLAN VMXNET3' },
  { virtType: 'parallels', v: '2.9.0', expected: 'VIRTIO RTL8139 E1000' },
  { virtType: 'lxc', v: '2.9.0', expected: '' },
  // Versions high enough but os-traits 2.9.0 has no igb: never emitted.
  { virtType: 'kvm', libvirt: [9, 3, 0], qemu: [8, 0, 0], v: '2.9.0', expected: 'VIRTIO NE2K_PCI PCNET RTL8139 E1000 E1000E SPAPR_VLAN VMXNET3' },
  { virtType: 'kvm', libvirt: [9, 3, 0], qemu: [8, 0, 0], v: '3.2.0', expected: 'VIRTIO NE2K_PCI PCNET RTL8139 E1000 E1000E SPAPR_VLAN VMXNET3 IGB' },
  { virtType: 'kvm', libvirt: [9, 2, 9], qemu: [8, 0, 0], v: '3.2.0', expected: 'VIRTIO NE2K_PCI PCNET RTL8139 E1000 E1000E SPAPR_VLAN VMXNET3' },
  { virtType: 'kvm', libvirt: [10, 0, 0], qemu: [7, 2, 22], v: '3.2.0', expected: 'VIRTIO NE2K_PCI PCNET RTL8139 E1000 E1000E SPAPR_VLAN VMXNET3' },
  { virtType: 'kvm', v: '3.2.0', expected: 'VIRTIO NE2K_PCI PCNET RTL8139 E1000 E1000E SPAPR_VLAN VMXNET3' },
  { virtType: 'parallels', libvirt: [10, 0, 0], qemu: [9, 0, 0], v: '3.2.0', expected: 'VIRTIO RTL8139 E1000' },
];

describe('vifModelTraits', () => {
  it.each(cases)('vifModelTraits($virtType, libvirt $libvirt, QEMU $qemu, os-traits $v) → $expected', ({ virtType, libvirt, qemu, v, expected }) => {
    const result = vifModelTraits(virtType, { libvirt, qemu }, v === '2.9.0' ? v290 : v320);
    expect(result.traits).toEqual(vif(expected));
  });

  it('vifModelTraits: igb allowed by the versions but missing from os-traits 2.9.0 is unmapped with its release', () => {
    expect(vifModelTraits('kvm', { libvirt: [9, 3, 0], qemu: [8, 0, 0] }, v290).unmapped).toEqual([
      {
        value: 'igb', source: "[libvirt] virt_type=kvm: in nova's VIF model table for kvm (libvirt lists no NIC models)",
        trait: 'COMPUTE_NET_VIF_MODEL_IGB', why: 'COMPUTE_NET_VIF_MODEL_IGB is not in os-traits 2.9.0; it first appears in os-traits 3.2.0',
      },
    ]);
  });

  it('vifModelTraits: with versions known the whole family is decided', () => {
    expect(vifModelTraits('kvm', { libvirt: [9, 0, 0], qemu: [7, 2, 0] }, v320).decidedFamilies).toEqual(['COMPUTE_NET_VIF_MODEL_']);
  });

  it('vifModelTraits: with a version unknown igb is neither claimed nor decided', () => {
    const result = vifModelTraits('kvm', { libvirt: [9, 3, 0], qemu: undefined }, v320);
    expect(result.decidedFamilies).not.toContain('COMPUTE_NET_VIF_MODEL_IGB');
    expect(result.decidedFamilies).not.toContain('COMPUTE_NET_VIF_MODEL_');
    expect(result.decidedFamilies).toHaveLength(12);
    expect(result.absent['COMPUTE_NET_VIF_MODEL_IGB']).toBe('igb needs libvirt ≥ 9.3.0 and QEMU ≥ 8.0.0; this host: libvirt 9.3.0, QEMU unknown');
  });
});
