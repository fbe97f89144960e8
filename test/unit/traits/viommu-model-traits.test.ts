import { describe, expect, it } from 'vitest';
import type { DomainCapabilities } from '../../../src/traits/parse-domain-capabilities.js';
import { standardTraitCatalogue } from '../../../src/traits/trait-catalogue.js';
import { viommuModelTraits } from '../../../src/traits/viommu-model-traits.js';
import { loadDomcaps } from './domcaps-fixtures.js';

const catalogue = standardTraitCatalogue();
const x86 = loadDomcaps('domcaps-x86_64-kvm-q35.xml');
const arm: DomainCapabilities = { ...x86, source: 'domcaps-aarch64-qemu-virt.xml', arch: 'aarch64', domain: 'qemu', machine: 'virt-7.2' };
const ppc: DomainCapabilities = { ...x86, source: 'domcaps-ppc64le.xml', arch: 'ppc64le' };
const m = (models: string): string[] => models.split(' ').map((x) => `COMPUTE_VIOMMU_MODEL_${x}`);

// nova §9.4: auto always; intel if x86_64 among the arches; smmuv3 if aarch64; virtio if libvirt ≥ 8.3.0.
const cases = [
  { name: 'x86_64, libvirt 9.0.0', domcaps: [x86], libvirt: [9, 0, 0], expected: 'AUTO INTEL VIRTIO' },
  { name: 'x86_64, libvirt 8.2.0', domcaps: [x86], libvirt: [8, 2, 0], expected: 'AUTO INTEL' },
  { name: 'x86_64, libvirt 8.3.0', domcaps: [x86], libvirt: [8, 3, 0], expected: 'AUTO INTEL VIRTIO' },
  { name: 'x86_64, libvirt unknown', domcaps: [x86], libvirt: undefined, expected: 'AUTO INTEL' },
  { name: 'aarch64 only', domcaps: [arm], libvirt: [9, 0, 0], expected: 'AUTO SMMUV3 VIRTIO' },
  { name: 'x86_64 + aarch64', domcaps: [x86, arm], libvirt: [9, 0, 0], expected: 'AUTO INTEL SMMUV3 VIRTIO' },
  { name: 'ppc64le only', domcaps: [ppc], libvirt: [9, 0, 0], expected: 'AUTO VIRTIO' },
  { name: 'no domcaps, no version', domcaps: [], libvirt: undefined, expected: 'AUTO' },
];

describe('viommuModelTraits', () => {
  it.each(cases)('viommuModelTraits: $name → $expected', ({ domcaps, libvirt, expected }) => {
    expect(viommuModelTraits(domcaps, libvirt, catalogue).traits).toEqual(m(expected));
  });

  const decided = [
    { name: 'domcaps and version', domcaps: [x86], libvirt: [9, 0, 0], expected: 'AUTO INTEL SMMUV3 VIRTIO' },
    { name: 'version unknown: virtio left alone', domcaps: [x86], libvirt: undefined, expected: 'AUTO INTEL SMMUV3' },
    { name: 'no domcaps: intel and smmuv3 left alone', domcaps: [], libvirt: [9, 0, 0], expected: 'AUTO VIRTIO' },
  ];
  it.each(decided)('viommuModelTraits: decides $expected when $name', ({ domcaps, libvirt, expected }) => {
    expect(viommuModelTraits(domcaps, libvirt, catalogue).decidedFamilies).toEqual(m(expected));
  });

  it('viommuModelTraits: reasons name the arch source and the libvirt version', () => {
    const result = viommuModelTraits([x86, arm], [9, 0, 0], catalogue);
    expect(result.reasons).toEqual({
      COMPUTE_VIOMMU_MODEL_AUTO: 'always: libvirt picks the model for the machine type',
      COMPUTE_VIOMMU_MODEL_INTEL: "arch value 'x86_64' in domcaps-x86_64-kvm-q35.xml",
      COMPUTE_VIOMMU_MODEL_SMMUV3: "arch value 'aarch64' in domcaps-aarch64-qemu-virt.xml",
      COMPUTE_VIOMMU_MODEL_VIRTIO: 'libvirt 9.0.0 ≥ 8.3.0',
    });
  });
});
