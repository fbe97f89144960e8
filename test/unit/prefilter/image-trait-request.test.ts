import { describe, expect, it } from 'vitest';
import { imageTraitRequest, PREFILTER_DEFAULTS } from '../../../src/prefilter/image-trait-request.js';
import { prefilterResultSchema } from '../../../src/prefilter/prefilter-result.js';
import { standardTraitCatalogue, traitCatalogueFromNames } from '../../../src/traits/trait-catalogue.js';

// An active image as Glance 25.1.0 returns it (glance-multistore.md §4); tests add properties as top-level keys.
const glanceImage = {
  name: 'img50', disk_format: 'raw', container_format: 'bare', visibility: 'shared', size: 52428800, virtual_size: 52428800,
  status: 'active', checksum: 'd9a1e5e8b755591e5a5bfa04504319df', protected: false, min_ram: 0, min_disk: 0,
  owner: '11111111111111111111111111111111', os_hidden: false, os_hash_algo: 'sha512', os_hash_value: 'd0dd3eb8',
  id: '918dbaef-9ff3-4e50-8927-c4a15ff30f07',
  locations: [{ url: 'file:///srv/glance/stores/central/918dbaef-9ff3-4e50-8927-c4a15ff30f07', metadata: { store: 'central' } }],
  direct_url: 'file:///srv/glance/stores/central/918dbaef-9ff3-4e50-8927-c4a15ff30f07',
  tags: [], self: '/v2/images/918dbaef-9ff3-4e50-8927-c4a15ff30f07', file: '/v2/images/918dbaef-9ff3-4e50-8927-c4a15ff30f07/file',
  schema: '/v2/schemas/image', stores: 'central',
};
const queued = { id: '5b0c7f51-0a53-4d55-9a3e-3f1e9a7c2d10', name: 'new', status: 'queued', disk_format: null, container_format: null, tags: [] };

describe('imageTraitRequest: the nova-style queries of placement-and-traits.md §5.2', () => {
  const nova = { microversion: '1.36', resources: 'DISK_GB:1,MEMORY_MB:512,VCPU:1', limit: 1000 } as const;
  it.each([
    { properties: { disk_format: 'qcow2', hw_video_model: 'qxl', hw_vif_model: 'virtio', hw_disk_bus: 'scsi', hw_architecture: 'x86_64' }, host: 'a',
      query: 'limit=1000&resources=DISK_GB:1,MEMORY_MB:512,VCPU:1&root_required=COMPUTE_GRAPHICS_MODEL_QXL,COMPUTE_IMAGE_TYPE_QCOW2,COMPUTE_NET_VIF_MODEL_VIRTIO,COMPUTE_STORAGE_BUS_SCSI,HW_ARCH_X86_64,!COMPUTE_STATUS_DISABLED' },
    { properties: { disk_format: 'qcow2', hw_emulation_architecture: 'aarch64' }, host: 'c',
      query: 'limit=1000&resources=DISK_GB:1,MEMORY_MB:512,VCPU:1&root_required=COMPUTE_ARCH_AARCH64,COMPUTE_IMAGE_TYPE_QCOW2,!COMPUTE_STATUS_DISABLED' },
    { properties: { disk_format: 'raw', hw_vif_model: 'e1000', hw_disk_bus: 'ide' }, host: 'b',
      query: 'limit=1000&resources=DISK_GB:1,MEMORY_MB:512,VCPU:1&root_required=COMPUTE_IMAGE_TYPE_RAW,COMPUTE_NET_VIF_MODEL_E1000,COMPUTE_STORAGE_BUS_IDE,!COMPUTE_STATUS_DISABLED' },
  ])('host $host: $query', ({ properties, query }) => {
    expect(imageTraitRequest({ ...glanceImage, ...properties }, nova).query).toBe(query);
  });

  it('hw_viommu_model=smmuv3 gives the name Placement accepts (the row nova cannot produce)', () => {
    const result = imageTraitRequest({ ...glanceImage, hw_viommu_model: 'smmuv3', hw_architecture: 'aarch64' },
      { ...nova, limit: undefined, imageTypeFilter: false, forbidDisabled: false });
    expect(result.query).toBe('resources=DISK_GB:1,MEMORY_MB:512,VCPU:1&root_required=COMPUTE_VIOMMU_MODEL_SMMUV3,HW_ARCH_AARCH64');
  });
});

describe('imageTraitRequest: the result', () => {
  it('a full result for a real Glance image, valid against the JSON contract', () => {
    const result = imageTraitRequest({ ...glanceImage, hw_disk_bus: 'scsi', architecture: 'amd64', 'trait:CUSTOM_IMAGE_CACHE_FAST': 'required' },
      { catalogue: traitCatalogueFromNames([...standardTraitCatalogue().withPrefix(''), 'CUSTOM_IMAGE_CACHE_FAST']), flavorExtraSpecs: { 'trait:COMPUTE_ARCH_AARCH64': 'forbidden', 'hw:cpu_policy': 'dedicated' } });
    expect(result).toEqual({
      root_required: ['COMPUTE_IMAGE_TYPE_RAW', 'COMPUTE_STORAGE_BUS_SCSI', 'HW_ARCH_X86_64'],
      root_forbidden: ['COMPUTE_STATUS_DISABLED'],
      required: ['CUSTOM_IMAGE_CACHE_FAST'],
      forbidden: ['COMPUTE_ARCH_AARCH64'],
      query: 'required=CUSTOM_IMAGE_CACHE_FAST,!COMPUTE_ARCH_AARCH64&root_required=COMPUTE_IMAGE_TYPE_RAW,COMPUTE_STORAGE_BUS_SCSI,HW_ARCH_X86_64,!COMPUTE_STATUS_DISABLED',
      microversion: '1.36',
      reasons: {
        COMPUTE_IMAGE_TYPE_RAW: ['image disk_format=raw (image-type prefilter)'],
        COMPUTE_STORAGE_BUS_SCSI: ['image hw_disk_bus=scsi (image-metadata prefilter)'],
        HW_ARCH_X86_64: ['image architecture=amd64 (image-metadata prefilter; architecture is the legacy name of hw_architecture; nova reads it as x86_64)'],
        COMPUTE_STATUS_DISABLED: ['compute_status_filter: disabled computes are never candidates'],
        CUSTOM_IMAGE_CACHE_FAST: ['image property trait:CUSTOM_IMAGE_CACHE_FAST=required'],
        COMPUTE_ARCH_AARCH64: ['flavor extra spec trait:COMPUTE_ARCH_AARCH64=forbidden'],
      },
      unmapped: [],
      filters: { image_type: 'applied', image_metadata: 'applied', compute_status: 'applied' },
      notes: [],
    });
    expect(prefilterResultSchema.parse(JSON.parse(JSON.stringify(result)))).toEqual(result);
  });

  it('defaults: both image filters on, disabled hosts forbidden, not strict, nova\'s microversion', () => {
    expect(PREFILTER_DEFAULTS).toEqual({ imageTypeFilter: true, imageMetadataFilter: true, forbidDisabled: true, bootFromVolume: false, strict: false, microversion: '1.36' });
  });

  it.each([
    { options: { imageTypeFilter: false }, rootRequired: ['COMPUTE_STORAGE_BUS_VIRTIO'], filters: { image_type: 'disabled', image_metadata: 'applied', compute_status: 'applied' } },
    { options: { bootFromVolume: true }, rootRequired: ['COMPUTE_STORAGE_BUS_VIRTIO'], filters: { image_type: 'skipped', image_metadata: 'applied', compute_status: 'applied' } },
    { options: { bootFromVolume: true, imageTypeFilter: false }, rootRequired: ['COMPUTE_STORAGE_BUS_VIRTIO'], filters: { image_type: 'disabled', image_metadata: 'applied', compute_status: 'applied' } },
    { options: { imageMetadataFilter: false }, rootRequired: ['COMPUTE_IMAGE_TYPE_RAW'], filters: { image_type: 'applied', image_metadata: 'disabled', compute_status: 'applied' } },
    { options: { imageTypeFilter: false, imageMetadataFilter: false, forbidDisabled: false }, rootRequired: [], filters: { image_type: 'disabled', image_metadata: 'disabled', compute_status: 'disabled' } },
  ])('filters $options', ({ options, rootRequired, filters }) => {
    const result = imageTraitRequest({ ...glanceImage, hw_disk_bus: 'virtio' }, options);
    expect(result.root_required).toEqual(rootRequired);
    expect(result.root_forbidden).toEqual(filters.compute_status === 'applied' ? ['COMPUTE_STATUS_DISABLED'] : []);
    expect(result.filters).toEqual(filters);
  });

  it('an image with no disk_format yet is reported, the rest still applies', () => {
    const result = imageTraitRequest({ ...queued, hw_video_model: 'virtio' });
    expect(result.root_required).toEqual(['COMPUTE_GRAPHICS_MODEL_VIRTIO']);
    expect(result.unmapped).toEqual([{ property: 'disk_format', value: '', kind: 'invalid-value',
      reason: 'the image has no disk_format (no data uploaded yet), so the image type cannot be required' }]);
  });

  it('a disk_format with no trait is reported', () => {
    expect(imageTraitRequest({ ...glanceImage, disk_format: 'img' }).unmapped).toEqual([{ property: 'disk_format', value: 'img', kind: 'unknown-trait',
      trait: 'COMPUTE_IMAGE_TYPE_IMG', reason: 'COMPUTE_IMAGE_TYPE_IMG is not in os-traits 2.9.0' }]);
  });

  it('the same trait from two sources is listed once with both reasons', () => {
    const result = imageTraitRequest({ ...glanceImage, hw_disk_bus: 'ide', hw_cdrom_bus: 'ide' });
    expect(result.root_required).toEqual(['COMPUTE_IMAGE_TYPE_RAW', 'COMPUTE_STORAGE_BUS_IDE']);
    expect(result.reasons.COMPUTE_STORAGE_BUS_IDE).toEqual(['image hw_cdrom_bus=ide (image-metadata prefilter)', 'image hw_disk_bus=ide (image-metadata prefilter)']);
  });

  it('with resources and a microversion below 1.35 the query uses required and a note says what changes', () => {
    const result = imageTraitRequest({ ...glanceImage, hw_architecture: 'x86_64' }, { microversion: '1.34', resources: 'VCPU:1', limit: 10 });
    expect(result.query).toBe('limit=10&required=COMPUTE_IMAGE_TYPE_RAW,HW_ARCH_X86_64,!COMPUTE_STATUS_DISABLED&resources=VCPU:1');
    expect(result.notes).toEqual(['microversion 1.34 has no root_required (1.35): the root traits are sent in required, which a child provider supplying the resources can satisfy instead of the compute node']);
  });

  it('below 1.22 "never a disabled host" cannot be expressed', () => {
    expect(() => imageTraitRequest(glanceImage, { microversion: '1.21' })).toThrow(expect.objectContaining({
      code: 'FERRY_INVALID_OPTION', message: 'Placement microversion 1.21 cannot express forbidden traits (COMPUTE_STATUS_DISABLED): that needs 1.22 or later' }));
  });
});

describe('imageTraitRequest: unmappable properties, strict mode, explicit traits, conflicts', () => {
  const messy = { ...glanceImage, hw_disk_bus: 'scsi', hw_vif_model: 'igb', hw_video_model: 'ramfb', hypervisor_type: 'qemu' };

  it('not strict: keeps what maps, lists the rest', () => {
    const result = imageTraitRequest(messy);
    expect(result.root_required).toEqual(['COMPUTE_IMAGE_TYPE_RAW', 'COMPUTE_STORAGE_BUS_SCSI']);
    expect(result.unmapped.map((u) => [u.property, u.kind])).toEqual([
      ['hw_video_model', 'invalid-value'], ['hw_vif_model', 'unknown-trait'], ['hypervisor_type', 'not-expressible'],
    ]);
  });

  it('strict: FERRY_UNKNOWN_TRAIT naming each property, not-expressible ones excepted', () => {
    expect(() => imageTraitRequest(messy, { strict: true })).toThrow(expect.objectContaining({
      code: 'FERRY_UNKNOWN_TRAIT',
      message: "image 918dbaef-9ff3-4e50-8927-c4a15ff30f07: hw_video_model=ramfb: 'ramfb' is not one of nova's VideoModel values (cirrus, qxl, vga, vmvga, xen, virtio, gop, none, bochs); hw_vif_model=igb: COMPUTE_NET_VIF_MODEL_IGB is not in os-traits 2.9.0 (first in os-traits 3.2.0)",
    }));
    expect(imageTraitRequest({ ...glanceImage, hypervisor_type: 'qemu' }, { strict: true }).unmapped).toHaveLength(1);
  });

  it('an unknown trait: name is an error even when not strict (Placement would answer 400)', () => {
    expect(() => imageTraitRequest(glanceImage, { flavorExtraSpecs: { 'trait:CUSTOM_GPU_FAST': 'required' } })).toThrow(expect.objectContaining({
      code: 'FERRY_UNKNOWN_TRAIT',
      message: 'flavor extra spec trait:CUSTOM_GPU_FAST=required: CUSTOM_GPU_FAST is not in os-traits 2.9.0; Placement would reject the whole query',
      details: { traits: ['CUSTOM_GPU_FAST'], catalogueVersion: '2.9.0' },
    }));
  });

  it.each<{ specs: Record<string, string>; kind: string; reason: string }>([
    { specs: { 'trait:HW_CPU_X86_AVX2': 'preferred' }, kind: 'invalid-value', reason: "'preferred' is neither required nor forbidden; nova ignores this flavor extra spec" },
    { specs: { 'trait1:HW_CPU_X86_AVX2': 'required' }, kind: 'not-expressible', reason: 'flavor extra spec trait1:HW_CPU_X86_AVX2 belongs to a granular request group, which ferry does not build; hosts are checked without it' },
    { specs: { 'trait_GPU:HW_GPU_API_VULKAN': 'required' }, kind: 'not-expressible', reason: 'flavor extra spec trait_GPU:HW_GPU_API_VULKAN belongs to a granular request group, which ferry does not build; hosts are checked without it' },
  ])('flavor $specs is listed as $kind', ({ specs, kind, reason }) => {
    const result = imageTraitRequest(glanceImage, { flavorExtraSpecs: specs });
    expect(result.unmapped).toMatchObject([{ kind, reason }]);
    expect(result.required).toEqual([]);
  });

  it.each<{ image: object; specs: Record<string, string>; message: string }>([
    { image: { ...glanceImage, hw_architecture: 'x86_64' }, specs: { 'trait:HW_ARCH_X86_64': 'forbidden' },
      message: 'the request both requires and forbids HW_ARCH_X86_64 (image hw_architecture=x86_64 (image-metadata prefilter); flavor extra spec trait:HW_ARCH_X86_64=forbidden), so no host can match' },
    { image: glanceImage, specs: { 'trait:COMPUTE_STATUS_DISABLED': 'required' },
      message: 'the request both requires and forbids COMPUTE_STATUS_DISABLED (compute_status_filter: disabled computes are never candidates; flavor extra spec trait:COMPUTE_STATUS_DISABLED=required), so no host can match' },
    { image: { ...glanceImage, 'trait:STORAGE_DISK_SSD': 'required' }, specs: { 'trait:STORAGE_DISK_SSD': 'forbidden' },
      message: 'the request both requires and forbids STORAGE_DISK_SSD (image property trait:STORAGE_DISK_SSD=required; flavor extra spec trait:STORAGE_DISK_SSD=forbidden), so no host can match' },
  ])('FERRY_TRAIT_CONFLICT for flavor $specs', ({ image, specs, message }) => {
    expect(() => imageTraitRequest(image, { flavorExtraSpecs: specs })).toThrow(expect.objectContaining({ code: 'FERRY_TRAIT_CONFLICT', message }));
  });

  it.each([null, 'img50', [], { id: 42 }, { disk_format: 7 }])('an input that is not an image object (%j) is FERRY_INVALID_OPTION', (image) => {
    expect(() => imageTraitRequest(image)).toThrow(expect.objectContaining({ code: 'FERRY_INVALID_OPTION' }));
  });
});
