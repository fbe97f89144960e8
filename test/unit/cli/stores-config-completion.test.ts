import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../../src/cli/command-registry.js';
import { configShowJsonSchema } from '../../../src/contract/config-show-document.js';
import { storesJsonSchema } from '../../../src/contract/stores-document.js';
import { storeOverview } from '../../../src/glance/store-overview.js';
import { parseStoresInfo } from '../../../src/glance/image-store-info.js';
import { GLANCE_ROOT, loadExchange, replay } from '../../helpers/fixtures.js';
import { runFerry } from '../../helpers/run-ferry.js';

// A plain token and an explicit endpoint: no Keystone; Glance answers with recorded bodies.
const CLOUD = ['--os-token', 'unit-token', '--glance-endpoint', GLANCE_ROOT];

describe('ferry stores', () => {
  it('ferry stores --store site-b --json: /detail as recorded, site-b local by its id', async () => {
    const scope = replay(nock(GLANCE_ROOT), loadExchange('glance', 'info-stores-detail'));
    const run = await runFerry(['stores', '--store', 'site-b', ...CLOUD, '--json']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const json = storesJsonSchema.parse(JSON.parse(run.stdout));
    expect(json.stores.map((s) => [s.id, s.type, s.local])).toEqual([['central', 'file', false], ['site-a', 'rbd', false],
      ['site-b', 'rbd', true], ['broken', 'file', false]]);
    expect(json).toMatchObject({ local: 'site-b', local_why: 'the configured store', source: 'GET /v2/info/stores/detail' });
    // No ceph.conf given: nothing is probed (no rbd runs), and each store says why and what to pass.
    expect(json.stores.map((s) => [s.id, s.answers])).toEqual([['central', null], ['site-a', null], ['site-b', null], ['broken', null]]);
    expect(json.stores.find((s) => s.id === 'site-b')?.answers_why).toBe(
      'no ceph.conf for the local cluster: pass --ceph-conf FILE (or nova.conf [libvirt] images_rbd_ceph_conf) to probe it');
    expect(scope.isDone()).toBe(true);
  });

  it('ferry stores (text): each store has an answers line with its reason', async () => {
    const scope = replay(nock(GLANCE_ROOT), loadExchange('glance', 'info-stores-detail'));
    const run = await runFerry(['stores', '--store', 'site-b', ...CLOUD]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("not checked: no ceph.conf for this store's cluster here: pass --probe-ceph-conf site-a=FILE to probe it");
    expect(run.stdout.match(/not checked: /g)).toHaveLength(4);
    expect(scope.isDone()).toBe(true);
  });

  it.each([
    { flags: ['--probe-ceph-conf', 'site-a'], message: "--probe-ceph-conf must be STORE=FILE, got 'site-a'" },
    { flags: ['--probe-ceph-conf', '=/etc/ceph/a.conf'], message: "--probe-ceph-conf must be STORE=FILE, got '=/etc/ceph/a.conf'" },
    { flags: ['--probe-ceph-conf', 'a=x', '--probe-ceph-conf', 'a=y'], message: "--probe-ceph-conf names store 'a' twice" },
    { flags: ['--probe-timeout', '1s'], message: "--probe-timeout must be from 2s to 10m, got '1s'" },
    { flags: ['--probe-timeout', 'soon'], message: "--probe-timeout must be a duration such as 30s, 5m, 1h30m or a number of seconds, got 'soon'" },
  ])('ferry stores $flags: refused before any request (FERRY_INVALID_OPTION, exit 2)', async ({ flags, message }) => {
    const run = await runFerry(['stores', ...flags, ...CLOUD, '--json']);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'FERRY_INVALID_OPTION', message } });
  });

  it('ferry stores --probe-ceph-conf site-c=FILE: a store Glance does not offer is FERRY_STORE_NOT_FOUND', async () => {
    const scope = replay(nock(GLANCE_ROOT), loadExchange('glance', 'info-stores-detail'));
    const run = await runFerry(['stores', '--probe-ceph-conf', 'site-c=/etc/ceph/c.conf', ...CLOUD, '--json']);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'FERRY_STORE_NOT_FOUND', message: "--probe-ceph-conf names store 'site-c', which Glance does not offer" } });
    expect(scope.isDone()).toBe(true);
  });

  it('ferry stores: a member (403 on /detail) gets the plain list, types unknown', async () => {
    const scope = replay(replay(nock(GLANCE_ROOT), loadExchange('glance', 'info-stores-detail-403-member')), loadExchange('glance', 'info-stores'));
    const run = await runFerry(['stores', ...CLOUD, '--json']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const json = storesJsonSchema.parse(JSON.parse(run.stdout));
    expect(json).toMatchObject({ source: 'GET /v2/info/stores', source_why: 'GET /v2/info/stores/detail is admin-only (403)', local: null });
    expect(json.stores.every((s) => s.type === null)).toBe(true);
    expect(scope.isDone()).toBe(true);
  });

  it('ferry stores --store site-c: a store Glance does not offer is FERRY_STORE_NOT_FOUND naming the stores', async () => {
    const scope = replay(nock(GLANCE_ROOT), loadExchange('glance', 'info-stores-detail'));
    const run = await runFerry(['stores', '--store', 'site-c', ...CLOUD, '--json']);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'FERRY_STORE_NOT_FOUND', hint: expect.stringContaining('central, site-a, site-b, broken') as unknown } });
    expect(scope.isDone()).toBe(true);
  });

  it('storeOverview: without --store, the rbd store whose fsid Glance reports (Glance ≥ 30) is local; never a substring', () => {
    const info = parseStoresInfo({ stores: [
      { id: 'site-b', type: 'rbd', properties: { pool: 'images', fsid: '89D1B5DB-9F13-48D1-B42D-0E51EE618C56' } },
      { id: 'site-b-old', type: 'rbd', properties: { pool: 'images', fsid: '11111111-9f13-48d1-b42d-0e51ee618c56' } },
    ] }, 'GET /v2/info/stores/detail');
    const byFsid = storeOverview(info, 'GET /v2/info/stores/detail', { fsid: '89d1b5db-9f13-48d1-b42d-0e51ee618c56' });
    expect(byFsid.local).toBe('site-b');
    expect(storeOverview(info, 'GET /v2/info/stores/detail', { store: 'site-b-old', fsid: '89d1b5db-9f13-48d1-b42d-0e51ee618c56' }).local).toBe('site-b-old');
    expect(storeOverview(info, 'GET /v2/info/stores/detail', {}).local).toBeUndefined();
  });
});

describe('ferry config show', () => {
  it('ferry config show --json: each value with its source; the password hidden', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-config-show-'));
    const clouds = join(dir, 'clouds.yaml');
    writeFileSync(clouds, 'clouds:\n  edge:\n    auth:\n      auth_url: http://keystone:5000/v3\n      username: nova\n      password: s3cret-pw\n'
      + '      project_name: service\n      user_domain_name: Default\n      project_domain_name: Default\n    region_name: EdgeB\n');
    const run = await runFerry(['config', 'show', '--store', 'site-b', '--timeout', '10m', '--json'],
      { env: { OS_CLOUD: 'edge', OS_CLIENT_CONFIG_FILE: clouds } });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).not.toContain('s3cret-pw');
    const json = configShowJsonSchema.parse(JSON.parse(run.stdout));
    const entry = (key: string): unknown => json.values.find((v) => v.key === key);
    expect(entry('copy.store')).toEqual({ key: 'copy.store', value: 'site-b', source: '--store' });
    expect(entry('copy.timeoutMs')).toEqual({ key: 'copy.timeoutMs', value: 600_000, source: '--timeout' });
    expect(entry('auth.password')).toMatchObject({ value: '<hidden>', source: expect.stringContaining('clouds.yaml') as unknown });
    expect(entry('endpoints.region')).toMatchObject({ value: 'EdgeB' });
    expect(json.origin).toMatchObject({ cloud: 'edge', clouds_file: clouds });
  });
});

/** One bash running the completion script (six probes a test). */
const BASH_MS = 10_000;

describe('ferry completion', () => {
  it('ferry completion bash: a script bash accepts, offering every command and a command\'s own flags', async () => {
    const run = await runFerry(['completion', 'bash']);
    expect(run.code).toBe(0);
    const probe = (words: string): string => spawnSync('bash', ['-c', `${run.stdout}\nCOMP_WORDS=(${words}); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); _ferry; echo "\${COMPREPLY[*]}"`],
      { encoding: 'utf8', timeout: BASH_MS }).stdout.trim();
    expect(probe('ferry st').split(' ')).toEqual(['status', 'stores']);
    expect(probe('ferry ensure --sto').split(' ')).toEqual(['--store']);
    expect(probe('ferry traits re')).toBe('report');
    expect(probe('ferry traits report --prov')).toBe('--provider');
    expect(probe('ferry config s')).toBe('show');
    expect(probe('ferry ensure x -f y')).toBe('yaml');
  }, 6 * BASH_MS);

  it('ferry CMD --help: each command\'s summary is the registry\'s, the one `ferry --help` lists', async () => {
    for (const name of ['completion', 'ensure', 'traits report']) {
      const help = await runFerry([...name.split(' '), '--help']);
      expect(help.stdout.split('\n')[2]).toBe(COMMANDS[name]?.summary);
      expect((await runFerry(['--help'])).stdout).toContain(`  ${COMMANDS[name]?.summary ?? '?'}`);
    }
  });

  it('ferry completion zsh: loads bashcompinit; fish is refused naming the shells there are', async () => {
    expect((await runFerry(['completion', 'zsh'])).stdout).toContain('autoload -Uz bashcompinit && bashcompinit');
    const fish = await runFerry(['completion', 'fish']);
    expect(fish.code).toBe(2);
    expect(fish.stderr).toContain('Pass bash or zsh');
  });
});
