import type nock from 'nock';
import { describe, expect, it } from 'vitest';
import { explainJsonSchema } from '../../../src/contract/explain-document.js';
import { runFerry } from '../../helpers/run-ferry.js';
import { BASE, placementRoot } from '../placement/placement-nock.js';
import { allTraits, HOSTS, imageFile, provider, SCOPE, SCOPE_SPEC, serve, x86Qcow2Image } from '../prefilter/prefilter-placement.js';

const CLOUD = ['--os-token', 'unit-token', '--placement-endpoint', BASE];
const X86 = imageFile(x86Qcow2Image(), 'x86.json');
const R = ['--resources', 'VCPU:1,MEMORY_MB:1024'];

/** Every root provider (the recorded scoped listing), their traits per trait, candidates for 1024 MB, pf-host-e's capacity. */
function wholeCloud(): nock.Scope[] {
  return [placementRoot(), allTraits(), serve('prefilter-providers', { path: '/resource_providers' }),
    serve('prefilter-providers-qcow2', { path: '/resource_providers?required=COMPUTE_IMAGE_TYPE_QCOW2' }),
    serve('prefilter-providers-x86', { path: '/resource_providers?required=HW_ARCH_X86_64' }),
    serve('prefilter-providers-disabled', { path: '/resource_providers?required=COMPUTE_STATUS_DISABLED' }),
    serve('prefilter-providers', { path: `/resource_providers?required=${SCOPE}` }),
    serve('prefilter-candidates-1024'), serve('prefilter-inventories-e'), serve('prefilter-usages-e')];
}

describe('ferry explain (recorded Placement answers)', () => {
  it('ferry explain --json: every host with candidate, lacks, has_forbidden and the reason; parses with the schema', async () => {
    const scopes = wholeCloud();
    const run = await runFerry(['explain', '--image', X86, ...SCOPE_SPEC, ...R, ...CLOUD, '--json']);
    expect(run.code, run.stdout).toBe(0);
    const json = explainJsonSchema.parse(JSON.parse(run.stdout));
    expect(json).toMatchObject({ image: '8554f597-4961-4557-9ad1-1fbfef5ebc46', resources: 'VCPU:1,MEMORY_MB:1024', candidates: 1,
      trait_lookup: 'per-trait', capacity_not_read: 0, microversion: '1.39' });
    expect(json.hosts.map((h) => [h.name, h.candidate, h.lacks, h.has_forbidden])).toEqual([
      [HOSTS.a.name, true, [], []],
      [HOSTS.b.name, false, ['COMPUTE_IMAGE_TYPE_QCOW2'], []],
      [HOSTS.c.name, false, ['HW_ARCH_X86_64'], []],
      [HOSTS.d.name, false, [], ['COMPUTE_STATUS_DISABLED']],
      [HOSTS.e.name, false, [], []],
    ]);
    expect(json.hosts[4]).toMatchObject({ verdict: 'resources', fit: [
      { resource_class: 'VCPU', requested: 1, capacity: 2, used: 0, free: 2, fits: true },
      { resource_class: 'MEMORY_MB', requested: 1024, capacity: 1536, used: 1024, free: 512, fits: false, why: 'needs 1024, 512 free (capacity 1536, used 1024)' },
    ] });
    expect(json.hosts[2]?.reason).toBe('lacks required HW_ARCH_X86_64 (image hw_architecture=x86_64 (image-metadata prefilter))');
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('ferry explain: text says, host by host, the exact missing trait or resource, then the causes and what to do', async () => {
    const scopes = wholeCloud();
    const run = await runFerry(['explain', '--image', X86, ...SCOPE_SPEC, ...R, ...CLOUD]);
    expect(run.code, run.stderr).toBe(0);
    const out = run.stdout;
    expect(out).toMatch(/^image 8554f597-\S+ \(ferry-fixture-site-a\): the compute node must have 2 traits and must not have 1\n/);
    expect(out).toContain('\nand room for VCPU:1,MEMORY_MB:1024\n');
    expect(out).toContain('\n1 of 5 hosts can take it with VCPU:1,MEMORY_MB:1024\n');
    expect(out).toContain(`  ✓ ${HOSTS.a.name}  ${HOSTS.a.uuid}  candidate\n`);
    expect(out).toContain(`  ✗ ${HOSTS.b.name}  ${HOSTS.b.uuid}  lacks COMPUTE_IMAGE_TYPE_QCOW2\n`);
    expect(out).toContain(`  ✗ ${HOSTS.c.name}  ${HOSTS.c.uuid}  lacks HW_ARCH_X86_64\n`);
    expect(out).toContain(`  ✗ ${HOSTS.d.name}  ${HOSTS.d.uuid}  has forbidden COMPUTE_STATUS_DISABLED\n`);
    expect(out).toContain(`  ✗ ${HOSTS.e.name}  ${HOSTS.e.uuid}  not enough resources: MEMORY_MB needs 1024, 512 free (capacity 1536, used 1024)\n`);
    expect(out).toMatch(/\nWhat keeps hosts out:\n {2}COMPUTE_IMAGE_TYPE_QCOW2 missing +on +1 host +image disk_format=qcow2 \(image-type prefilter\)\n/);
    expect(out).toMatch(/\n {2}MEMORY_MB short +on +1 host +asks 1024\n/);
    expect(out).toContain('ferry traits report --provider NAME');
    expect(out).toContain('openstack compute service set --enable HOST nova-compute');
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('ferry explain --provider NAME: only the named hosts, their traits read one by one; no --resources → traits only', async () => {
    const byName = (label: 'b' | 'c') => serve('prefilter-providers', { path: `/resource_providers?name=${HOSTS[label].name}` });
    const scopes = [placementRoot(), allTraits(), byName('b'), provider('a'), serve('prefilter-traits-a'), serve('prefilter-traits-b')];
    const run = await runFerry(['explain', '--image', X86, ...SCOPE_SPEC, '--provider', HOSTS.b.name, '--provider', HOSTS.a.uuid, ...CLOUD, '--json']);
    expect(run.code, run.stdout).toBe(0);
    const json = explainJsonSchema.parse(JSON.parse(run.stdout));
    expect(json).toMatchObject({ resources: null, trait_lookup: 'per-host', candidates: 1 });
    expect(json.hosts.map((h) => [h.name, h.verdict])).toEqual([[HOSTS.b.name, 'traits'], [HOSTS.a.name, 'traits-match']]);
    expect(json.query).toBe(`required=${SCOPE}&root_required=COMPUTE_IMAGE_TYPE_QCOW2,HW_ARCH_X86_64,!COMPUTE_STATUS_DISABLED`);
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('ferry explain --provider nope → exit 42 FERRY_PROVIDER_NOT_FOUND', async () => {
    const scopes = [placementRoot(), allTraits(), serve('prefilter-providers-x86', { path: '/resource_providers?name=nope' })];
    // A recorded listing that does not contain the name: the lookup by name finds nothing.
    const run = await runFerry(['explain', '--image', X86, '--provider', 'nope', ...CLOUD, '--json']);
    expect(run.code).toBe(42);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'FERRY_PROVIDER_NOT_FOUND' } });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });
});
