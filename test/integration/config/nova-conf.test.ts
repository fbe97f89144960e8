import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueuedImage } from '../../helpers/glance-admin.js';
import { ADMIN_CLOUD, cloudEnv, devcloud, markReached } from '../../helpers/devcloud.js';
import { runFerry } from '../../helpers/run-ferry.js';

// nova.conf + nova-compute.conf against the real Keystone catalog of the dev cloud, which offers only public
// endpoints: nova's default [glance] valid_interfaces (internal, public) must fall through to public, as nova's
// keystoneauth adapter does; a later file that narrows it to internal must win, and fail naming what the catalog offers.
// Credentials come from OS_* variables, not the dev cloud's clouds.yaml: its `interface: public` would outrank nova.conf.
let dir: string;
let imageId: string;
let internalEndpoint = '';

/**
 * The openstack CLI as the dev cloud's admin (test set-up independent of ferry). Keystone on sqlite answers a write now
 * and then with 500 `database is locked` (seen in a CI rehearsal: DELETE /v3/endpoints/…, keystone's wsgi.out;
 * shared/reference/keystone.md lists the trap): such an answer is tried once more, 2 s later.
 */
function openstack(args: readonly string[]): string {
  const run = (): string => execFileSync('openstack', args, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, ...cloudEnv(ADMIN_CLOUD) },
    encoding: 'utf8', timeout: 50_000, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    return run();
  } catch (error) {
    const stderr = (error as { stderr?: string | Buffer }).stderr;
    if (!(typeof stderr === 'string' ? stderr : stderr?.toString() ?? '').includes('(HTTP 500)')) throw error;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2_000);
    return run();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ferry-novaconf-'));
  devcloud();
  imageId = await createQueuedImage(`ferry-it-novaconf-${Date.now()}`);
  markReached('glance');
  markReached('keystone');
});

afterAll(() => {
  if (internalEndpoint !== '') openstack(['endpoint', 'delete', internalEndpoint]);
  rmSync(dir, { recursive: true, force: true });
});

/** ferry's own user (role ferry on project ferry) as OS_* variables, with no interface anywhere. */
function credentials(): Record<string, string> {
  const facts = devcloud();
  const ferry = facts.users.ferry;
  return { OS_AUTH_URL: facts.keystone.url, OS_USERNAME: ferry.name, OS_PASSWORD: ferry.password, OS_PROJECT_NAME: ferry.project,
    OS_USER_DOMAIN_NAME: 'Default', OS_PROJECT_DOMAIN_NAME: 'Default', OS_REGION_NAME: 'RegionOne' };
}

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('--nova-conf against the real catalog', () => {
  it('nova\'s default valid_interfaces (internal, public): the public endpoint is used when there is no internal one', async () => {
    const novaConf = write('nova.conf', '[libvirt]\nimages_type = rbd\n');
    const computeConf = write('nova-compute.conf', '[libvirt]\nvirt_type = kvm\n');
    const run = await runFerry(['status', imageId, '--nova-conf', novaConf, '--nova-conf', computeConf, '--json'], { env: credentials() });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ image: imageId });
  });

  it('with an internal image endpoint in the catalog, nova\'s default tries it first; without nova.conf, public (the CLI\'s)', async () => {
    // Nothing listens on port 1: reaching for it proves the internal endpoint was chosen.
    internalEndpoint = openstack(['endpoint', 'create', '--region', 'RegionOne', 'image', 'internal', 'http://127.0.0.1:1', '-f', 'value', '-c', 'id']).trim();
    const novaConf = write('nova-b.conf', '[libvirt]\nimages_type = rbd\n');
    const withNova = await runFerry(['status', imageId, '--nova-conf', novaConf, '--retries', '0', '--json'], { env: credentials() });
    expect(JSON.parse(withNova.stdout)).toMatchObject({ error: { code: 'FERRY_UNREACHABLE', message: expect.stringContaining('127.0.0.1:1') as unknown } });
    const withoutNova = await runFerry(['status', imageId, '--json'], { env: credentials() });
    expect(withoutNova.code, withoutNova.stdout).toBe(0);
    const narrowed = write('nova-compute-b.conf', '[glance]\nvalid_interfaces = public\n');
    const withBoth = await runFerry(['status', imageId, '--nova-conf', novaConf, '--nova-conf', narrowed, '--json'], { env: credentials() });
    expect(withBoth.code, withBoth.stdout).toBe(0);
    openstack(['endpoint', 'delete', internalEndpoint]);
    internalEndpoint = '';
  });

  it('a later file narrowing [glance] valid_interfaces to internal wins, and the error names what the catalog offers', async () => {
    const novaConf = write('nova-a.conf', '[glance]\nvalid_interfaces = internal, public\n');
    const computeConf = write('nova-compute-a.conf', '[glance]\nvalid_interfaces = internal\n');
    const run = await runFerry(['status', imageId, '--nova-conf', novaConf, '--nova-conf', computeConf, '--json'], { env: credentials() });
    expect(run.code).not.toBe(0);
    const { error } = JSON.parse(run.stdout) as { error: { code: string; message: string } };
    expect(error.code).toBe('FERRY_ENDPOINT_NOT_FOUND');
    expect(error.message).toBe("the 'image' service has no internal endpoint in region RegionOne (catalog offers: public@RegionOne)");
  });
});
