import type nock from 'nock';
import { describe, expect, it } from 'vitest';
import { reportTraits } from '../../../src/placement/report-traits.js';
import { hostTraits } from '../../../src/traits/host-traits.js';
import { parseHostCapabilities } from '../../../src/traits/parse-host-capabilities.js';
import { standardTraitCatalogue, traitCatalogueFromNames } from '../../../src/traits/trait-catalogue.js';
import { loadExchange } from '../../helpers/fixtures.js';
import { loadDomcaps, readFixture } from '../traits/domcaps-fixtures.js';
import { at, FIXTURE_PROVIDER, closingPlacementClients, placementRoot, providerBody } from './placement-nock.js';

const NAME = 'ferry-fixture-host-a';
const TRAITS_PATH = `/resource_providers/${FIXTURE_PROVIDER}/traits`;

const client = closingPlacementClients();

/** The recorded Debian 12 host (kvm, pc + q35) with images_type=rbd, force_raw_images=false: docs/traits.md's example. */
const hostReport = hostTraits({
  virtType: 'kvm',
  storage: { imagesType: 'rbd', forceRawImages: false },
  domainCapabilities: [loadDomcaps('domcaps-x86_64-kvm-pc.xml'), loadDomcaps('domcaps-x86_64-kvm-q35.xml')],
  hostCapabilities: parseHostCapabilities(readFixture('capabilities.xml'), 'capabilities.xml'),
  libvirtVersion: '9.0.0',
}, standardTraitCatalogue());

/** A small report: two decided families. */
const small = { traits: ['COMPUTE_IMAGE_TYPE_ISO', 'COMPUTE_IMAGE_TYPE_RAW', 'HW_ARCH_X86_64'], decidedFamilies: ['COMPUTE_IMAGE_TYPE_', 'HW_ARCH_'] };

function byName(): nock.Scope {
  return at().get('/resource_providers').query({ name: NAME }).reply(200, { resource_providers: [providerBody()] });
}
function known(names: readonly string[], answer: readonly string[] = names): nock.Scope {
  return at().get('/traits').query({ name: `in:${[...names].sort().join(',')}` }).reply(200, { traits: answer });
}
function read(traits: readonly string[], generation: number): nock.Scope {
  return at().get(TRAITS_PATH).reply(200, { traits, resource_provider_generation: generation });
}
function write(generation: number, traits: readonly string[]): nock.Interceptor {
  return at().put(TRAITS_PATH, { resource_provider_generation: generation, traits: [...traits].sort() });
}
const conflict = loadExchange('placement', 'traits-put-409-generation');
const done = (scopes: readonly nock.Scope[]): boolean => scopes.every((scope) => scope.isDone());

describe('reportTraits', () => {
  it('reportTraits: the recorded host on an rbd/force_raw=false provider: QCOW2 removed, foreign traits kept, the rest added', async () => {
    const current = ['COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_IMAGE_TYPE_RAW', 'COMPUTE_STATUS_DISABLED', 'CUSTOM_IMAGE_CACHE_FAST', 'HW_ARCH_X86_64'];
    const kept = ['COMPUTE_IMAGE_TYPE_RAW', 'COMPUTE_STATUS_DISABLED', 'CUSTOM_IMAGE_CACHE_FAST', 'HW_ARCH_X86_64'];
    const final = [...new Set([...kept, ...hostReport.traits])].sort();
    const scopes = [placementRoot(), byName(), known(hostReport.traits), read(current, 7),
      write(7, final).reply(200, { traits: final, resource_provider_generation: 8 })];
    const result = await reportTraits(client(), NAME, hostReport);
    expect(result).toMatchObject({
      provider: { uuid: FIXTURE_PROVIDER, name: NAME }, removed: ['COMPUTE_IMAGE_TYPE_QCOW2'], kept,
      unchanged: false, attempts: 1, dryRun: false, traits: final, generation: 8,
    });
    expect(result.added).toHaveLength(hostReport.traits.length - 2);
    expect(done(scopes)).toBe(true);
  });

  it('reportTraits: a provider that already matches costs reads only: no PUT, unchanged, 1 attempt', async () => {
    const scopes = [placementRoot(), byName(), known(small.traits), read([...small.traits, 'CUSTOM_X'], 3)];
    const result = await reportTraits(client(), NAME, small);
    expect(result).toMatchObject({ unchanged: true, added: [], removed: [], attempts: 1, generation: 3,
      traits: ['COMPUTE_IMAGE_TYPE_ISO', 'COMPUTE_IMAGE_TYPE_RAW', 'CUSTOM_X', 'HW_ARCH_X86_64'] });
    expect(done(scopes)).toBe(true);
  });

  it('reportTraits: 409 generation conflict → re-read, re-plan; the trait someone else added survives', async () => {
    const first = ['COMPUTE_IMAGE_TYPE_QCOW2', 'HW_ARCH_X86_64'];
    const second = [...first, 'CUSTOM_FOREIGN_1'];
    const scopes = [placementRoot(), byName(), known(small.traits),
      read(first, 4), write(4, [...small.traits]).reply(conflict.status, conflict.body as nock.Body, conflict.headers),
      read(second, 5), write(5, [...small.traits, 'CUSTOM_FOREIGN_1'])
        .reply(200, { traits: [...small.traits, 'CUSTOM_FOREIGN_1'].sort(), resource_provider_generation: 6 })];
    const result = await reportTraits(client(), NAME, small);
    expect(result).toMatchObject({ attempts: 2, generation: 6, removed: ['COMPUTE_IMAGE_TYPE_QCOW2'],
      added: ['COMPUTE_IMAGE_TYPE_ISO', 'COMPUTE_IMAGE_TYPE_RAW'], kept: ['CUSTOM_FOREIGN_1', 'HW_ARCH_X86_64'] });
    expect(result.traits).toContain('CUSTOM_FOREIGN_1');
    expect(done(scopes)).toBe(true);
  });

  it('reportTraits: conflicts past maxConflictRetries → FERRY_PLACEMENT_CONFLICT after exactly 1 + retries rounds', async () => {
    const reply = (s: nock.Interceptor): nock.Scope => s.reply(conflict.status, conflict.body as nock.Body, conflict.headers);
    const scopes = [placementRoot(), byName(), known(small.traits), read([], 1), reply(write(1, small.traits)), read([], 2),
      reply(write(2, small.traits))];
    await expect(reportTraits(client(), NAME, small, { maxConflictRetries: 1 })).rejects.toMatchObject({
      code: 'FERRY_PLACEMENT_CONFLICT', details: { provider: FIXTURE_PROVIDER, attempts: 2 },
    });
    expect(done(scopes)).toBe(true);
  });

  it('reportTraits: a name the target Placement lacks → FERRY_UNKNOWN_TRAIT before reading or writing traits', async () => {
    const names = ['COMPUTE_VIOMMU_MODEL_AUTO', 'HW_ARCH_X86_64'];
    const scopes = [placementRoot(), byName(), known(names, ['HW_ARCH_X86_64'])];
    await expect(reportTraits(client(), NAME, { traits: names, decidedFamilies: ['COMPUTE_VIOMMU_MODEL_', 'HW_ARCH_'] }))
      .rejects.toMatchObject({
        code: 'FERRY_UNKNOWN_TRAIT',
        message: expect.stringContaining("COMPUTE_VIOMMU_MODEL_AUTO is not in the target Placement's trait list; it first appears in os-traits 2.8.0") as unknown,
        details: { unknown: ['COMPUTE_VIOMMU_MODEL_AUTO'] },
      });
    expect(done(scopes)).toBe(true);
  });

  it('reportTraits: a given catalogue is trusted: no GET /traits?name=in:', async () => {
    const scopes = [placementRoot(), byName(), read(small.traits, 2)];
    const result = await reportTraits(client(), NAME, small, { catalogue: traitCatalogueFromNames(small.traits) });
    expect(result.unchanged).toBe(true);
    expect(done(scopes)).toBe(true);
  });

  it('reportTraits: dryRun plans against the current traits and writes nothing', async () => {
    const scopes = [placementRoot(), byName(), known(small.traits), read(['COMPUTE_IMAGE_TYPE_VMDK', 'CUSTOM_X'], 9)];
    const result = await reportTraits(client(), NAME, small, { dryRun: true });
    expect(result).toMatchObject({ dryRun: true, unchanged: false, generation: 9, removed: ['COMPUTE_IMAGE_TYPE_VMDK'],
      traits: ['COMPUTE_IMAGE_TYPE_ISO', 'COMPUTE_IMAGE_TYPE_RAW', 'CUSTOM_X', 'HW_ARCH_X86_64'] });
    expect(done(scopes)).toBe(true);
  });

  it('reportTraits: a UUID-shaped reference that is no provider UUID is looked up as a name', async () => {
    const missing = '3586fe00-f11b-4d04-9239-cddba30bb6b4';
    const recorded = loadExchange('placement', 'provider-404');
    const scopes = [placementRoot(), at().get(`/resource_providers/${missing}`).reply(404, recorded.body as nock.Body, recorded.headers),
      at().get('/resource_providers').query({ name: missing }).reply(200, { resource_providers: [{ ...providerBody(), name: missing }] }),
      known(small.traits), read(small.traits, 1)];
    expect((await reportTraits(client(), missing, small)).provider).toEqual({ uuid: FIXTURE_PROVIDER, name: missing });
    expect(done(scopes)).toBe(true);
  });

  it('reportTraits: no provider by that name → FERRY_PROVIDER_NOT_FOUND', async () => {
    const scopes = [placementRoot(), at().get('/resource_providers').query({ name: 'nope' }).reply(200, { resource_providers: [] })];
    await expect(reportTraits(client(), 'nope', small)).rejects.toMatchObject({ code: 'FERRY_PROVIDER_NOT_FOUND' });
    expect(done(scopes)).toBe(true);
  });

  it.each([
    { case: 'negative maxConflictRetries', desired: small, options: { maxConflictRetries: -1 } },
    { case: 'a CUSTOM_ family', desired: { traits: [], decidedFamilies: ['CUSTOM_'] }, options: {} },
  ])('reportTraits: $case → FERRY_INVALID_OPTION before any request', async ({ desired, options }) => {
    await expect(reportTraits(client(), NAME, desired, options)).rejects.toMatchObject({ code: 'FERRY_INVALID_OPTION' });
  });
});
