import { describe, expect, it } from 'vitest';
import { loadExchange } from '../../helpers/fixtures.js';
import { HOSTS, serve } from '../prefilter/prefilter-placement.js';
import { at, closingPlacementClients, placementRoot } from './placement-nock.js';

const client = closingPlacementClients();

describe('PlacementClient.listProviders (recorded answers)', () => {
  it('listProviders({ required }): sends required=A,B at 1.39 and parses every provider with its root', async () => {
    const scopes = [placementRoot(), serve('prefilter-providers-qcow2')];
    const providers = await client().listProviders({ required: ['CUSTOM_FERRY_PREFILTER_FIXTURE', 'COMPUTE_IMAGE_TYPE_QCOW2'] });
    expect(providers.map((p) => p.name).sort()).toEqual(['a', 'c', 'd', 'e'].map((l) => `ferry-fixture-pf-host-${l}`));
    expect(providers.every((p) => p.rootProviderUuid === p.uuid && p.parentProviderUuid === undefined)).toBe(true);
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('listProviders(): no filter → GET /resource_providers without a query', async () => {
    const scopes = [placementRoot(), serve('prefilter-providers', { path: '/resource_providers' })];
    expect(await client().listProviders()).toHaveLength(5);
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('listProviders({ resources, inTree, name }): each filter becomes its query parameter', async () => {
    const listed = at().get('/resource_providers')
      .query({ resources: 'VCPU:1,MEMORY_MB:512', in_tree: HOSTS.a.uuid, name: HOSTS.a.name })
      .reply(200, { resource_providers: [] });
    const scopes = [placementRoot(), listed];
    expect(await client().listProviders({ resources: 'VCPU:1,MEMORY_MB:512', inTree: HOSTS.a.uuid, name: HOSTS.a.name })).toEqual([]);
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('listProviders: a forbidden trait needs 1.22 and is refused before sending on a 1.18 server', async () => {
    const root = placementRoot('1.18');
    await expect(client().listProviders({ required: ['!COMPUTE_STATUS_DISABLED'] }))
      .rejects.toMatchObject({ code: 'FERRY_HTTP', details: { microversion: '1.18', needed: '1.22' } });
    expect(root.isDone()).toBe(true);
  });

  it('listProviders: the recorded 400 "No such trait(s)" → FERRY_UNKNOWN_TRAIT naming it', async () => {
    const scopes = [placementRoot(), serve('prefilter-providers-400-unknown-trait')];
    await expect(client().listProviders({ required: ['COMPUTE_NOT_A_TRAIT'] }))
      .rejects.toMatchObject({ code: 'FERRY_UNKNOWN_TRAIT', details: { unknown: ['COMPUTE_NOT_A_TRAIT'], status: 400 } });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });
});

describe('PlacementClient inventories and usages (recorded answers)', () => {
  it('getProviderInventories: every class with Placement\'s filled-in defaults, camel-cased', async () => {
    const scopes = [placementRoot(), serve('prefilter-inventories-e')];
    const read = await client().getProviderInventories(HOSTS.e.uuid);
    expect(read.inventories.MEMORY_MB).toEqual({ total: 2048, reserved: 512, minUnit: 1, maxUnit: 2147483647, stepSize: 1, allocationRatio: 1 });
    expect(Object.keys(read.inventories).sort()).toEqual(['DISK_GB', 'MEMORY_MB', 'VCPU']);
    expect(read.generation).toBe((loadExchange('placement', 'prefilter-inventories-e').body as { resource_provider_generation: number }).resource_provider_generation);
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('getProviderUsages: the amounts in use per class, with the generation', async () => {
    const scopes = [placementRoot(), serve('prefilter-usages-e')];
    expect(await client().getProviderUsages(HOSTS.e.uuid)).toEqual({ usages: { VCPU: 0, MEMORY_MB: 1024, DISK_GB: 0 }, generation: 3 });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it.each(['inventories', 'usages'] as const)('getProvider %s: 404 → FERRY_PROVIDER_NOT_FOUND', async (what) => {
    const recorded = loadExchange('placement', 'provider-404');
    const scopes = [placementRoot(), at().get(`/resource_providers/${HOSTS.b.uuid}/${what}`).reply(404, recorded.body as Record<string, unknown>, recorded.headers)];
    const placement = client();
    const call = what === 'inventories' ? placement.getProviderInventories(HOSTS.b.uuid) : placement.getProviderUsages(HOSTS.b.uuid);
    await expect(call).rejects.toMatchObject({ code: 'FERRY_PROVIDER_NOT_FOUND', details: { provider: HOSTS.b.uuid } });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });
});
