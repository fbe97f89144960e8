import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { prefilterJsonSchema } from '../../../src/contract/prefilter-document.js';
import { GLANCE_ROOT, loadExchange, replay } from '../../helpers/fixtures.js';
import { runFerry } from '../../helpers/run-ferry.js';
import { at, BASE, placementRoot } from '../placement/placement-nock.js';
import { allTraits, contentFile, imageFile, x86Qcow2Image } from '../prefilter/prefilter-placement.js';

const ARM_IGB = imageFile(x86Qcow2Image({ hw_architecture: 'aarch64', hw_disk_bus: 'virtio', hw_vif_model: 'igb',
  hw_viommu_model: 'smmuv3', hypervisor_type: 'qemu' }), 'arm-igb.json');
const X86 = imageFile(x86Qcow2Image(), 'x86.json');

function novaConf(scheduler: string): string {
  return contentFile(`[scheduler]\n${scheduler}\n`, 'nova.conf');
}

async function prefilter(args: readonly string[]): Promise<ReturnType<typeof prefilterJsonSchema.parse>> {
  const run = await runFerry(['prefilter', ...args, '--json']);
  expect(run.code, run.stdout + run.stderr).toBe(0);
  return prefilterJsonSchema.parse(JSON.parse(run.stdout));
}

describe('ferry prefilter --image FILE (no cloud)', () => {
  it('ferry prefilter: Glance\'s body, `openstack image show -f json` and a partial document give the same request', async () => {
    const partial = contentFile(JSON.stringify({ disk_format: 'qcow2', hw_disk_bus: 'scsi', hw_vif_model: 'e1000',
      hw_video_model: 'qxl', hw_architecture: 'x86_64' }), 'partial.json');
    const [glance, osc, hand] = await Promise.all(['fixtures/images/glance-image-show.json', 'fixtures/images/openstack-image-show.json', partial]
      .map((file) => prefilter(['--image', file])));
    expect(glance?.root_required).toEqual(expect.arrayContaining(['COMPUTE_STORAGE_BUS_SCSI', 'COMPUTE_NET_VIF_MODEL_E1000']));
    const request = (json: typeof glance) => ({ required: json?.root_required, forbidden: json?.root_forbidden, query: json?.query, unmapped: json?.unmapped });
    expect(request(osc)).toEqual(request(glance));
    expect(request(hand)).toEqual(request(glance));
  });

  it('ferry prefilter --json: sorted root_required/root_forbidden, the query, reasons, unmapped; parses with the schema', async () => {
    const json = await prefilter(['--image', ARM_IGB, '--flavor-extra-spec', 'trait:STORAGE_DISK_SSD=required',
      '--resources', 'DISK_GB:10,MEMORY_MB:2048,VCPU:2', '--limit', '1000']);
    expect(json).toMatchObject({
      root_required: ['COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_STORAGE_BUS_VIRTIO', 'COMPUTE_VIOMMU_MODEL_SMMUV3', 'HW_ARCH_AARCH64'],
      root_forbidden: ['COMPUTE_STATUS_DISABLED'],
      required: ['STORAGE_DISK_SSD'],
      query: 'limit=1000&required=STORAGE_DISK_SSD&resources=DISK_GB:10,MEMORY_MB:2048,VCPU:2&root_required=COMPUTE_IMAGE_TYPE_QCOW2,' +
        'COMPUTE_STORAGE_BUS_VIRTIO,COMPUTE_VIOMMU_MODEL_SMMUV3,HW_ARCH_AARCH64,!COMPUTE_STATUS_DISABLED',
      microversion: '1.36', image: '8554f597-4961-4557-9ad1-1fbfef5ebc46', image_name: 'ferry-fixture-site-a', catalogue_version: '2.9.0',
      switches: { image_type: { on: true, source: 'ferry default' }, image_metadata: { on: true, source: 'ferry default' } },
    });
    expect(json.unmapped.map((u) => [u.property, u.kind])).toEqual([['hw_vif_model', 'unknown-trait'], ['hypervisor_type', 'not-expressible']]);
    expect(json.reasons.STORAGE_DISK_SSD).toEqual(['flavor extra spec trait:STORAGE_DISK_SSD=required']);
  });

  it.each([
    { title: 'no nova.conf, no flag → both on (ferry default)', args: [], type: [true, 'ferry default'], meta: [true, 'ferry default'] },
    { title: 'nova.conf sets both false → both off, from nova.conf', conf: 'query_placement_for_image_type_support = false\nimage_metadata_prefilter = False',
      args: [], type: [false, /^nova\.conf .*\[scheduler\] query_placement_for_image_type_support$/], meta: [false, /\[scheduler\] image_metadata_prefilter$/] },
    { title: 'nova.conf sets one true → it stays on from nova.conf, the other is ferry\'s default', conf: 'image_metadata_prefilter = yes',
      args: [], type: [true, 'ferry default'], meta: [true, /\[scheduler\] image_metadata_prefilter$/] },
    { title: 'a flag wins over nova.conf', conf: 'query_placement_for_image_type_support = false',
      args: ['--image-type-filter', 'on', '--image-metadata-filter', 'false'], type: [true, '--image-type-filter'], meta: [false, '--image-metadata-filter'] },
  ])('ferry prefilter switches: $title', async ({ conf, args, type, meta }) => {
    const json = await prefilter(['--image', X86, ...(conf === undefined ? [] : ['--nova-conf', novaConf(conf)]), ...args]);
    expect(json.switches.image_type).toEqual({ on: type[0], source: expect.stringMatching(type[1] as string | RegExp) as unknown });
    expect(json.switches.image_metadata).toEqual({ on: meta[0], source: expect.stringMatching(meta[1] as string | RegExp) as unknown });
    expect(json.filters.image_type).toBe(type[0] === true ? 'applied' : 'disabled');
    expect(json.root_required.includes('HW_ARCH_X86_64')).toBe(meta[0]);
  });

  it('ferry prefilter --bfv: the image-type prefilter is skipped, the metadata one still applies', async () => {
    const json = await prefilter(['--image', X86, '--bfv']);
    expect(json.filters).toEqual({ image_type: 'skipped', image_metadata: 'applied', compute_status: 'applied' });
    expect(json.root_required).toEqual(['HW_ARCH_X86_64']);
  });

  it('ferry prefilter --os-traits-version 3.2.0: igb exists there, so it becomes a trait', async () => {
    const json = await prefilter(['--image', ARM_IGB, '--os-traits-version', '3.2.0']);
    expect(json.root_required).toContain('COMPUTE_NET_VIF_MODEL_IGB');
    expect(json.catalogue_version).toBe('3.2.0');
  });

  it('ferry prefilter --microversion 1.34: no root_required; everything in required, with the note', async () => {
    const json = await prefilter(['--image', X86, '--microversion', '1.34']);
    expect(json.query).toBe('required=COMPUTE_IMAGE_TYPE_QCOW2,HW_ARCH_X86_64,!COMPUTE_STATUS_DISABLED');
    expect(json.notes.join(' ')).toContain('no root_required');
  });

  it.each([
    { title: '--strict with an unmappable property', args: ['--image', ARM_IGB, '--strict'], exit: 41, code: 'FERRY_UNKNOWN_TRAIT', says: 'hw_vif_model=igb' },
    { title: 'a flavor trait both required and forbidden by the image', args: ['--image', X86, '--flavor-extra-spec', 'trait:HW_ARCH_X86_64=forbidden'],
      exit: 44, code: 'FERRY_TRAIT_CONFLICT', says: 'HW_ARCH_X86_64' },
    { title: 'an unknown explicit trait', args: ['--image', X86, '--flavor-extra-spec', 'trait:CUSTOM_NOPE=required'], exit: 41, code: 'FERRY_UNKNOWN_TRAIT', says: 'CUSTOM_NOPE' },
    { title: '--flavor-extra-spec without =', args: ['--image', X86, '--flavor-extra-spec', 'trait:X'], exit: 2, code: 'FERRY_INVALID_OPTION', says: 'KEY=VALUE' },
    { title: '--image-type-filter maybe', args: ['--image', X86, '--image-type-filter', 'maybe'], exit: 2, code: 'FERRY_INVALID_OPTION', says: 'a boolean' },
    { title: '--resources with a space', args: ['--image', X86, '--resources', 'VCPU:1, MEMORY_MB:512'], exit: 2, code: 'FERRY_INVALID_OPTION', says: '--resources' },
    { title: '--limit 0', args: ['--image', X86, '--limit', '0'], exit: 2, code: 'FERRY_INVALID_OPTION', says: '--limit' },
    { title: '--microversion 2', args: ['--image', X86, '--microversion', '2'], exit: 2, code: 'FERRY_INVALID_OPTION', says: '--microversion' },
    { title: 'no --image', args: [], exit: 2, code: 'FERRY_INVALID_OPTION', says: '--image' },
  ])('ferry prefilter: $title → exit $exit $code', async ({ args, exit, code, says }) => {
    const run = await runFerry(['prefilter', ...args, '--json']);
    expect(run.code).toBe(exit);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code, message: expect.stringContaining(says) as unknown } });
  });

  it('ferry prefilter: text lists each trait with its reason, what was not mapped, the switches and the query', async () => {
    const run = await runFerry(['prefilter', '--image', ARM_IGB, '--nova-conf', novaConf('image_metadata_prefilter = true')]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^image 8554f597-4961-4557-9ad1-1fbfef5ebc46 \(ferry-fixture-site-a\): the compute node must have 4 traits and must not have 1\n/);
    expect(run.stdout).toMatch(/\n {2}COMPUTE_VIOMMU_MODEL_SMMUV3 +image hw_viommu_model=smmuv3 \(image-metadata prefilter; nova asks for COMPUTE_VIOMMU_SMMUV3, which does not exist\)\n/);
    expect(run.stdout).toMatch(/\n {2}not COMPUTE_STATUS_DISABLED +compute_status_filter/);
    expect(run.stdout).toMatch(/\n {2}hw_vif_model=igb +COMPUTE_NET_VIF_MODEL_IGB is not in os-traits 2\.9\.0 \(first in os-traits 3\.2\.0\)\n/);
    expect(run.stdout).toMatch(/filters: image-type applied \(on: ferry default\), image-metadata applied \(on: nova\.conf \(.*\) \[scheduler\] image_metadata_prefilter\), compute-status applied/);
    expect(run.stdout).toContain('\n  root_required=COMPUTE_IMAGE_TYPE_QCOW2,COMPUTE_STORAGE_BUS_VIRTIO,COMPUTE_VIOMMU_MODEL_SMMUV3,HW_ARCH_AARCH64,!COMPUTE_STATUS_DISABLED');
  });
});

describe('ferry prefilter --image ID (Glance, then Placement\'s trait list)', () => {
  const CLOUD = ['--os-token', 'unit-token', '--glance-endpoint', GLANCE_ROOT, '--placement-endpoint', BASE];
  const recorded = loadExchange('glance', 'image-active-site-a');
  const imageId = (recorded.body as { id: string }).id;

  it('ferry prefilter --image ID: asks Glance for the image and checks names against Placement\'s own list', async () => {
    const scopes = [replay(nock(GLANCE_ROOT), recorded), placementRoot(), allTraits()];
    const json = await prefilter(['--image', imageId, ...CLOUD]);
    expect(json).toMatchObject({ image: imageId, catalogue_version: 'placement', root_required: ['COMPUTE_IMAGE_TYPE_RAW'] });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('ferry prefilter --image ID: Placement refuses the trait list → os-traits 2.9.0, and a note says why', async () => {
    const forbidden = loadExchange('placement', 'placement-403-member');
    const scopes = [replay(nock(GLANCE_ROOT), recorded), placementRoot(),
      at().get('/traits').reply(403, forbidden.body as Record<string, unknown>, forbidden.headers)];
    const json = await prefilter(['--image', imageId, ...CLOUD]);
    expect(json.catalogue_version).toBe('2.9.0');
    expect(json.notes).toEqual([expect.stringMatching(/^names checked against os-traits 2\.9\.0, not the target Placement's list: Placement refused/)]);
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });
});
