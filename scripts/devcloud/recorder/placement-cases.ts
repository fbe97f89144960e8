// Placement cases at microversion 1.39. Two providers carry a custom scoping trait so that the allocation-candidate
// answers do not depend on other providers in the cloud: host-a (x86_64, enabled) and host-b (aarch64, disabled).
import type { CallSpec, Recorder } from './recorder.js';
import { expectStatus, field, stringField } from './recorder.js';
import { FIXTURE_PREFIX, randomUuid } from './glance-session.js';

const VERSION = { 'OpenStack-API-Version': 'placement 1.39' };
const SCOPE_TRAIT = 'CUSTOM_FERRY_FIXTURE';
const HOST_A_TRAITS = ['COMPUTE_ARCH_X86_64', 'COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_IMAGE_TYPE_RAW', 'HW_ARCH_X86_64', SCOPE_TRAIT];
const HOST_B_TRAITS = ['COMPUTE_ARCH_AARCH64', 'COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_STATUS_DISABLED', 'HW_ARCH_AARCH64', SCOPE_TRAIT];
const INVENTORY = { VCPU: { total: 8, allocation_ratio: 4.0 }, MEMORY_MB: { total: 16384, reserved: 512 }, DISK_GB: { total: 100 } };

export async function recordPlacementCases(rec: Recorder, admin: string, member: string): Promise<void> {
  const base = rec.cloud.placement.url;
  const spec = (method: string, path: string, json?: unknown, token = admin): CallSpec => ({
    method,
    url: base + path,
    token,
    headers: VERSION,
    ...(json !== undefined ? { json } : {}),
  });
  const created: string[] = [];
  try {
    await removeLeftovers(rec, admin, base);
    expectStatus(await rec.record('placement', 'root', { method: 'GET', url: `${base}/` }), 200, 'GET /');
    const trait = await rec.call(spec('PUT', `/traits/${SCOPE_TRAIT}`));
    if (trait.status !== 201 && trait.status !== 204) expectStatus(trait, 201, 'create custom trait');

    const hostA = randomUuid();
    const hostB = randomUuid();
    const createA = await rec.record('placement', 'provider-create', spec('POST', '/resource_providers', { uuid: hostA, name: `${FIXTURE_PREFIX}host-a` }));
    expectStatus(createA, 200, 'create provider');
    created.push(hostA);
    expectStatus(await rec.call(spec('POST', '/resource_providers', { uuid: hostB, name: `${FIXTURE_PREFIX}host-b` })), 200, 'host-b');
    created.push(hostB);

    const inventory = (generation: number) => ({ resource_provider_generation: generation, inventories: INVENTORY });
    const invA = await rec.record('placement', 'provider-inventories-put', spec('PUT', `/resource_providers/${hostA}/inventories`, inventory(0)));
    expectStatus(invA, 200, 'inventories host-a');
    expectStatus(await rec.call(spec('PUT', `/resource_providers/${hostB}/inventories`, inventory(0))), 200, 'inventories host-b');

    const traits = (generation: number, names: readonly string[]) => ({ resource_provider_generation: generation, traits: names });
    const putA = await rec.record('placement', 'provider-traits-put', spec('PUT', `/resource_providers/${hostA}/traits`, traits(1, HOST_A_TRAITS)));
    expectStatus(putA, 200, 'traits host-a');
    expectStatus(await rec.call(spec('PUT', `/resource_providers/${hostB}/traits`, traits(1, HOST_B_TRAITS))), 200, 'traits host-b');
    const generation = field(putA.body, 'resource_provider_generation');
    if (typeof generation !== 'number') throw new Error('PUT traits: no generation in the answer');

    expectStatus(await rec.record('placement', 'provider-traits-get', spec('GET', `/resource_providers/${hostA}/traits`)), 200, 'traits');
    const stale = await rec.record('placement', 'traits-put-409-generation', spec('PUT', `/resource_providers/${hostA}/traits`, traits(generation - 1, HOST_A_TRAITS)));
    expectStatus(stale, 409, 'stale generation');
    const unknown = await rec.record('placement', 'traits-put-400-unknown', spec('PUT', `/resource_providers/${hostA}/traits`, traits(generation, [...HOST_A_TRAITS, 'COMPUTE_NOT_A_TRAIT'])));
    expectStatus(unknown, 400, 'unknown trait');

    const query = `resources=VCPU:1,MEMORY_MB:512&required=${SCOPE_TRAIT},COMPUTE_IMAGE_TYPE_QCOW2&required=in:HW_ARCH_X86_64,HW_ARCH_AARCH64&root_required=!COMPUTE_STATUS_DISABLED`;
    const candidates = await rec.record('placement', 'allocation-candidates', spec('GET', `/allocation_candidates?${query}`));
    expectStatus(candidates, 200, 'allocation candidates');
    if (!JSON.stringify(candidates.body).includes(hostA) || JSON.stringify(candidates.body).includes(hostB)) {
      throw new Error('allocation candidates: expected host-a only');
    }
    const badQuery = `resources=VCPU:1&required=${SCOPE_TRAIT},COMPUTE_NOT_A_TRAIT`;
    const bad = await rec.record('placement', 'allocation-candidates-400-unknown-trait', spec('GET', `/allocation_candidates?${badQuery}`));
    expectStatus(bad, 400, 'unknown trait in query');

    const prefix = await rec.record('placement', 'traits-list-prefix', spec('GET', '/traits?name=startswith:COMPUTE_IMAGE_TYPE_'));
    expectStatus(prefix, 200, 'traits by prefix');
    expectStatus(await rec.record('placement', 'provider-404', spec('GET', `/resource_providers/${randomUuid()}`)), 404, 'provider 404');
    expectStatus(await rec.record('placement', 'placement-403-member', spec('GET', '/resource_providers', undefined, member)), 403, 'member');
  } finally {
    for (const uuid of created) await rec.call(spec('DELETE', `/resource_providers/${uuid}`));
    await rec.call(spec('DELETE', `/traits/${SCOPE_TRAIT}`));
  }
}

async function removeLeftovers(rec: Recorder, admin: string, base: string): Promise<void> {
  const list = await rec.call({ method: 'GET', url: `${base}/resource_providers`, token: admin, headers: VERSION });
  const providers = field(list.body, 'resource_providers');
  if (!Array.isArray(providers)) return;
  for (const p of providers) {
    const uuid = stringField(p, 'uuid');
    if (uuid !== undefined && stringField(p, 'name')?.startsWith(FIXTURE_PREFIX) === true) {
      await rec.call({ method: 'DELETE', url: `${base}/resource_providers/${uuid}`, token: admin, headers: VERSION });
    }
  }
}
