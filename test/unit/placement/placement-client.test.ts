import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { loadExchange } from '../../helpers/fixtures.js';
import { answer, at, BASE, FIXTURE_PROVIDER, closingPlacementClients, placementRoot, providerBody } from './placement-nock.js';

const client = closingPlacementClients();

const RECORDED_PUT_TRAITS = ['COMPUTE_ARCH_X86_64', 'COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_IMAGE_TYPE_RAW', 'HW_ARCH_X86_64',
  'CUSTOM_FERRY_FIXTURE'];

describe('PlacementClient: microversion negotiation', () => {
  it('microversion: GET / once per client, then every verb is sent at min(1.39, server max) = 1.39', async () => {
    const root = placementRoot();
    const traits = answer('traits-list-prefix');
    const providerTraits = answer('provider-traits-get');
    const placement = client();
    expect(await placement.microversion()).toEqual({ major: 1, minor: 39 });
    await placement.listTraits({ name: 'startswith:COMPUTE_IMAGE_TYPE_' });
    await placement.getProviderTraits(FIXTURE_PROVIDER);
    expect(root.isDone() && traits.isDone() && providerTraits.isDone()).toBe(true);
  });

  it('microversion: an older server (max 1.30) is spoken to at 1.30', async () => {
    const root = placementRoot('1.30');
    const traits = answer('traits-list-prefix', { scope: at('1.30') });
    const placement = client();
    expect(await placement.listTraits({ name: 'startswith:COMPUTE_IMAGE_TYPE_' })).toHaveLength(11);
    expect(root.isDone() && traits.isDone()).toBe(true);
  });

  it('microversion: a caller asking for less than the server has (1.36) gets 1.36', async () => {
    const root = placementRoot();
    const providerTraits = answer('provider-traits-get', { scope: at('1.36') });
    await client({ microversion: '1.36' }).getProviderTraits(FIXTURE_PROVIDER);
    expect(root.isDone() && providerTraits.isDone()).toBe(true);
  });

  it('microversion: a server below 1.6 fails clearly before the traits request is sent', async () => {
    const root = placementRoot('1.5');
    await expect(client().listTraits()).rejects.toMatchObject({
      code: 'FERRY_HTTP', details: { microversion: '1.5', needed: '1.6', what: 'listing traits' },
    });
    expect(root.isDone()).toBe(true);
  });

  it('microversion: an in: query needing 1.39 is refused before sending when the server has 1.38', async () => {
    const root = placementRoot('1.38');
    await expect(client().allocationCandidates('resources=VCPU:1&required=in:A,B', { minMicroversion: '1.39' }))
      .rejects.toMatchObject({ code: 'FERRY_HTTP', details: { microversion: '1.38', needed: '1.39' } });
    expect(root.isDone()).toBe(true);
  });

  it('microversion: a failed GET / is not remembered; the next call negotiates again', async () => {
    const down = nock(BASE).get('/').reply(500, { message: 'boom' });
    const placement = client();
    await expect(placement.microversion()).rejects.toMatchObject({ code: 'FERRY_HTTP', details: { status: 500 } });
    const root = placementRoot();
    expect(await placement.microversion()).toEqual({ major: 1, minor: 39 });
    expect(down.isDone() && root.isDone()).toBe(true);
  });

  it('microversion: a root without a parsable max_version is FERRY_BAD_RESPONSE', async () => {
    const root = nock(BASE).get('/').reply(200, { versions: [{ id: 'v1.0', max_version: 'latest', min_version: '1.0', status: 'CURRENT' }] });
    await expect(client().microversion()).rejects.toMatchObject({ code: 'FERRY_BAD_RESPONSE' });
    expect(root.isDone()).toBe(true);
  });
});

describe('PlacementClient: traits and providers (recorded answers)', () => {
  it('listTraits: startswith:COMPUTE_IMAGE_TYPE_ → the 11 names, sorted', async () => {
    const scopes = [placementRoot(), answer('traits-list-prefix')];
    const names = await client().listTraits({ name: 'startswith:COMPUTE_IMAGE_TYPE_' });
    expect(names).toEqual(['AKI', 'AMI', 'ARI', 'ISO', 'PLOOP', 'QCOW2', 'RAW', 'VDI', 'VHD', 'VHDX', 'VMDK']
      .map((t) => `COMPUTE_IMAGE_TYPE_${t}`));
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('getProviderTraits: sorted traits with the generation they were read at', async () => {
    const scopes = [placementRoot(), answer('provider-traits-get')];
    expect(await client().getProviderTraits(FIXTURE_PROVIDER)).toEqual({
      traits: ['COMPUTE_ARCH_X86_64', 'COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_IMAGE_TYPE_RAW', 'CUSTOM_FERRY_FIXTURE', 'HW_ARCH_X86_64'],
      generation: 2,
    });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('setProviderTraits: sends the generation and the whole set; 200 → updated with the new generation', async () => {
    const scopes = [placementRoot(), answer('provider-traits-put')];
    const result = await client().setProviderTraits(FIXTURE_PROVIDER, 1, RECORDED_PUT_TRAITS);
    expect(result).toEqual({ kind: 'updated', generation: 2, traits: [...RECORDED_PUT_TRAITS].sort() });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('setProviderTraits: 409 placement.concurrent_update → a conflict result, not an error', async () => {
    const scopes = [placementRoot(), answer('traits-put-409-generation')];
    const result = await client().setProviderTraits(FIXTURE_PROVIDER, 1, RECORDED_PUT_TRAITS);
    expect(result).toEqual({ kind: 'conflict', requestId: 'req-b36b8021-ae80-4ad5-b94b-1a18f3800b14',
      message: expect.stringContaining("Resource provider's generation already changed") as unknown });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('setProviderTraits: a 409 with another code is an error (FERRY_HTTP)', async () => {
    const recorded = loadExchange('placement', 'traits-put-409-generation');
    const body = { errors: [{ status: 409, title: 'Conflict', detail: 'Something else.', code: 'placement.undefined_code' }] };
    const scopes = [placementRoot(), at().put(`/resource_providers/${FIXTURE_PROVIDER}/traits`).reply(409, body, recorded.headers)];
    await expect(client().setProviderTraits(FIXTURE_PROVIDER, 1, RECORDED_PUT_TRAITS))
      .rejects.toMatchObject({ code: 'FERRY_HTTP', details: { status: 409 } });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('setProviderTraits: 400 "No such trait" → FERRY_UNKNOWN_TRAIT naming it', async () => {
    const scopes = [placementRoot(), answer('traits-put-400-unknown')];
    await expect(client().setProviderTraits(FIXTURE_PROVIDER, 2, [...RECORDED_PUT_TRAITS, 'COMPUTE_NOT_A_TRAIT']))
      .rejects.toMatchObject({ code: 'FERRY_UNKNOWN_TRAIT', details: { unknown: ['COMPUTE_NOT_A_TRAIT'], status: 400 } });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('getProvider: 404 → FERRY_PROVIDER_NOT_FOUND with Placement\'s request id', async () => {
    const missing = '3586fe00-f11b-4d04-9239-cddba30bb6b4';
    const scopes = [placementRoot(), answer('provider-404')];
    await expect(client().getProvider(missing)).rejects.toMatchObject({
      code: 'FERRY_PROVIDER_NOT_FOUND', details: { provider: missing, requestId: 'req-e3fd822d-8280-49a1-a7c2-a7ddd56c3290' },
    });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('getProviderTraits: 404 → FERRY_PROVIDER_NOT_FOUND', async () => {
    const missing = '3586fe00-f11b-4d04-9239-cddba30bb6b4';
    const scopes = [placementRoot(), answer('provider-404', { path: `/resource_providers/${missing}/traits` })];
    await expect(client().getProviderTraits(missing)).rejects.toMatchObject({ code: 'FERRY_PROVIDER_NOT_FOUND' });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('getProvider: the provider with its generation and root', async () => {
    const scopes = [placementRoot(), at().get(`/resource_providers/${FIXTURE_PROVIDER}`).reply(200, providerBody())];
    expect(await client().getProvider(FIXTURE_PROVIDER)).toEqual({
      uuid: FIXTURE_PROVIDER, name: 'ferry-fixture-host-a', generation: 0, parentProviderUuid: undefined, rootProviderUuid: FIXTURE_PROVIDER,
    });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it.each([
    { case: 'one match', providers: [providerBody()], expected: 'ferry-fixture-host-a' },
    { case: 'no match', providers: [], expected: undefined },
  ])('findProviderByName: $case', async ({ providers, expected }) => {
    const scopes = [placementRoot(),
      at().get('/resource_providers').query({ name: 'ferry-fixture-host-a' }).reply(200, { resource_providers: providers })];
    expect((await client().findProviderByName('ferry-fixture-host-a'))?.name).toBe(expected);
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('403 for a member → FERRY_FORBIDDEN naming the policy rule Placement quotes', async () => {
    const scopes = [placementRoot(), answer('placement-403-member', { path: '/resource_providers?name=host-a' })];
    await expect(client().findProviderByName('host-a')).rejects.toMatchObject({
      code: 'FERRY_FORBIDDEN',
      message: expect.stringContaining('placement:resource_providers:list') as unknown,
      details: { policy: 'placement:resource_providers:list', status: 403 },
    });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('a body missing the generation is FERRY_BAD_RESPONSE naming the field', async () => {
    const scopes = [placementRoot(), at().get(`/resource_providers/${FIXTURE_PROVIDER}/traits`).reply(200, { traits: [] })];
    await expect(client().getProviderTraits(FIXTURE_PROVIDER))
      .rejects.toMatchObject({ code: 'FERRY_BAD_RESPONSE', details: { field: 'resource_provider_generation' } });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });
});

describe('PlacementClient: allocation candidates (recorded)', () => {
  const query = loadExchange('placement', 'allocation-candidates').request.path.replace('/allocation_candidates?', '');

  it('allocationCandidates: the query is sent as given; requests and summaries parsed, traits sorted', async () => {
    const scopes = [placementRoot(), answer('allocation-candidates')];
    const candidates = await client().allocationCandidates(query, { minMicroversion: '1.39' });
    expect(candidates.allocationRequests).toEqual([{
      allocations: { [FIXTURE_PROVIDER]: { VCPU: 1, MEMORY_MB: 512 } }, mappings: { '': [FIXTURE_PROVIDER] },
    }]);
    expect(candidates.providerSummaries[FIXTURE_PROVIDER]).toEqual({
      resources: { VCPU: { capacity: 32, used: 0 }, MEMORY_MB: { capacity: 15872, used: 0 }, DISK_GB: { capacity: 100, used: 0 } },
      traits: ['COMPUTE_ARCH_X86_64', 'COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_IMAGE_TYPE_RAW', 'CUSTOM_FERRY_FIXTURE', 'HW_ARCH_X86_64'],
      parentProviderUuid: undefined, rootProviderUuid: FIXTURE_PROVIDER,
    });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('allocationCandidates: 400 No such trait(s) → FERRY_UNKNOWN_TRAIT', async () => {
    const recorded = loadExchange('placement', 'allocation-candidates-400-unknown-trait');
    const scopes = [placementRoot(), answer('allocation-candidates-400-unknown-trait')];
    await expect(client().allocationCandidates(recorded.request.path.replace('/allocation_candidates?', '')))
      .rejects.toMatchObject({ code: 'FERRY_UNKNOWN_TRAIT', details: { unknown: ['COMPUTE_NOT_A_TRAIT'] } });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });
});
