import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { ensure } from '../../../src/copy/ensure.js';
import { ceph, CEPH_MS, cloudEnv, countingTransport, devcloud, devCloud, FERRY } from '../../helpers/devcloud.js';
import { INTEGRATION_TEST_MS } from '../../helpers/spawn-budget.js';
import { deleteImage, imageTasks, tokenFor, uploadImage, waitUnlocked } from '../../helpers/glance-admin.js';

const created: string[] = [];
const clones: string[] = [];
async function image(name: string, store: string, extra: { sizeBytes?: number; diskFormat?: string } = {}): Promise<string> {
  const id = await uploadImage({ name: `it-ensure-${name}`, store, ...extra });
  created.push(id);
  return id;
}

afterAll(async () => {
  for (const clone of clones) ceph('site-b', 'rbd', ['rm', '--no-progress', clone]);
  for (const id of created) {
    await waitUnlocked(id);
    await deleteImage(id);
  }
});

const ferryBin = `${process.cwd()}/bin/ferry`;
/** One ferry CLI run of these tests: an ensure of a small image, or a status. */
const FERRY_CLI_MS = 120_000;
function ferry(args: readonly string[], cloud: string = FERRY.cloud): { code: number; json: Record<string, unknown>; stderr: string } {
  const result = spawnSync(process.execPath, [ferryBin, ...args, '--json'], {
    encoding: 'utf8', timeout: FERRY_CLI_MS, env: { ...process.env, ...cloudEnv(cloud), FERRY_FSID: devcloud().ceph['site-b'].fsid },
  });
  return { code: result.status ?? -1, json: JSON.parse(result.stdout || '{}') as Record<string, unknown>, stderr: result.stderr };
}

describe('ensure against real Glance and two Ceph clusters', () => {
  it('ensure: copies a site-a image to site-b and the target clones with rbd on cluster B', async () => {
    const id = await image('copy', 'site-a', { sizeBytes: 8 * 1024 * 1024 });
    const transport = countingTransport();
    const cloud = await devCloud({ transport, flags: { 'ceph-conf': devcloud().ceph['site-b'].conf, 'rbd-user': FERRY.rbdUser } });
    const result = await ensure(cloud, id, { store: 'site-b' });
    expect(result).toMatchObject({ imageId: id, copied: true, importRequests: 1,
      target: { fsid: devcloud().ceph['site-b'].fsid, pool: 'images', image: id, snapshot: 'snap' } });
    expect(transport.count('POST', /\/import$/)).toBe(1);

    const clone = `vms/it-clone-${id.slice(0, 8)}`;
    const cloned = ceph('site-b', 'rbd', ['clone', `${result.target.pool}/${result.target.image}@${result.target.snapshot}`, clone]);
    expect(cloned.code, cloned.stderr).toBe(0);
    clones.push(clone);
    const info = ceph('site-b', 'rbd', ['info', clone]);
    expect(info.stdout).toContain(`parent: images/${id}@snap`);
    await transport.close();
  }, INTEGRATION_TEST_MS + 2 * CEPH_MS);

  it('ensure: an image already in site-b costs one image read and no import request', async () => {
    const id = await image('local', 'site-b');
    const transport = countingTransport();
    const cloud = await devCloud({ transport, flags: { fsid: devcloud().ceph['site-b'].fsid } });
    await cloud.session.token();
    const before = transport.sent.length;
    const result = await ensure(cloud, id, { store: 'site-b' });
    expect(result).toMatchObject({ copied: false, imageReads: 1, importRequests: 0 });
    expect(transport.sent.length - before).toBe(1);
    await transport.close();
  });

  it('ensure: a copy Glance fails ends with FERRY_COPY_FAILED quickly, no hang', async () => {
    const id = await image('broken', 'site-a');
    const cloud = await devCloud({ flags: { fsid: devcloud().ceph['site-b'].fsid } });
    const started = Date.now();
    await expect(ensure(cloud, id, { store: 'broken', timeoutMs: 60_000 }))
      .rejects.toMatchObject({ code: 'FERRY_COPY_FAILED', details: { outcome: 'failed', store: 'broken' } });
    expect(Date.now() - started).toBeLessThan(15_000);
    await cloud.close();
  });

  it('ensure: two concurrent ensures in one process make one import request', async () => {
    const id = await image('concurrent', 'site-a');
    const transport = countingTransport();
    const cloud = await devCloud({ transport, flags: { fsid: devcloud().ceph['site-b'].fsid } });
    const results = await Promise.all([ensure(cloud, id, { store: 'site-b' }), ensure(cloud, id, { store: 'site-b' })]);
    expect(transport.count('POST', /\/import$/)).toBe(1);
    expect(results[0].target.url).toBe(results[1].target.url);
    await transport.close();
  });

  it('ensure: two clouds (as two processes would) copying the same image make one Glance copy task', async () => {
    const id = await image('two-clients', 'site-a', { sizeBytes: 32 * 1024 * 1024 });
    const flags = { fsid: devcloud().ceph['site-b'].fsid };
    const [one, two] = await Promise.all([devCloud({ flags }), devCloud({ flags })]);
    const results = await Promise.all([ensure(one, id, { store: 'site-b' }), ensure(two, id, { store: 'site-b' })]);
    expect(results.map((r) => r.target.url)[0]).toBe(results[1].target.url);
    const copyTasks = (await imageTasks(id)).filter((task) => task.input.backend?.includes('site-b'));
    expect(copyTasks).toHaveLength(1);
    expect(results.some((r) => r.joined)).toBe(true);
    await Promise.all([one.close(), two.close()]);
  });

  it('ferry ensure CLI: JSON contract on success', async () => {
    const id = await image('cli', 'site-a');
    const result = ferry(['ensure', id, '--store', 'site-b']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json).toMatchObject({ image: id, store: 'site-b', copied: true, target: { fsid: devcloud().ceph['site-b'].fsid } });
    expect(typeof result.json.seconds).toBe('number');
  });

  it.each([
    { title: 'a non-raw image', setup: () => image('qcow2', 'site-a', { diskFormat: 'qcow2' }), args: ['--store', 'site-b'], code: 24, error: 'FERRY_NOT_CLONABLE' },
    { title: 'an unknown store', setup: () => image('nostore', 'site-a'), args: ['--store', 'nosuch'], code: 23, error: 'FERRY_STORE_NOT_FOUND' },
    { title: 'a malformed image ID', setup: () => Promise.resolve('3f1c2a9e-5b7d'), args: ['--store', 'site-b'], code: 4, error: 'FERRY_INVALID_IMAGE_REF' },
    { title: 'an image that does not exist', setup: () => Promise.resolve('00000000-0000-4000-8000-000000000000'), args: ['--store', 'site-b'], code: 20, error: 'FERRY_IMAGE_NOT_FOUND' },
    { title: 'bad credentials', setup: () => Promise.resolve('00000000-0000-4000-8000-000000000000'), args: ['--store', 'site-b', '--os-cloud', 'devcloud-ferry', '--os-password', 'wrong'], code: 10, error: 'FERRY_AUTH_FAILED' },
    { title: 'an unreachable Glance', setup: () => Promise.resolve('00000000-0000-4000-8000-000000000000'), args: ['--store', 'site-b', '--glance-endpoint', 'http://127.0.0.1:1', '--retries', '0'], code: 13, error: 'FERRY_UNREACHABLE' },
  ])('ferry ensure CLI: $title → exit $code, $error, no stack trace', async ({ setup, args, code, error }) => {
    const id = await setup();
    const result = ferry(['ensure', id, ...args]);
    expect(result.code).toBe(code);
    expect(result.json).toMatchObject({ error: { code: error } });
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('ferry ensure CLI: a member is refused by the copy_image policy with the fix named, and nothing is left locked', async () => {
    const id = await uploadImage({ name: 'it-ensure-member', store: 'site-a', as: 'demo' });
    const result = ferry(['ensure', id, '--store', 'site-b'], 'devcloud-member');
    expect(result.code).toBe(11);
    expect(result.json).toMatchObject({ error: { code: 'FERRY_FORBIDDEN', hint: expect.stringContaining('copy_image') as unknown } });
    const after = await waitUnlocked(id, 1_000);
    expect(after.os_glance_import_task).toBeUndefined();
    await deleteImage(id, 'demo');
  });

  it('ferry ensure CLI: a plain token with an explicit Glance endpoint needs no Keystone catalog', async () => {
    const id = await image('token', 'site-a');
    const token = await tokenFor('ferry');
    const result = spawnSync(process.execPath, [ferryBin, 'ensure', id, '--store', 'site-b', '--json'], {
      encoding: 'utf8', timeout: FERRY_CLI_MS,
      env: { ...process.env, OS_CLOUD: '', OS_CLIENT_CONFIG_FILE: '/nonexistent', OS_TOKEN: token,
        FERRY_GLANCE_ENDPOINT: devcloud().glance.url, FERRY_FSID: devcloud().ceph['site-b'].fsid },
    });
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ image: id, copied: true, target: { fsid: devcloud().ceph['site-b'].fsid } });
  });

  it('ferry status CLI: JSON contract after a copy', async () => {
    const id = await image('status', 'site-a');
    expect(ferry(['ensure', id, '--store', 'site-b']).code).toBe(0);
    const result = ferry(['status', id]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json).toMatchObject({ image: id, disk_format: 'raw', importing: [], failed: [], lock: null });
    // Glance's order follows its locations, not the copy order (on PostgreSQL a later copy may come first)
    expect([...(result.json as { stores: string[] }).stores].sort()).toEqual(['site-a', 'site-b']);
  }, INTEGRATION_TEST_MS + 2 * FERRY_CLI_MS);
});
