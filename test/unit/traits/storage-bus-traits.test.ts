import { describe, expect, it } from 'vitest';
import { storageBusTraits } from '../../../src/traits/storage-bus-traits.js';
import { standardTraitCatalogue } from '../../../src/traits/trait-catalogue.js';
import type { DomainCapabilities } from '../../../src/traits/parse-domain-capabilities.js';
import { loadDomcaps } from './domcaps-fixtures.js';

const catalogue = standardTraitCatalogue();
const q35 = loadDomcaps('domcaps-x86_64-kvm-q35.xml');
const bus = (names: string): string[] => (names === '' ? [] : names.split(' ').map((b) => `COMPUTE_STORAGE_BUS_${b}`));

describe('storageBusTraits', () => {
  const cases = [
    { virtType: 'lxc' as const, domcaps: [], expected: 'LXC' },
    { virtType: 'parallels' as const, domcaps: [], expected: 'IDE SCSI' },
    { virtType: 'kvm' as const, domcaps: [q35], expected: 'FDC SATA SCSI USB VIRTIO' },
    { virtType: 'kvm' as const, domcaps: [], expected: '' },
  ];
  it.each(cases)('storageBusTraits($virtType, $domcaps.length domcaps) → $expected', ({ virtType, domcaps, expected }) => {
    expect(storageBusTraits(virtType, domcaps, catalogue).traits).toEqual(bus(expected));
  });

  it('storageBusTraits: kvm without domain capabilities decides nothing', () => {
    expect(storageBusTraits('kvm', [], catalogue).decidedFamilies).toEqual([]);
  });

  it('storageBusTraits: the lxc table reason', () => {
    expect(storageBusTraits('lxc', [], catalogue).reasons).toEqual({
      COMPUTE_STORAGE_BUS_LXC: "[libvirt] virt_type=lxc: in nova's fixed bus list for lxc (lxc)",
    });
  });

  it('storageBusTraits: a bus with no trait (arm sd) is unmapped, the rest still counts', () => {
    const arm: DomainCapabilities = { ...q35, source: 'arm.xml', arch: 'aarch64', diskBuses: ['virtio', 'sd'] };
    const result = storageBusTraits('kvm', [arm], catalogue);
    expect(result.traits).toEqual(['COMPUTE_STORAGE_BUS_VIRTIO']);
    expect(result.unmapped).toEqual([
      { value: 'sd', source: "devices/disk/enum[@name='bus'] in arm.xml", trait: 'COMPUTE_STORAGE_BUS_SD', why: 'COMPUTE_STORAGE_BUS_SD is not a trait in os-traits 2.9.0' },
    ]);
  });
});
