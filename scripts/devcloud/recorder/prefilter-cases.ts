// Placement answers behind `ferry candidates` and `ferry explain`, at microversion 1.39. Five compute nodes carry a
// custom scoping trait (so the answers do not depend on other providers in the cloud):
//   pf-host-a  x86_64, qcow2 + raw, enabled, roomy        → a candidate for a qcow2 x86_64 image
//   pf-host-b  x86_64, raw only                          → lacks COMPUTE_IMAGE_TYPE_QCOW2
//   pf-host-c  aarch64, qcow2                            → lacks HW_ARCH_X86_64
//   pf-host-d  x86_64, qcow2, COMPUTE_STATUS_DISABLED    → has a forbidden trait
//   pf-host-e  x86_64, qcow2, 1536 MB capacity, 1024 MB allocated → fits 512 MB, not 1024 MB
// Run with the other cases (scripts/record-fixtures.ts) or alone: npx tsx scripts/devcloud/recorder/prefilter-cases.ts
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FIXTURE_PREFIX, randomUuid } from './glance-session.js';
import type { CallSpec } from './recorder.js';
import { Recorder, expectStatus, field, loadDevcloud } from './recorder.js';

const VERSION = { 'OpenStack-API-Version': 'placement 1.39' };
export const PREFILTER_SCOPE_TRAIT = 'CUSTOM_FERRY_PREFILTER_FIXTURE';
const ROOMY = { VCPU: { total: 8, allocation_ratio: 4.0 }, MEMORY_MB: { total: 16384, reserved: 512 }, DISK_GB: { total: 100 } };
const SMALL = { VCPU: { total: 2 }, MEMORY_MB: { total: 2048, reserved: 512 }, DISK_GB: { total: 20 } };
const HOSTS = [
  { label: 'a', inventory: ROOMY, traits: ['COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_IMAGE_TYPE_RAW', 'HW_ARCH_X86_64', 'COMPUTE_ARCH_X86_64'] },
  { label: 'b', inventory: ROOMY, traits: ['COMPUTE_IMAGE_TYPE_RAW', 'HW_ARCH_X86_64', 'COMPUTE_ARCH_X86_64'] },
  { label: 'c', inventory: ROOMY, traits: ['COMPUTE_IMAGE_TYPE_QCOW2', 'HW_ARCH_AARCH64', 'COMPUTE_ARCH_AARCH64'] },
  { label: 'd', inventory: ROOMY, traits: ['COMPUTE_IMAGE_TYPE_QCOW2', 'HW_ARCH_X86_64', 'COMPUTE_STATUS_DISABLED'] },
  { label: 'e', inventory: SMALL, traits: ['COMPUTE_IMAGE_TYPE_QCOW2', 'HW_ARCH_X86_64'] },
] as const;
const ROOT_REQUIRED = 'root_required=COMPUTE_IMAGE_TYPE_QCOW2,HW_ARCH_X86_64,!COMPUTE_STATUS_DISABLED';
// The order ferry's query builder writes: parameters sorted by name.
const candidatesQuery = (memory: number): string => `required=${PREFILTER_SCOPE_TRAIT}&resources=VCPU:1,MEMORY_MB:${memory}&${ROOT_REQUIRED}`;

export async function recordPrefilterCases(rec: Recorder, admin: string): Promise<void> {
  const base = rec.cloud.placement.url;
  const spec = (method: string, path: string, json?: unknown): CallSpec => ({
    method, url: base + path, token: admin, headers: VERSION, ...(json !== undefined ? { json } : {}),
  });
  const created: string[] = [];
  const consumer = randomUuid();
  try {
    const trait = await rec.call(spec('PUT', `/traits/${PREFILTER_SCOPE_TRAIT}`));
    if (trait.status !== 201 && trait.status !== 204) expectStatus(trait, 201, 'create scope trait');
    const uuids: Record<string, string> = {};
    for (const host of HOSTS) {
      const uuid = randomUuid();
      expectStatus(await rec.call(spec('POST', '/resource_providers', { uuid, name: `${FIXTURE_PREFIX}pf-host-${host.label}` })), 200, `host ${host.label}`);
      created.push(uuid);
      uuids[host.label] = uuid;
      expectStatus(await rec.call(spec('PUT', `/resource_providers/${uuid}/inventories`,
        { resource_provider_generation: 0, inventories: host.inventory })), 200, `inventory ${host.label}`);
      expectStatus(await rec.call(spec('PUT', `/resource_providers/${uuid}/traits`,
        { resource_provider_generation: 1, traits: [...host.traits, PREFILTER_SCOPE_TRAIT] })), 200, `traits ${host.label}`);
    }
    const small = uuids.e ?? '';
    expectStatus(await rec.call(spec('PUT', `/allocations/${consumer}`, {
      allocations: { [small]: { resources: { MEMORY_MB: 1024 } } }, project_id: randomUuid(), user_id: randomUuid(), consumer_generation: null,
      consumer_type: 'INSTANCE', // required from 1.38
    })), 204, 'allocate on host-e');

    const candidates = await rec.record('placement', 'prefilter-candidates', spec('GET', `/allocation_candidates?${candidatesQuery(512)}`));
    expectStatus(candidates, 200, 'candidates for 512 MB');
    const tight = await rec.record('placement', 'prefilter-candidates-1024', spec('GET', `/allocation_candidates?${candidatesQuery(1024)}`));
    expectStatus(tight, 200, 'candidates for 1024 MB');
    const none = `required=${PREFILTER_SCOPE_TRAIT}&resources=VCPU:1,MEMORY_MB:512&root_required=COMPUTE_IMAGE_TYPE_PLOOP,!COMPUTE_STATUS_DISABLED`;
    expectStatus(await rec.record('placement', 'prefilter-candidates-none', spec('GET', `/allocation_candidates?${none}`)), 200, 'no candidates');
    for (const [name, expected] of [['prefilter-candidates', 2], ['prefilter-candidates-1024', 1]] as const) {
      const answer = name === 'prefilter-candidates' ? candidates : tight;
      const requests = field(answer.body, 'allocation_requests');
      if (!Array.isArray(requests) || requests.length !== expected) throw new Error(`${name}: expected ${expected} allocation requests`);
    }

    const scoped = await rec.record('placement', 'prefilter-providers', spec('GET', `/resource_providers?required=${PREFILTER_SCOPE_TRAIT}`));
    expectStatus(scoped, 200, 'providers with the scope trait');
    for (const host of HOSTS) {
      expectStatus(await rec.record('placement', `prefilter-traits-${host.label}`,
        spec('GET', `/resource_providers/${uuids[host.label] ?? ''}/traits`)), 200, `traits of ${host.label}`);
    }
    for (const [label, name] of [['qcow2', 'COMPUTE_IMAGE_TYPE_QCOW2'], ['x86', 'HW_ARCH_X86_64'], ['disabled', 'COMPUTE_STATUS_DISABLED']] as const) {
      expectStatus(await rec.record('placement', `prefilter-providers-${label}`,
        spec('GET', `/resource_providers?required=${PREFILTER_SCOPE_TRAIT},${name}`)), 200, `providers with ${name}`);
    }
    expectStatus(await rec.record('placement', 'prefilter-inventories-e', spec('GET', `/resource_providers/${small}/inventories`)), 200, 'inventories e');
    expectStatus(await rec.record('placement', 'prefilter-usages-e', spec('GET', `/resource_providers/${small}/usages`)), 200, 'usages e');
    expectStatus(await rec.record('placement', 'prefilter-providers-400-unknown-trait',
      spec('GET', '/resource_providers?required=COMPUTE_NOT_A_TRAIT')), 400, 'providers with an unknown trait');
  } finally {
    await rec.call(spec('DELETE', `/allocations/${consumer}`));
    for (const uuid of created) await rec.call(spec('DELETE', `/resource_providers/${uuid}`));
    await rec.call(spec('DELETE', `/traits/${PREFILTER_SCOPE_TRAIT}`));
  }
}

/** Alone: an admin token straight from Keystone (not recorded), then the cases above. */
async function main(): Promise<void> {
  const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
  const stateDir = process.env.FERRY_DEVCLOUD_DIR ?? join(repoRoot, '.devcloud');
  const rec = new Recorder(loadDevcloud(join(stateDir, 'devcloud.json')), join(repoRoot, 'fixtures'));
  const { admin } = rec.cloud.users;
  const answer = await rec.call({ method: 'POST', url: `${rec.cloud.keystone.url}/auth/tokens`, json: { auth: {
    identity: { methods: ['password'], password: { user: { name: admin.name, domain: { id: 'default' }, password: admin.password } } },
    scope: { project: { name: admin.project, domain: { id: 'default' } } },
  } } });
  expectStatus(answer, 201, 'admin token');
  const token = answer.headers.get('x-subject-token');
  if (token === null) throw new Error('admin token: no X-Subject-Token');
  await recordPrefilterCases(rec, token);
  console.log(`${rec.recorded.length} fixtures written:\n  ${rec.recorded.join('\n  ')}`);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) await main();
