import { describe, expect, it } from 'vitest';
import { explainCandidate } from '../../../src/prefilter/explain-candidate.js';
import { imageTraitRequest } from '../../../src/prefilter/image-trait-request.js';

// The providers of placement-and-traits.md §5.2, traits in Placement's unsorted order.
const hosts = {
  a: ['COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_IMAGE_TYPE_RAW', 'COMPUTE_IMAGE_TYPE_ISO', 'COMPUTE_NET_VIF_MODEL_VIRTIO', 'COMPUTE_NET_VIF_MODEL_E1000',
    'COMPUTE_STORAGE_BUS_VIRTIO', 'COMPUTE_STORAGE_BUS_SCSI', 'COMPUTE_STORAGE_BUS_SATA', 'COMPUTE_GRAPHICS_MODEL_QXL', 'COMPUTE_GRAPHICS_MODEL_VIRTIO',
    'HW_ARCH_X86_64', 'COMPUTE_ARCH_X86_64', 'COMPUTE_VIOMMU_MODEL_INTEL', 'CUSTOM_IMAGE_CACHE_FAST'],
  b: ['COMPUTE_IMAGE_TYPE_RAW', 'COMPUTE_NET_VIF_MODEL_E1000', 'COMPUTE_STORAGE_BUS_IDE', 'COMPUTE_GRAPHICS_MODEL_VGA', 'HW_ARCH_X86_64', 'COMPUTE_ARCH_X86_64'],
  c: ['COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_IMAGE_TYPE_RAW', 'COMPUTE_NET_VIF_MODEL_VIRTIO', 'COMPUTE_STORAGE_BUS_VIRTIO', 'COMPUTE_STORAGE_BUS_SCSI',
    'COMPUTE_GRAPHICS_MODEL_VIRTIO', 'HW_ARCH_AARCH64', 'COMPUTE_ARCH_AARCH64', 'COMPUTE_VIOMMU_MODEL_SMMUV3'],
  d: ['COMPUTE_GRAPHICS_MODEL_QXL', 'COMPUTE_NET_VIF_MODEL_VIRTIO', 'COMPUTE_ARCH_AARCH64', 'COMPUTE_STORAGE_BUS_VIRTIO', 'COMPUTE_NET_VIF_MODEL_E1000',
    'HW_ARCH_X86_64', 'COMPUTE_ARCH_X86_64', 'COMPUTE_STATUS_DISABLED', 'COMPUTE_IMAGE_TYPE_QCOW2'],
} as const;

const image = { id: 'i1', disk_format: 'qcow2', hw_video_model: 'qxl', hw_vif_model: 'virtio', hw_disk_bus: 'scsi', hw_architecture: 'x86_64' };
const request = imageTraitRequest(image);

describe('explainCandidate: the nova-style request of §5.2 (Placement returned only a)', () => {
  it.each([
    { host: 'a' as const, satisfied: true, lacks: [], has: [], summary: 'meets all 6 trait constraints' },
    { host: 'b' as const, satisfied: false, lacks: ['COMPUTE_GRAPHICS_MODEL_QXL', 'COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_NET_VIF_MODEL_VIRTIO', 'COMPUTE_STORAGE_BUS_SCSI'], has: [],
      summary: 'lacks required COMPUTE_GRAPHICS_MODEL_QXL (image hw_video_model=qxl (image-metadata prefilter)), COMPUTE_IMAGE_TYPE_QCOW2 (image disk_format=qcow2 (image-type prefilter)), COMPUTE_NET_VIF_MODEL_VIRTIO (image hw_vif_model=virtio (image-metadata prefilter)), COMPUTE_STORAGE_BUS_SCSI (image hw_disk_bus=scsi (image-metadata prefilter))' },
    { host: 'c' as const, satisfied: false, lacks: ['COMPUTE_GRAPHICS_MODEL_QXL', 'HW_ARCH_X86_64'], has: [],
      summary: 'lacks required COMPUTE_GRAPHICS_MODEL_QXL (image hw_video_model=qxl (image-metadata prefilter)), HW_ARCH_X86_64 (image hw_architecture=x86_64 (image-metadata prefilter))' },
    { host: 'd' as const, satisfied: false, lacks: ['COMPUTE_STORAGE_BUS_SCSI'], has: ['COMPUTE_STATUS_DISABLED'],
      summary: 'lacks required COMPUTE_STORAGE_BUS_SCSI (image hw_disk_bus=scsi (image-metadata prefilter)); has forbidden COMPUTE_STATUS_DISABLED (compute_status_filter: disabled computes are never candidates)' },
  ])('host $host', ({ host, satisfied, lacks, has, summary }) => {
    const explanation = explainCandidate(hosts[host], request);
    expect(explanation.satisfied).toBe(satisfied);
    expect(explanation.lacks.map((g) => g.trait)).toEqual(lacks);
    expect(explanation.has.map((g) => g.trait)).toEqual(has);
    expect(explanation.summary).toBe(summary);
  });
});

describe('explainCandidate: groups and bare requests', () => {
  it('names the parameter of each gap; a trait in root_required and required is reported once, as root_required', () => {
    const explanation = explainCandidate(['COMPUTE_ARCH_AARCH64'], {
      root_required: ['COMPUTE_IMAGE_TYPE_QCOW2'], root_forbidden: [], required: ['COMPUTE_IMAGE_TYPE_QCOW2', 'CUSTOM_IMAGE_CACHE_FAST'], forbidden: ['COMPUTE_ARCH_AARCH64'],
    });
    expect(explanation).toEqual({
      satisfied: false,
      lacks: [{ trait: 'COMPUTE_IMAGE_TYPE_QCOW2', parameter: 'root_required', reasons: [] }, { trait: 'CUSTOM_IMAGE_CACHE_FAST', parameter: 'required', reasons: [] }],
      has: [{ trait: 'COMPUTE_ARCH_AARCH64', parameter: 'forbidden', reasons: [] }],
      summary: 'lacks required COMPUTE_IMAGE_TYPE_QCOW2, CUSTOM_IMAGE_CACHE_FAST; has forbidden COMPUTE_ARCH_AARCH64',
    });
  });

  it.each([
    { traits: [], request: { root_required: [], root_forbidden: [] }, summary: 'meets all 0 trait constraints' },
    { traits: ['HW_ARCH_X86_64'], request: { root_required: ['HW_ARCH_X86_64'], root_forbidden: [] }, summary: 'meets all 1 trait constraint' },
    { traits: [], request: { root_required: [], root_forbidden: ['COMPUTE_STATUS_DISABLED'] }, summary: 'meets all 1 trait constraint' },
  ])('satisfied: $summary', ({ traits, request: r, summary }) => {
    expect(explainCandidate(traits, r)).toMatchObject({ satisfied: true, summary });
  });
});
