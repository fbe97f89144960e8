// The dev cloud keeps a developer's state: a crashed service (fault kill) is reported by status and restarted alone by
// up, without touching the other services, the Ceph fsids, or any image and its data. Also the fault primitives
// the fault-matrix tests build on (age-task, rbd-leftover, rbd-remove), against the real services.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ceph, CEPH_MS, devcloud } from '../../helpers/devcloud.js';
import { deleteImage, imageTasks, readImage, tokenFor, uploadImage, waitUnlocked } from '../../helpers/glance-admin.js';
import { INTEGRATION_TEST_MS } from '../../helpers/spawn-budget.js';

const SERVICES = ['keystone', 'glance', 'postgres', 'placement', 'ceph-site-a-osd', 'ceph-site-b-osd', 'ceph-site-a-mon',
  'ceph-site-b-mon'] as const;
type ServiceName = (typeof SERVICES)[number];
const SITES = ['site-a', 'site-b'] as const;

/** One scripts/devcloud/{up,status,fault} run: up may start every service again. */
const SCRIPT_MS = 150_000;
function script(name: 'up' | 'status' | 'fault', args: readonly string[] = []): { code: number; out: string } {
  const result = spawnSync('bash', [join(process.cwd(), 'scripts/devcloud', name), ...args], {
    encoding: 'utf8', timeout: SCRIPT_MS, env: { ...process.env, FERRY_DEVCLOUD_DIR: devcloud().dir },
  });
  return { code: result.status ?? -1, out: `${result.stdout}${result.stderr}` };
}

function pids(): Record<ServiceName, number> {
  return Object.fromEntries(SERVICES.map((s) => [s, Number(readFileSync(join(devcloud().dir, 'pids', `${s}.pid`), 'utf8').trim())])) as Record<ServiceName, number>;
}

function fsids(): Record<string, string> {
  return Object.fromEntries(SITES.map((site) => {
    const result = ceph(site, 'ceph', ['fsid'], 'admin');
    expect(result.code, result.stderr).toBe(0);
    return [site, result.stdout.trim()];
  }));
}

/** md5 of the RBD snapshot Glance wrote, read straight from the cluster. */
function rbdMd5(site: 'site-a' | 'site-b', image: string): string {
  const result = spawnSync('bash', ['-c', 'set -o pipefail; timeout 60 rbd -c "$1" --id nova export --no-progress "images/$2@snap" - | md5sum',
    'rbd-md5', devcloud().ceph[site].conf, image], { encoding: 'utf8', timeout: CEPH_MS });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout.split(' ')[0] ?? '';
}

async function glanceMd5(id: string): Promise<string> {
  const response = await fetch(`${devcloud().glance.url}/v2/images/${id}/file`, { headers: { 'x-auth-token': await tokenFor() } });
  expect(response.status).toBe(200);
  return createHash('md5').update(Buffer.from(await response.arrayBuffer())).digest('hex');
}

interface Snapshot { checksum: unknown; stores: unknown; locations: string[] }
async function snapshot(id: string): Promise<Snapshot> {
  const image = await readImage(id);
  const locations = (image.locations as { url: string }[]).map((l) => l.url).sort();
  return { checksum: image.checksum, stores: String(image.stores).split(',').sort().join(','), locations };
}

let id = '';
let before: Snapshot;
let fsidsBefore: Record<string, string>;

beforeAll(async () => {
  expect(script('status').code, 'the dev cloud must be fully up before this file runs').toBe(0);
  id = await uploadImage({ name: 'it-devcloud-restart', store: 'site-a' });
  const copy = await fetch(`${devcloud().glance.url}/v2/images/${id}/import`, {
    method: 'POST', headers: { 'x-auth-token': await tokenFor(), 'content-type': 'application/json' },
    body: JSON.stringify({ method: { name: 'copy-image' }, stores: ['site-b'] }),
  });
  expect(copy.status).toBe(202);
  await waitUnlocked(id);
  before = await snapshot(id);
  expect(before.stores).toBe('site-a,site-b');
  fsidsBefore = fsids();
}, INTEGRATION_TEST_MS + SCRIPT_MS + 2 * CEPH_MS);

afterAll(async () => {
  // Leave the cloud as found, even when a test failed half-way.
  script('up');
  if (id) await deleteImage(id);
}, INTEGRATION_TEST_MS + SCRIPT_MS);

/** crashAndRestart's programs: kill, status, up, status; both fsids and both clusters' md5 (rbdMd5 is bounded as ceph()). */
const CRASH_AND_RESTART_MS = 4 * SCRIPT_MS + 4 * CEPH_MS;
/** Kill one service, see status name it, run up, and check that exactly it was restarted and nothing was lost. */
async function crashAndRestart(service: ServiceName): Promise<void> {
  const pidsBefore = pids();
  const kill = script('fault', ['kill', service]);
  expect(kill, kill.out).toMatchObject({ code: 0 });

  const status = script('status');
  expect(status.code).toBe(1);
  expect(status.out).toContain(`${service}: down (pid ${pidsBefore[service]} not running) — run scripts/devcloud/up to restart it`);
  for (const other of SERVICES.filter((s) => s !== service)) expect(status.out).not.toContain(`${other}: down`);

  const up = script('up');
  expect(up.code, up.out).toBe(0);
  expect(up.out).toContain(`${service}: down (pid ${pidsBefore[service]} not running): starting it`);
  expect(script('status').code).toBe(0);

  const pidsAfter = pids();
  expect(pidsAfter[service]).not.toBe(pidsBefore[service]);
  for (const other of SERVICES.filter((s) => s !== service)) expect(pidsAfter[other], other).toBe(pidsBefore[other]);

  expect(fsids()).toEqual(fsidsBefore);
  expect(SITES.map((site) => devcloud().ceph[site].fsid)).toEqual([fsidsBefore['site-a'], fsidsBefore['site-b']]);
  expect(await snapshot(id)).toEqual(before);
  for (const site of SITES) expect(rbdMd5(site, id), site).toBe(before.checksum);
  expect(await glanceMd5(id)).toBe(before.checksum);
}

describe('dev cloud restart keeps state', () => {
  it('devcloud: a killed glance-api is reported down and up restarts only it; fsids, image, locations and data stay', async () => {
    await crashAndRestart('glance');
  }, INTEGRATION_TEST_MS + CRASH_AND_RESTART_MS);

  it('devcloud: a killed bluestore OSD is restarted alone and its RBD images are still readable', async () => {
    await crashAndRestart('ceph-site-b-osd');
  }, INTEGRATION_TEST_MS + CRASH_AND_RESTART_MS);
});

describe('fault primitives', () => {
  it('devcloud: rbd-leftover makes a 4 MiB image without snapshot in the glance pool, rbd-remove deletes it', () => {
    const name = `it-leftover-${process.pid}`;
    expect(script('fault', ['rbd-leftover', 'site-b', name])).toMatchObject({ code: 0, out: '' });
    const info = ceph('site-b', 'rbd', ['info', '--format', 'json', `images/${name}`], 'glance');
    expect(info.code, info.stderr).toBe(0);
    expect(JSON.parse(info.stdout)).toMatchObject({ name, size: 4 * 1024 * 1024 });
    expect(ceph('site-b', 'rbd', ['snap', 'ls', `images/${name}`], 'glance').stdout.trim()).toBe('');

    const again = script('fault', ['rbd-leftover', 'site-b', name]);
    expect(again.code).toBe(1);
    expect(again.out).toContain(`images/${name} already exists`);

    expect(script('fault', ['rbd-remove', 'site-b', name])).toMatchObject({ code: 0, out: '' });
    expect(ceph('site-b', 'rbd', ['ls', 'images'], 'glance').stdout.split('\n')).not.toContain(name);
    const gone = script('fault', ['rbd-remove', 'site-b', name]);
    expect(gone.code).toBe(1);
    expect(gone.out).toContain(`there is no RBD image images/${name}`);
  }, 4 * SCRIPT_MS + 3 * CEPH_MS);

  it('devcloud: rbd-half-created leaves a name rbd info cannot open and rbd create cannot take; rbd-remove frees it', () => {
    const name = `it-half-created-${process.pid}`;
    expect(script('fault', ['rbd-half-created', 'site-b', name])).toMatchObject({ code: 0, out: '' });
    const info = ceph('site-b', 'rbd', ['info', `images/${name}`], 'glance');
    expect(info.code).toBe(2);
    expect(info.stderr).toContain(`error opening image ${name}: (2) No such file or directory`);
    expect(ceph('site-b', 'rbd', ['create', '--size', '4M', `images/${name}`], 'glance').code).toBe(17);
    expect(ceph('site-b', 'rbd', ['ls', 'images'], 'glance').stdout.split('\n')).toContain(name);

    expect(script('fault', ['rbd-remove', 'site-b', name])).toMatchObject({ code: 0, out: '' });
    expect(ceph('site-b', 'rbd', ['ls', 'images'], 'glance').stdout.split('\n')).not.toContain(name);
    expect(ceph('site-b', 'rbd', ['create', '--size', '4M', `images/${name}`], 'glance').code).toBe(0);
    expect(script('fault', ['rbd-remove', 'site-b', name])).toMatchObject({ code: 0, out: '' });
  }, 3 * SCRIPT_MS + 5 * CEPH_MS);

  it('devcloud: age-task moves a Glance task back by the given minutes in its database', async () => {
    const [task] = await imageTasks(id);
    if (!task) throw new Error('the copy in beforeAll left no task');
    const read = async (): Promise<{ updated_at: string; created_at: string }> => {
      const response = await fetch(`${devcloud().glance.url}/v2/tasks/${task.id}`, { headers: { 'x-auth-token': await tokenFor(), accept: 'application/json' } });
      return (await response.json()) as { updated_at: string; created_at: string };
    };
    const was = await read();
    const aged = script('fault', ['age-task', task.id, '61']);
    expect(aged.code, aged.out).toBe(0);
    const now = await read();
    const utc = (s: string): number => Date.parse(s.endsWith('Z') ? s : `${s}Z`);
    const minutes = (a: string, b: string): number => (utc(a) - utc(b)) / 60_000;
    expect(minutes(was.updated_at, now.updated_at)).toBeCloseTo(61, 3);
    expect(minutes(was.created_at, now.created_at)).toBeCloseTo(61, 3);

    const unknown = script('fault', ['age-task', '00000000-0000-0000-0000-000000000000', '61']);
    expect(unknown.code).toBe(1);
    expect(unknown.out).toContain('no Glance task with id 00000000-0000-0000-0000-000000000000');
  }, INTEGRATION_TEST_MS + 2 * SCRIPT_MS);
});
