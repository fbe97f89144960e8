import { describe, expect, it } from 'vitest';
import { findCandidates } from '../../../src/prefilter/find-candidates.js';
import { imageTraitRequest } from '../../../src/prefilter/image-trait-request.js';
import { traitCatalogueFromNames } from '../../../src/traits/trait-catalogue.js';
import { OS_TRAITS_BASE } from '../../../src/traits/os-traits-base.js';
import { loadExchange } from '../../helpers/fixtures.js';
import { at, closingPlacementClients, placementRoot } from '../placement/placement-nock.js';
import { HOSTS, provider, QUERY_512, SCOPE, serve, x86Qcow2Image } from './prefilter-placement.js';

const client = closingPlacementClients();

const catalogue = traitCatalogueFromNames([...OS_TRAITS_BASE.names, SCOPE]);
const request = imageTraitRequest(x86Qcow2Image(), { catalogue, flavorExtraSpecs: { [`trait:${SCOPE}`]: 'required' } });

describe('findCandidates (recorded Placement answers)', () => {
  it('findCandidates: sends the recorded query at 1.39, names both hosts with one GET each', async () => {
    const scopes = [placementRoot(), serve('prefilter-candidates'), provider('a'), provider('e')];
    const list = await findCandidates(client(), request, 'VCPU:1,MEMORY_MB:512', { catalogue });
    expect(`/allocation_candidates?${list.query}`).toBe(QUERY_512);
    expect(list).toMatchObject({ microversion: '1.39', resources: 'VCPU:1,MEMORY_MB:512', limit: undefined, allocationRequests: 2 });
    expect(list.candidates.map((c) => [c.name, c.uuid])).toEqual([[HOSTS.a.name, HOSTS.a.uuid], [HOSTS.e.name, HOSTS.e.uuid]]);
    expect(list.candidates[1]?.resources.MEMORY_MB).toEqual({ capacity: 1536, used: 1024 });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('findCandidates: more hosts than maxNameLookups → one provider listing instead of a GET per host', async () => {
    const scopes = [placementRoot(), serve('prefilter-candidates'), serve('prefilter-providers', { path: '/resource_providers' })];
    const list = await findCandidates(client(), request, 'VCPU:1,MEMORY_MB:512', { maxNameLookups: 1 });
    expect(list.candidates.map((c) => c.name)).toEqual([HOSTS.a.name, HOSTS.e.name]);
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('findCandidates: a host deleted before its name was read keeps its UUID and no name', async () => {
    const gone = loadExchange('placement', 'provider-404');
    const scopes = [placementRoot(), serve('prefilter-candidates'), provider('a'),
      at().get(`/resource_providers/${HOSTS.e.uuid}`).reply(404, gone.body as Record<string, unknown>, gone.headers)];
    const list = await findCandidates(client(), request, 'VCPU:1,MEMORY_MB:512');
    expect(list.candidates.map((c) => c.name)).toEqual([HOSTS.a.name, undefined]);
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('findCandidates: an empty answer → no candidates and no name request', async () => {
    const none = loadExchange('placement', 'prefilter-candidates-none');
    const ploop = imageTraitRequest(x86Qcow2Image({ disk_format: 'ploop', hw_architecture: undefined }),
      { catalogue, flavorExtraSpecs: { [`trait:${SCOPE}`]: 'required' } });
    const scopes = [placementRoot(), serve('prefilter-candidates-none')];
    const list = await findCandidates(client(), ploop, 'VCPU:1,MEMORY_MB:512');
    expect(`/allocation_candidates?${list.query}`).toBe(none.request.path);
    expect(list.candidates).toEqual([]);
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('findCandidates: on a 1.34 server the root traits go into required (no root_required yet)', async () => {
    const sent = at('1.34').get('/allocation_candidates')
      .query({ required: `COMPUTE_IMAGE_TYPE_QCOW2,${SCOPE},HW_ARCH_X86_64,!COMPUTE_STATUS_DISABLED`, resources: 'VCPU:1' })
      .reply(200, { allocation_requests: [], provider_summaries: {} });
    const scopes = [placementRoot('1.34'), sent];
    const list = await findCandidates(client(), request, 'VCPU:1');
    expect(list.microversion).toBe('1.34');
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('findCandidates: a name Placement does not know → its recorded 400 becomes FERRY_UNKNOWN_TRAIT', async () => {
    const recorded = loadExchange('placement', 'allocation-candidates-400-unknown-trait');
    const scopes = [placementRoot(), at().get('/allocation_candidates').query(true).reply(400, recorded.body as Record<string, unknown>, recorded.headers)];
    await expect(findCandidates(client(), { root_required: ['COMPUTE_NOT_A_TRAIT'], root_forbidden: [] }, 'VCPU:1'))
      .rejects.toMatchObject({ code: 'FERRY_UNKNOWN_TRAIT', details: { unknown: ['COMPUTE_NOT_A_TRAIT'] } });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('findCandidates: with a catalogue, an unknown name is refused before the query is sent', async () => {
    const root = placementRoot();
    await expect(findCandidates(client(), { root_required: ['COMPUTE_NOT_A_TRAIT'], root_forbidden: [] }, 'VCPU:1', { catalogue }))
      .rejects.toMatchObject({ code: 'FERRY_UNKNOWN_TRAIT' });
    expect(root.isDone()).toBe(true);
  });

  it.each([
    { resources: 'VCPU:1, MEMORY_MB:512', limit: undefined },
    { resources: 'VCPU:1', limit: 0 },
  ])('findCandidates: resources $resources, limit $limit → FERRY_INVALID_OPTION', async ({ resources, limit }) => {
    const scopes = limit === undefined ? [] : [placementRoot()];
    await expect(findCandidates(client(), request, resources, limit === undefined ? {} : { limit }))
      .rejects.toMatchObject({ code: 'FERRY_INVALID_OPTION' });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });
});
