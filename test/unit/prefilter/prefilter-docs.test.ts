import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { candidateExplanationSchema, explainCandidate } from '../../../src/prefilter/explain-candidate.js';
import { imageTraitRequest } from '../../../src/prefilter/image-trait-request.js';
import { prefilterResultSchema } from '../../../src/prefilter/prefilter-result.js';

// Contract: the JSON documented in docs/prefilter.md is what the code returns, and it parses with the schema.
const doc = readFileSync(new URL('../../../docs/prefilter.md', import.meta.url), 'utf8');
const marked = /<!-- schema: PrefilterResult -->\n```json\n([\s\S]*?)\n```/.exec(doc)?.[1];

describe('docs/prefilter.md', () => {
  it('has a PrefilterResult example that parses with prefilterResultSchema', () => {
    expect(marked).toBeDefined();
    expect(prefilterResultSchema.safeParse(JSON.parse(marked ?? 'null')).success).toBe(true);
  });

  it('the PrefilterResult example is what imageTraitRequest returns for the image it describes', () => {
    const image = { id: '3f1c2a9e-5b7d-4c1e-9a0b-6d2f8e4c1a70', name: 'debian-12-arm', disk_format: 'qcow2', status: 'active',
      hw_architecture: 'aarch64', hw_viommu_model: 'smmuv3', hw_vif_model: 'igb', hw_disk_bus: 'virtio', hypervisor_type: 'qemu' };
    const result = imageTraitRequest(image, { resources: 'DISK_GB:10,MEMORY_MB:2048,VCPU:2', limit: 1000,
      flavorExtraSpecs: { 'trait:STORAGE_DISK_SSD': 'required' } });
    expect(JSON.parse(marked ?? 'null')).toEqual(JSON.parse(JSON.stringify(result)));
  });
});

describe('docs/prefilter.md: the explanation example', () => {
  const explained = /<!-- schema: CandidateExplanation -->\n```json\n([\s\S]*?)\n```/.exec(doc)?.[1];

  it('parses with candidateExplanationSchema and is what explainCandidate returns for the host it describes', () => {
    expect(explained).toBeDefined();
    const example: unknown = JSON.parse(explained ?? 'null');
    expect(candidateExplanationSchema.safeParse(example).success).toBe(true);
    const request = imageTraitRequest({ id: 'x', disk_format: 'qcow2', hw_architecture: 'aarch64', hw_viommu_model: 'smmuv3', hw_disk_bus: 'virtio' },
      { flavorExtraSpecs: { 'trait:STORAGE_DISK_SSD': 'required' } });
    const host = ['COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_IMAGE_TYPE_RAW', 'COMPUTE_STORAGE_BUS_VIRTIO', 'HW_ARCH_AARCH64', 'COMPUTE_VIOMMU_MODEL_SMMUV3', 'COMPUTE_STATUS_DISABLED'];
    expect(example).toEqual(explainCandidate(host, request));
  });
});
