import { describe, expect, it } from 'vitest';
import { buildAllocationCandidatesQuery, parseMicroversion } from '../../../src/prefilter/build-allocation-candidates-query.js';
import type { TraitRequest } from '../../../src/prefilter/prefilter-result.js';
import { standardTraitCatalogue } from '../../../src/traits/trait-catalogue.js';

const R = 'VCPU:1,MEMORY_MB:512';
const none: TraitRequest = { root_required: [], root_forbidden: [] };

// Queries observed against Placement 8.0.0 (placement-and-traits.md §5.2), rebuilt from a trait request.
describe('buildAllocationCandidatesQuery: the observed queries', () => {
  it.each([
    { microversion: '1.39', request: none, resources: R, query: `resources=${R}` },
    { microversion: '1.39', request: { ...none, required: ['COMPUTE_NET_VIF_MODEL_VIRTIO', 'COMPUTE_IMAGE_TYPE_QCOW2'] }, resources: R,
      query: `required=COMPUTE_IMAGE_TYPE_QCOW2,COMPUTE_NET_VIF_MODEL_VIRTIO&resources=${R}` },
    { microversion: '1.39', request: { ...none, required: ['COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_NET_VIF_MODEL_VIRTIO'], forbidden: ['COMPUTE_STATUS_DISABLED'] }, resources: R,
      query: `required=COMPUTE_IMAGE_TYPE_QCOW2,COMPUTE_NET_VIF_MODEL_VIRTIO,!COMPUTE_STATUS_DISABLED&resources=${R}` },
    { microversion: '1.39', request: { root_required: [], root_forbidden: ['COMPUTE_STATUS_DISABLED'], required: ['COMPUTE_IMAGE_TYPE_RAW'] }, resources: R,
      query: `required=COMPUTE_IMAGE_TYPE_RAW&resources=${R}&root_required=!COMPUTE_STATUS_DISABLED` },
    { microversion: '1.22', request: { root_required: [], root_forbidden: ['COMPUTE_STATUS_DISABLED'] }, resources: R,
      query: `required=!COMPUTE_STATUS_DISABLED&resources=${R}` },
    { microversion: '1.38', request: { ...none, required: ['COMPUTE_IMAGE_TYPE_QCOW2'], forbidden: ['COMPUTE_ARCH_AARCH64'] }, resources: R,
      query: `required=COMPUTE_IMAGE_TYPE_QCOW2,!COMPUTE_ARCH_AARCH64&resources=${R}` },
    { microversion: '1.34', request: { root_required: ['COMPUTE_IMAGE_TYPE_QCOW2'], root_forbidden: ['COMPUTE_ARCH_AARCH64'] }, resources: R,
      query: `required=COMPUTE_IMAGE_TYPE_QCOW2,!COMPUTE_ARCH_AARCH64&resources=${R}` },
    { microversion: '1.39', request: { ...none, required: ['HW_ARCH_AARCH64'] }, resources: R, query: `required=HW_ARCH_AARCH64&resources=${R}` },
    { microversion: '1.39', request: { ...none, required: ['COMPUTE_IMAGE_TYPE_QCOW2'] }, resources: R, limit: 2,
      query: `limit=2&required=COMPUTE_IMAGE_TYPE_QCOW2&resources=${R}` },
    { microversion: '1.36', resources: 'DISK_GB:1,MEMORY_MB:512,VCPU:1', limit: 1000,
      request: { root_required: ['HW_ARCH_X86_64', 'COMPUTE_STORAGE_BUS_SCSI', 'COMPUTE_NET_VIF_MODEL_VIRTIO', 'COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_GRAPHICS_MODEL_QXL'], root_forbidden: ['COMPUTE_STATUS_DISABLED'] },
      query: 'limit=1000&resources=DISK_GB:1,MEMORY_MB:512,VCPU:1&root_required=COMPUTE_GRAPHICS_MODEL_QXL,COMPUTE_IMAGE_TYPE_QCOW2,COMPUTE_NET_VIF_MODEL_VIRTIO,COMPUTE_STORAGE_BUS_SCSI,HW_ARCH_X86_64,!COMPUTE_STATUS_DISABLED' },
    { microversion: '1.36', resources: 'VCPU:1',
      request: { root_required: ['COMPUTE_IMAGE_TYPE_QCOW2'], root_forbidden: [], required: ['COMPUTE_IMAGE_TYPE_QCOW2'] },
      query: 'required=COMPUTE_IMAGE_TYPE_QCOW2&resources=VCPU:1&root_required=COMPUTE_IMAGE_TYPE_QCOW2' },
    { microversion: '1.39', resources: 'CUSTOM_IMG_SLOT:1', request: { root_required: ['COMPUTE_IMAGE_TYPE_RAW'], root_forbidden: [] },
      query: 'resources=CUSTOM_IMG_SLOT:1&root_required=COMPUTE_IMAGE_TYPE_RAW' },
  ])('at $microversion → $query', ({ microversion, request, resources, limit, query }) => {
    expect(buildAllocationCandidatesQuery(request, { microversion, resources, limit })).toBe(query);
  });
});

describe('buildAllocationCandidatesQuery: per microversion', () => {
  const request: TraitRequest = {
    root_required: ['COMPUTE_IMAGE_TYPE_QCOW2', 'HW_ARCH_X86_64'], root_forbidden: ['COMPUTE_STATUS_DISABLED'],
    required: ['CUSTOM_IMAGE_CACHE_FAST'], forbidden: ['COMPUTE_ARCH_AARCH64'],
  };
  it.each([
    { microversion: '1.39', query: `required=CUSTOM_IMAGE_CACHE_FAST,!COMPUTE_ARCH_AARCH64&resources=${R}&root_required=COMPUTE_IMAGE_TYPE_QCOW2,HW_ARCH_X86_64,!COMPUTE_STATUS_DISABLED` },
    { microversion: '1.35', query: `required=CUSTOM_IMAGE_CACHE_FAST,!COMPUTE_ARCH_AARCH64&resources=${R}&root_required=COMPUTE_IMAGE_TYPE_QCOW2,HW_ARCH_X86_64,!COMPUTE_STATUS_DISABLED` },
    // before root_required everything goes into one required (a repeated one keeps only the last value before 1.39)
    { microversion: '1.34', query: `required=COMPUTE_IMAGE_TYPE_QCOW2,CUSTOM_IMAGE_CACHE_FAST,HW_ARCH_X86_64,!COMPUTE_ARCH_AARCH64,!COMPUTE_STATUS_DISABLED&resources=${R}` },
    { microversion: '1.22', query: `required=COMPUTE_IMAGE_TYPE_QCOW2,CUSTOM_IMAGE_CACHE_FAST,HW_ARCH_X86_64,!COMPUTE_ARCH_AARCH64,!COMPUTE_STATUS_DISABLED&resources=${R}` },
  ])('at $microversion', ({ microversion, query }) => {
    expect(buildAllocationCandidatesQuery(request, { microversion, resources: R })).toBe(query);
  });

  it.each([
    { microversion: '1.21', request, message: 'Placement microversion 1.21 cannot express forbidden traits (COMPUTE_STATUS_DISABLED, COMPUTE_ARCH_AARCH64): that needs 1.22 or later' },
    { microversion: '1.21', request: { root_required: [], root_forbidden: ['COMPUTE_STATUS_DISABLED'] }, message: 'Placement microversion 1.21 cannot express forbidden traits (COMPUTE_STATUS_DISABLED): that needs 1.22 or later' },
    { microversion: '1.16', request: { root_required: ['HW_ARCH_X86_64'], root_forbidden: [] }, message: 'Placement microversion 1.16 cannot express required traits: that needs 1.17 or later' },
    { microversion: '1.9', request: none, message: 'Placement microversion 1.9 cannot express GET /allocation_candidates: that needs 1.10 or later' },
    { microversion: '2.1', request: none, message: "the Placement microversion must be like 1.36, got '2.1'" },
    { microversion: 'latest', request: none, message: "the Placement microversion must be like 1.36, got 'latest'" },
    { microversion: '1.036', request: none, message: "the Placement microversion must be like 1.36, got '1.036'" },
  ])('at $microversion: $message', ({ microversion, request: r, message }) => {
    expect(() => buildAllocationCandidatesQuery(r, { microversion, resources: R })).toThrow(expect.objectContaining({ code: 'FERRY_INVALID_OPTION', message }));
  });

  it.each([
    { limit: 1, microversion: '1.15', message: 'Placement microversion 1.15 cannot express limit: that needs 1.16 or later' },
    { limit: 0, microversion: '1.39', message: 'limit must be an integer ≥ 1, got 0' },
    { limit: 2.5, microversion: '1.39', message: 'limit must be an integer ≥ 1, got 2.5' },
  ])('limit $limit at $microversion: $message', ({ limit, microversion, message }) => {
    expect(() => buildAllocationCandidatesQuery(none, { microversion, resources: R, limit })).toThrow(expect.objectContaining({ code: 'FERRY_INVALID_OPTION', message }));
  });

  it.each(['', 'VCPU', 'vcpu:1', 'VCPU:0', 'VCPU:1, MEMORY_MB:512', 'VCPU:1,'])('resources %j is rejected', (resources) => {
    expect(() => buildAllocationCandidatesQuery(none, { microversion: '1.39', resources })).toThrow(expect.objectContaining({ code: 'FERRY_INVALID_OPTION' }));
  });

  it('parseMicroversion reads the minor version numerically (1.4 < 1.22)', () => {
    expect([parseMicroversion('1.4'), parseMicroversion('1.22'), parseMicroversion(' 1.39 ')]).toEqual([4, 22, 39]);
  });
});

describe('buildAllocationCandidatesQuery: names and conflicts are checked before any request', () => {
  it('an unknown name fails with the release that has it', () => {
    expect(() => buildAllocationCandidatesQuery({ root_required: ['COMPUTE_NET_VIF_MODEL_IGB', 'COMPUTE_VIOMMU_INTEL'], root_forbidden: [] },
      { microversion: '1.36', resources: R, catalogue: standardTraitCatalogue() })).toThrow(expect.objectContaining({
      code: 'FERRY_UNKNOWN_TRAIT',
      message: 'COMPUTE_NET_VIF_MODEL_IGB is not in os-traits 2.9.0 (first in os-traits 3.2.0); COMPUTE_VIOMMU_INTEL is not in os-traits 2.9.0; Placement would reject the whole query',
      details: { traits: ['COMPUTE_NET_VIF_MODEL_IGB', 'COMPUTE_VIOMMU_INTEL'] },
    }));
  });

  it('a malformed name fails even without a catalogue', () => {
    expect(() => buildAllocationCandidatesQuery({ root_required: ['compute_image_type_qcow2'], root_forbidden: [] }, { microversion: '1.36', resources: R }))
      .toThrow(expect.objectContaining({ code: 'FERRY_UNKNOWN_TRAIT', message: "'compute_image_type_qcow2' is not a trait name; Placement would reject the whole query" }));
  });

  it.each([
    { request: { root_required: ['HW_ARCH_X86_64'], root_forbidden: ['HW_ARCH_X86_64'] } },
    { request: { root_required: [], root_forbidden: ['COMPUTE_STATUS_DISABLED'], required: ['COMPUTE_STATUS_DISABLED'] } },
    { request: { root_required: ['HW_ARCH_X86_64'], root_forbidden: [], forbidden: ['HW_ARCH_X86_64'] } },
  ])('a trait required and forbidden is FERRY_TRAIT_CONFLICT: $request', ({ request }) => {
    expect(() => buildAllocationCandidatesQuery(request, { microversion: '1.39', resources: R })).toThrow(expect.objectContaining({ code: 'FERRY_TRAIT_CONFLICT' }));
  });
});
