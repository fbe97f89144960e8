import type nock from 'nock';
import { describe, expect, it } from 'vitest';
import { traitsReportJsonSchema } from '../../../src/contract/traits-report-document.js';
import { OS_TRAITS_BASE } from '../../../src/traits/os-traits-base.js';
import { loadExchange } from '../../helpers/fixtures.js';
import { answer, at, BASE, FIXTURE_PROVIDER, placementRoot, providerBody } from '../placement/placement-nock.js';
import { KVM_HOST, runFerry } from '../../helpers/run-ferry.js';

const NAME = 'ferry-fixture-host-a';
const TRAITS_PATH = `/resource_providers/${FIXTURE_PROVIDER}/traits`;
// A plain token and an explicit endpoint: no Keystone, every request goes to the nock'd Placement.
const CLOUD = ['--os-token', 'unit-token', '--placement-endpoint', BASE];
const STORAGE = ['--images-type', 'rbd', '--force-raw-images', 'false'];
const CURRENT = ['COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_IMAGE_TYPE_RAW', 'COMPUTE_STATUS_DISABLED', 'CUSTOM_IMAGE_CACHE_FAST', 'HW_ARCH_X86_64'];

/** Placement 8.0.0 knows exactly os-traits 2.9.0 (placement-and-traits.md §2.2) plus its CUSTOM_ traits. */
function allTraits(): nock.Scope {
  return at().get('/traits').reply(200, { traits: [...OS_TRAITS_BASE.names, 'CUSTOM_IMAGE_CACHE_FAST'] });
}
function byName(): nock.Scope {
  return at().get('/resource_providers').query({ name: NAME }).reply(200, { resource_providers: [providerBody()] });
}
function read(): nock.Scope {
  return at().get(TRAITS_PATH).reply(200, { traits: CURRENT, resource_provider_generation: 4 });
}

describe('ferry traits report', () => {
  it('ferry traits report --json: names from Placement, one PUT with the generation read; JSON parses with the schema', async () => {
    let sent: { resource_provider_generation: number; traits: string[] } | undefined;
    const put = at().put(TRAITS_PATH, (body: { resource_provider_generation: number; traits: string[] }) => {
      sent = body;
      return body.resource_provider_generation === 4;
    }).reply(200, (_uri, body) => ({ traits: (body as { traits: string[] }).traits, resource_provider_generation: 5 }));
    const scopes = [placementRoot(), allTraits(), byName(), read(), put];
    const run = await runFerry(['traits', 'report', '--provider', NAME, ...KVM_HOST, ...STORAGE, ...CLOUD, '--json']);
    expect(run.code, run.stdout).toBe(0);
    const json = traitsReportJsonSchema.parse(JSON.parse(run.stdout));
    expect(json).toMatchObject({
      provider: { uuid: FIXTURE_PROVIDER, name: NAME }, removed: ['COMPUTE_IMAGE_TYPE_QCOW2'],
      kept: ['COMPUTE_IMAGE_TYPE_RAW', 'COMPUTE_STATUS_DISABLED', 'CUSTOM_IMAGE_CACHE_FAST', 'HW_ARCH_X86_64'],
      unchanged: false, attempts: 1, dry_run: false, generation: 5, catalogue_version: 'placement',
    });
    expect(json.added).toContain('COMPUTE_SECURITY_UEFI_SECURE_BOOT');
    expect(sent?.traits).toEqual(json.traits);
    expect(json.traits).toEqual([...new Set([...json.kept, ...json.added])].sort());
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('ferry traits report --dry-run: reads, plans, writes nothing', async () => {
    const scopes = [placementRoot(), allTraits(), byName(), read()];
    const run = await runFerry(['traits', 'report', '--provider', NAME, ...KVM_HOST, ...STORAGE, ...CLOUD, '--dry-run', '--json']);
    expect(run.code, run.stdout).toBe(0);
    expect(traitsReportJsonSchema.parse(JSON.parse(run.stdout))).toMatchObject({ dry_run: true, unchanged: false, generation: 4 });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('ferry traits report --os-traits-version: no full trait list; the names are checked with one ?name=in: query', async () => {
    const inQuery = at().get('/traits').query((q) => typeof q.name === 'string' && q.name.startsWith('in:'))
      .reply(200, (uri) => ({ traits: decodeURIComponent(new URL(uri, BASE).searchParams.get('name') ?? '').slice(3).split(',') }));
    const scopes = [placementRoot(), byName(), inQuery, read(), at().put(TRAITS_PATH).reply(200, { traits: [], resource_provider_generation: 5 })];
    const run = await runFerry(['traits', 'report', '--provider', NAME, ...KVM_HOST, ...STORAGE, ...CLOUD, '--os-traits-version', '2.9.0', '--json']);
    expect(run.code, run.stdout).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ catalogue_version: '2.9.0', attempts: 1 });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('ferry traits report: text names the provider and each change with its reason', async () => {
    const scopes = [placementRoot(), allTraits(), byName(), read()];
    const run = await runFerry(['traits', 'report', '--provider', NAME, ...KVM_HOST, ...STORAGE, ...CLOUD, '--dry-run']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^provider ${NAME} ${FIXTURE_PROVIDER}: dry run: would add \\d+, remove 1; nothing written`));
    expect(run.stdout).toMatch(/\n {2}- COMPUTE_IMAGE_TYPE_QCOW2 +no longer reported by ferry/);
    expect(run.stdout).toContain("not ferry's to change: COMPUTE_STATUS_DISABLED, CUSTOM_IMAGE_CACHE_FAST");
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('ferry traits report without --provider → FERRY_INVALID_OPTION, before any request', async () => {
    const run = await runFerry(['traits', 'report', ...KVM_HOST, ...CLOUD, '--json']);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'FERRY_INVALID_OPTION' } });
  });

  it('ferry traits report as a member → FERRY_FORBIDDEN (exit 11) naming the policy', async () => {
    const recorded = loadExchange('placement', 'placement-403-member');
    const forbidden = { errors: [{ ...(recorded.body as { errors: Record<string, unknown>[] }).errors[0],
      detail: 'Access was denied to this resource.\n\n Policy does not allow placement:traits:list to be performed.  ' }] };
    const scopes = [placementRoot(), at().get('/traits').reply(403, forbidden, recorded.headers)];
    const run = await runFerry(['traits', 'report', '--provider', NAME, ...KVM_HOST, ...CLOUD, '--json']);
    expect(run.code).toBe(11);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'FERRY_FORBIDDEN',
      message: expect.stringContaining('placement:traits:list') as unknown } });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('ferry traits report: an unknown provider → FERRY_PROVIDER_NOT_FOUND (exit 42)', async () => {
    const scopes = [placementRoot(), allTraits(),
      at().get('/resource_providers').query({ name: 'nope' }).reply(200, { resource_providers: [] })];
    const run = await runFerry(['traits', 'report', '--provider', 'nope', ...KVM_HOST, ...CLOUD, '--json']);
    expect(run.code).toBe(42);
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('ferry traits report: a recorded 409 on every PUT → FERRY_PLACEMENT_CONFLICT (exit 43) after 5 rounds', async () => {
    const conflict = loadExchange('placement', 'traits-put-409-generation');
    const rounds = Array.from({ length: 5 }, () => [read(),
      at().put(TRAITS_PATH).reply(conflict.status, conflict.body as nock.Body, conflict.headers)]).flat();
    const scopes = [placementRoot(), allTraits(), byName(), ...rounds];
    const run = await runFerry(['traits', 'report', '--provider', NAME, ...KVM_HOST, ...STORAGE, ...CLOUD, '--json']);
    expect(run.code).toBe(43);
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });
});

describe('ferry traits report: the recorded answers are what the scaffolding serves', () => {
  it('recorded provider-traits-get parses as the report reads it', async () => {
    const scopes = [placementRoot(), allTraits(),
      at().get('/resource_providers').query({ name: NAME }).reply(200, { resource_providers: [providerBody()] }),
      answer('provider-traits-get')];
    const run = await runFerry(['traits', 'report', '--provider', NAME, '--host-arch', 'x86_64', ...CLOUD, '--dry-run', '--json']);
    expect(run.code, run.stdout).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ generation: 2, kept: expect.arrayContaining(['CUSTOM_FERRY_FIXTURE']) as unknown });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });
});
