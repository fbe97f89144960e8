import { describe, expect, it } from 'vitest';
import { explainHosts } from '../../../src/prefilter/explain-hosts.js';
import { imageTraitRequest } from '../../../src/prefilter/image-trait-request.js';
import { OS_TRAITS_BASE } from '../../../src/traits/os-traits-base.js';
import { traitCatalogueFromNames } from '../../../src/traits/trait-catalogue.js';
import { at, closingPlacementClients, placementRoot } from '../placement/placement-nock.js';
import { HOSTS, provider, providerBody, QUERY_1024, SCOPE, serve, x86Qcow2Image } from './prefilter-placement.js';

const client = closingPlacementClients();

const catalogue = traitCatalogueFromNames([...OS_TRAITS_BASE.names, SCOPE]);
const request = imageTraitRequest(x86Qcow2Image(), { catalogue, flavorExtraSpecs: { [`trait:${SCOPE}`]: 'required' } });
const R = 'VCPU:1,MEMORY_MB:1024';

/** The per-trait listings, recorded scoped to the five hosts, served for the unscoped query ferry sends. */
function perTraitListings(): ReturnType<typeof serve>[] {
  return [
    serve('prefilter-providers-qcow2', { path: '/resource_providers?required=COMPUTE_IMAGE_TYPE_QCOW2' }),
    serve('prefilter-providers-x86', { path: '/resource_providers?required=HW_ARCH_X86_64' }),
    serve('prefilter-providers-disabled', { path: '/resource_providers?required=COMPUTE_STATUS_DISABLED' }),
    serve('prefilter-providers', { path: `/resource_providers?required=${SCOPE}` }),
  ];
}

describe('explainHosts (recorded Placement answers)', () => {
  it('explainHosts: four named hosts → per-host traits; each excluded host names the exact trait', async () => {
    const byName = at().get('/resource_providers').query({ name: HOSTS.b.name }).reply(200, { resource_providers: [providerBody('b')] });
    const scopes = [placementRoot(), provider('a'), byName, provider('c'), provider('d'),
      serve('prefilter-traits-a'), serve('prefilter-traits-b'), serve('prefilter-traits-c'), serve('prefilter-traits-d'),
      serve('prefilter-candidates-1024')];
    const explained = await explainHosts(client(), request, {
      providers: [HOSTS.a.uuid, HOSTS.b.name, HOSTS.c.uuid, HOSTS.d.uuid, HOSTS.a.uuid], resources: R, catalogue,
    });
    expect(`/allocation_candidates?${explained.query}`).toBe(QUERY_1024);
    expect(explained.traitLookup).toBe('per-host');
    expect(explained.hosts.map((h) => [h.name, h.verdict, h.lacks.map((g) => g.trait), h.hasForbidden.map((g) => g.trait)])).toEqual([
      [HOSTS.a.name, 'candidate', [], []],
      [HOSTS.b.name, 'traits', ['COMPUTE_IMAGE_TYPE_QCOW2'], []],
      [HOSTS.c.name, 'traits', ['HW_ARCH_X86_64'], []],
      [HOSTS.d.name, 'traits', [], ['COMPUTE_STATUS_DISABLED']],
    ]);
    expect(explained.hosts[1]?.reason).toBe('lacks required COMPUTE_IMAGE_TYPE_QCOW2 (image disk_format=qcow2 (image-type prefilter))');
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('explainHosts: every root provider → one listing, per-trait reads, and pf-host-e\'s memory shortfall in numbers', async () => {
    const scopes = [placementRoot(), serve('prefilter-providers', { path: '/resource_providers' }), ...perTraitListings(),
      serve('prefilter-candidates-1024'), serve('prefilter-inventories-e'), serve('prefilter-usages-e')];
    const explained = await explainHosts(client(), request, { resources: R });
    expect(explained.traitLookup).toBe('per-trait');
    expect(explained.hosts.map((h) => [h.name, h.candidate, h.verdict])).toEqual([
      [HOSTS.a.name, true, 'candidate'], [HOSTS.b.name, false, 'traits'], [HOSTS.c.name, false, 'traits'],
      [HOSTS.d.name, false, 'traits'], [HOSTS.e.name, false, 'resources'],
    ]);
    expect(explained.hosts[4]?.reason).toBe('traits match, but not enough resources: MEMORY_MB needs 1024, 512 free (capacity 1536, used 1024)');
    expect(explained.capacityNotRead).toBe(0);
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('explainHosts: capacityLookups 0 → pf-host-e is "not enough resources or not a root", counted as not read', async () => {
    const scopes = [placementRoot(), serve('prefilter-providers', { path: '/resource_providers' }), ...perTraitListings(),
      serve('prefilter-candidates-1024')];
    const explained = await explainHosts(client(), request, { resources: R, capacityLookups: 0 });
    expect(explained.hosts[4]).toMatchObject({ verdict: 'not-returned', fit: undefined });
    expect(explained.capacityNotRead).toBe(1);
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('explainHosts: without resources no candidates are asked; traits alone decide', async () => {
    const scopes = [placementRoot(), serve('prefilter-providers', { path: '/resource_providers' }), ...perTraitListings()];
    const explained = await explainHosts(client(), request);
    expect(explained.resources).toBeUndefined();
    expect(explained.query).toBe(`required=${SCOPE}&root_required=COMPUTE_IMAGE_TYPE_QCOW2,HW_ARCH_X86_64,!COMPUTE_STATUS_DISABLED`);
    expect(explained.hosts.map((h) => h.verdict)).toEqual(['traits-match', 'traits', 'traits', 'traits', 'traits-match']);
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('explainHosts: an unknown provider → FERRY_PROVIDER_NOT_FOUND before any trait is read', async () => {
    const scopes = [placementRoot(), at().get('/resource_providers').query({ name: 'nope' }).reply(200, { resource_providers: [] })];
    await expect(explainHosts(client(), request, { providers: ['nope'], resources: R }))
      .rejects.toMatchObject({ code: 'FERRY_PROVIDER_NOT_FOUND' });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('explainHosts: a child provider asked about gets a parent and a note; leaf traits are its own', async () => {
    const child = { ...providerBody('b'), uuid: 'c0ffee00-0000-4000-8000-000000000001', name: 'b-child', parent_provider_uuid: HOSTS.b.uuid,
      root_provider_uuid: HOSTS.b.uuid };
    const scopes = [placementRoot(), at().get(`/resource_providers/${child.uuid}`).reply(200, child),
      at().get(`/resource_providers/${child.uuid}/traits`).reply(200, { traits: ['COMPUTE_IMAGE_TYPE_QCOW2'], resource_provider_generation: 1 })];
    const explained = await explainHosts(client(), request, { providers: [child.uuid] });
    expect(explained.hosts[0]).toMatchObject({ parent: HOSTS.b.uuid, verdict: 'traits' });
    expect(explained.hosts[0]?.reason).toContain(`a child provider of ${HOSTS.b.uuid}`);
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });
});
