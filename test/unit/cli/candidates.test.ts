import { describe, expect, it } from 'vitest';
import { candidatesJsonSchema } from '../../../src/contract/candidates-document.js';
import { loadExchange } from '../../helpers/fixtures.js';
import { runFerry } from '../../helpers/run-ferry.js';
import { at, BASE, placementRoot } from '../placement/placement-nock.js';
import { allTraits, HOSTS, imageFile, provider, SCOPE_SPEC, serve, x86Qcow2Image } from '../prefilter/prefilter-placement.js';

// A plain token and an explicit endpoint: no Keystone, every request goes to the nock'd Placement.
const CLOUD = ['--os-token', 'unit-token', '--placement-endpoint', BASE];
const X86 = imageFile(x86Qcow2Image(), 'x86.json');
const PLOOP = imageFile(x86Qcow2Image({ disk_format: 'ploop', hw_architecture: undefined }), 'ploop.json');

describe('ferry candidates (recorded Placement answers)', () => {
  it('ferry candidates --json: the recorded query, both hosts by name with their traits; parses with the schema', async () => {
    const scopes = [placementRoot(), allTraits(), serve('prefilter-candidates'), provider('a'), provider('e')];
    const run = await runFerry(['candidates', '--image', X86, ...SCOPE_SPEC, '--resources', 'VCPU:1,MEMORY_MB:512', ...CLOUD, '--json']);
    expect(run.code, run.stdout).toBe(0);
    const json = candidatesJsonSchema.parse(JSON.parse(run.stdout));
    expect(`/allocation_candidates?${json.query}`).toBe(loadExchange('placement', 'prefilter-candidates').request.path);
    expect(json).toMatchObject({ microversion: '1.39', resources: 'VCPU:1,MEMORY_MB:512', limit: null, allocation_requests: 2, catalogue_version: 'placement' });
    expect(json.candidates.map((c) => ({ uuid: c.uuid, name: c.name }))).toEqual([HOSTS.a, HOSTS.e]);
    expect(json.candidates[0]?.traits).toContain('COMPUTE_IMAGE_TYPE_QCOW2');
    expect(json.candidates[1]?.resources.MEMORY_MB).toEqual({ capacity: 1536, used: 1024 });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('ferry candidates: text lists each host with the room left for the requested classes', async () => {
    const scopes = [placementRoot(), allTraits(), serve('prefilter-candidates'), provider('a'), provider('e')];
    const run = await runFerry(['candidates', '--image', X86, ...SCOPE_SPEC, '--resources', 'VCPU:1,MEMORY_MB:512', ...CLOUD]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^2 hosts can take image 8554f597-\S+ \(ferry-fixture-site-a\) with VCPU:1,MEMORY_MB:512\n/);
    expect(run.stdout).toContain(`  ${HOSTS.a.name}  ${HOSTS.a.uuid}  VCPU 32/32 free, MEMORY_MB 15872/15872 free`);
    expect(run.stdout).toContain(`  ${HOSTS.e.name}  ${HOSTS.e.uuid}  VCPU 2/2 free, MEMORY_MB 512/1536 free`);
    expect(run.stdout).toContain('Placement 1.39: GET /allocation_candidates?required=CUSTOM_FERRY_PREFILTER_FIXTURE&resources=VCPU:1,MEMORY_MB:512&root_required=');
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('ferry candidates: no candidate → says so and points at ferry explain with the same image and resources', async () => {
    const scopes = [placementRoot(), allTraits(), serve('prefilter-candidates-none')];
    const run = await runFerry(['candidates', '--image', PLOOP, ...SCOPE_SPEC, '--resources', 'VCPU:1,MEMORY_MB:512', ...CLOUD]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^No host can take image \S+ \(ferry-fixture-site-a\) with VCPU:1,MEMORY_MB:512: Placement returned no allocation candidate\./);
    expect(run.stdout).toMatch(/\n {2}COMPUTE_IMAGE_TYPE_PLOOP +image disk_format=ploop \(image-type prefilter\)\n/);
    expect(run.stdout).toContain('ferry explain --image 8554f597-4961-4557-9ad1-1fbfef5ebc46 --resources VCPU:1,MEMORY_MB:512');
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('ferry candidates --limit 1: limit=1 is sent; the text warns there may be more', async () => {
    const recorded = loadExchange('placement', 'prefilter-candidates-1024');
    const sent = at().get('/allocation_candidates').query((q) => q.limit === '1').reply(200, recorded.body as Record<string, unknown>, recorded.headers);
    const scopes = [placementRoot(), allTraits(), sent, provider('a')];
    const run = await runFerry(['candidates', '--image', X86, ...SCOPE_SPEC, '--resources', 'VCPU:1,MEMORY_MB:512', '--limit', '1', ...CLOUD]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('limit 1 reached: Placement may have more candidates');
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('ferry candidates --microversion 1.36: spoken at 1.36, as nova does', async () => {
    const recorded = loadExchange('placement', 'prefilter-candidates');
    const sent = at('1.36').get('/allocation_candidates').query(true).reply(200, recorded.body as Record<string, unknown>, recorded.headers);
    const scopes = [placementRoot(), allTraits(at('1.36')), sent, provider('a', at('1.36')), provider('e', at('1.36'))];
    const run = await runFerry(['candidates', '--image', X86, ...SCOPE_SPEC, '--resources', 'VCPU:1,MEMORY_MB:512', '--microversion', '1.36', ...CLOUD, '--json']);
    expect(run.code, run.stdout).toBe(0);
    expect(candidatesJsonSchema.parse(JSON.parse(run.stdout)).microversion).toBe('1.36');
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('ferry candidates: a trait Placement does not know is refused before the query (exit 41)', async () => {
    const scopes = [placementRoot(), allTraits()];
    const run = await runFerry(['candidates', '--image', X86, '--flavor-extra-spec', 'trait:CUSTOM_NOT_CREATED=required',
      '--resources', 'VCPU:1', ...CLOUD, '--json']);
    expect(run.code).toBe(41);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'FERRY_UNKNOWN_TRAIT', message: expect.stringContaining('CUSTOM_NOT_CREATED is not in the target Placement') as unknown } });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it('ferry candidates --os-traits-version: Placement\'s recorded 400 for an unknown name → exit 41 naming it', async () => {
    const recorded = loadExchange('placement', 'allocation-candidates-400-unknown-trait');
    const scopes = [placementRoot(), at().get('/allocation_candidates').query(true).reply(400, recorded.body as Record<string, unknown>, recorded.headers)];
    const run = await runFerry(['candidates', '--image', X86, '--os-traits-version', '2.9.0', '--resources', 'VCPU:1', ...CLOUD, '--json']);
    expect(run.code).toBe(41);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'FERRY_UNKNOWN_TRAIT', message: expect.stringContaining('COMPUTE_NOT_A_TRAIT') as unknown } });
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });

  it.each([
    { title: 'no --resources', args: [], says: '--resources is required' },
    { title: 'lower-case resources', args: ['--resources', 'vcpu:1'], says: '--resources must be like' },
  ])('ferry candidates: $title → exit 2 before any request', async ({ args, says }) => {
    const run = await runFerry(['candidates', '--image', X86, ...args, ...CLOUD, '--json']);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'FERRY_INVALID_OPTION', message: expect.stringContaining(says) as unknown } });
  });
});
