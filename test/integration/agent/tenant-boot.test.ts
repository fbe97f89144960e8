// The agent acting for the booting user (docs/security.md, "Acting for the booting user"): a real `ferry agent` with
// ferry's least-privilege identity (role ferry and service on project ferry, the Glance path's access rules), tenants'
// tokens in X-Auth-Token, against the dev cloud's Glance 25 with ferry-policy.yaml.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAgent, type AgentAnswer } from '../../../src/agent/agent-client.js';
import { ceph, cephAll, CEPH_MS, devcloud } from '../../helpers/devcloud.js';
import { deleteImage, imageTasks, readImage, tokenFor, uploadImage, waitUnlocked } from '../../helpers/glance-admin.js';
import { INTEGRATION_TEST_MS } from '../../helpers/spawn-budget.js';
import { INSTANCE_SNAPSHOT_MS, instanceSnapshot as snapshotImage, removeSnapshotDisks, shareImage } from '../../helpers/tenant-images.js';
import { AGENT_START_MS, startAgent, type AgentProcess } from './agent-process.js';
import { novaClone, novaCloneMs, novaConf, patchedNova } from './nova-tree.js';

const created: { id: string; as: 'admin' | 'tenant-a' | 'tenant-b' }[] = [];
const disks: string[] = [];
const clones: string[] = [];
let agent: AgentProcess;
let work: string;
let nova: ReturnType<typeof patchedNova>;
const tokens: Record<'tenant-a' | 'tenant-b', string> = { 'tenant-a': '', 'tenant-b': '' };

const ensureAs = (image: string, token: string | undefined): Promise<AgentAnswer> =>
  callAgent(agent.socket, { method: 'POST', path: '/v1/ensure', body: { image },
    ...(token === undefined ? {} : { headers: { 'x-auth-token': token } }) });

/** A tenant-a member's private image, uploaded to site-a. */
async function privateImage(name: string): Promise<string> {
  const id = await uploadImage({ name: `it-tenant-${name}`, store: 'site-a', sizeBytes: 8 * 1024 * 1024, as: 'tenant-a', visibility: 'private' });
  created.push({ id, as: 'tenant-a' });
  return id;
}

/** The operator's public image (project admin), uploaded to site-a. */
async function publicImage(name: string): Promise<string> {
  const id = await uploadImage({ name: `it-tenant-${name}`, store: 'site-a', sizeBytes: 8 * 1024 * 1024, as: 'admin', visibility: 'public' });
  created.push({ id, as: 'admin' });
  return id;
}

/** Another tenant's (tenant-b's) community image: anyone may boot it, nobody but tenant-b owns it. */
async function communityImage(name: string): Promise<string> {
  const id = await uploadImage({ name: `it-tenant-${name}`, store: 'site-a', sizeBytes: 8 * 1024 * 1024, as: 'tenant-b', visibility: 'community' });
  created.push({ id, as: 'tenant-b' });
  return id;
}

/** tenant-a's project id, as Glance records an image's owner. */
async function tenantAProject(): Promise<string> {
  const probe = await privateImage('project-probe');
  return String((await readImage(probe)).owner);
}

/** tenant-b's image shared with tenant-a (Glance image members), which tenant-a accepted or left pending. */
async function sharedImage(name: string, status: 'accepted' | 'pending'): Promise<string> {
  const id = await uploadImage({ name: `it-tenant-${name}`, store: 'site-a', sizeBytes: 8 * 1024 * 1024, as: 'tenant-b', visibility: 'shared' });
  created.push({ id, as: 'tenant-b' });
  await shareImage(id, await tenantAProject(), { owner: tokens['tenant-b'], member: tokens['tenant-a'] }, status);
  return id;
}

/** An instance snapshot of tenant-a (test/helpers/tenant-images.ts), its disk in site-a's vms pool. */
async function instanceSnapshot(name: string): Promise<string> {
  const { id, disk } = await snapshotImage(`it-tenant-${name}`, tokens['tenant-a']);
  created.push({ id, as: 'tenant-a' });
  disks.push(disk);
  return id;
}

/** The answer is a clone target in site-b's images pool, and that snapshot is there to clone. */
function expectClonableInSiteB(answer: AgentAnswer, id: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const fsid = devcloud().ceph['site-b'].fsid;
  expect(answer.body).toMatchObject({ image: id, store: 'site-b', target: { fsid, pool: 'images', image: id, snapshot: 'snap' } });
  const info = ceph('site-b', 'rbd', ['info', `images/${id}@snap`]);
  expect(info.code, info.stderr).toBe(0);
}

/** The copy-image tasks Glance ran for site-b (admin sees every project's tasks). */
async function copiesToSiteB(id: string): Promise<number> {
  return (await imageTasks(id)).filter((task) => task.input.backend?.includes('site-b')).length;
}

beforeAll(async () => {
  tokens['tenant-a'] = await tokenFor('tenant-a');
  tokens['tenant-b'] = await tokenFor('tenant-b');
  agent = await startAgent();
  work = mkdtempSync(join(tmpdir(), 'ferry-tenant-boot-'));
  nova = patchedNova();
}, AGENT_START_MS + 60_000);

afterAll(async () => {
  await agent.stop();
  nova.cleanup();
  // Every clone removed in one program, every snapshot disk in another.
  cephAll('site-b', clones.map((clone) => ['rbd', 'rm', '--no-progress', clone] as const));
  rmSync(work, { recursive: true, force: true });
  for (const { id, as } of created) {
    await waitUnlocked(id, 30_000);
    await deleteImage(id, as);
  }
  removeSnapshotDisks(disks);
}, INTEGRATION_TEST_MS + 2 * CEPH_MS);

describe('the agent acting for the booting user', () => {
  it('a tenant\'s private image: invisible to ferry\'s own identity (404 without a token); with the member\'s token copied to site-b, the clone target returned', async () => {
    const id = await privateImage('private');
    const alone = await ensureAs(id, undefined);
    expect(alone.status).toBe(404);
    expect(alone.body).toMatchObject({ error: { code: 'FERRY_IMAGE_NOT_FOUND' } });
    const answer = await ensureAs(id, tokens['tenant-a']);
    expectClonableInSiteB(answer, id);
    expect(answer.body).toMatchObject({ copied: true, import_requests: 1 });
    expect(agent.stderr()).not.toContain(tokens['tenant-a']);
  }, INTEGRATION_TEST_MS + CEPH_MS);

  it('another tenant\'s token for that private image → FERRY_IMAGE_NOT_FOUND, and nothing copied', async () => {
    const id = await privateImage('other-tenant');
    const answer = await ensureAs(id, tokens['tenant-b']);
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ error: { code: 'FERRY_IMAGE_NOT_FOUND' } });
    expect(await copiesToSiteB(id)).toBe(0);
    expect(await readImage(id)).toMatchObject({ stores: 'site-a' });
    // Once copied for its owner, the other tenant still gets no clone source of it: the look comes first, every time.
    expectClonableInSiteB(await ensureAs(id, tokens['tenant-a']), id);
    const again = await ensureAs(id, tokens['tenant-b']);
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ error: { code: 'FERRY_IMAGE_NOT_FOUND' } });
    expect(agent.stderr()).not.toContain(tokens['tenant-b']);
  }, INTEGRATION_TEST_MS + CEPH_MS);

  it('an instance snapshot (an image made from a clone in vms) with its tenant\'s token → copied to site-b, the clone target returned', async () => {
    const id = await instanceSnapshot('snapshot');
    const answer = await ensureAs(id, tokens['tenant-a']);
    expectClonableInSiteB(answer, id);
    expect(answer.body).toMatchObject({ copied: true });
  }, INTEGRATION_TEST_MS + INSTANCE_SNAPSHOT_MS + CEPH_MS);

  it('two tenants ask for one public image at once → one copy (one import request), both answered with the same target', async () => {
    const id = await uploadImage({ name: 'it-tenant-public', store: 'site-a', sizeBytes: 32 * 1024 * 1024 });
    created.push({ id, as: 'admin' });
    const answers = await Promise.all([ensureAs(id, tokens['tenant-a']), ensureAs(id, tokens['tenant-b'])]);
    for (const answer of answers) expectClonableInSiteB(answer, id);
    // One shared copy: every request on it gets the very same document (its seconds, reads and import requests).
    expect(answers[0]?.body).toEqual(answers[1]?.body);
    expect(answers[0]?.body).toMatchObject({ copied: true, import_requests: 1 });
    expect(await copiesToSiteB(id)).toBe(1);
  }, INTEGRATION_TEST_MS + 2 * CEPH_MS);

  it('a token Keystone never issued → FERRY_AUTH_FAILED saying the user\'s token was refused (ferry\'s own is fine), nothing copied', async () => {
    const id = await privateImage('bad-token');
    const answer = await ensureAs(id, `gAAAAAB${randomBytes(24).toString('hex')}`);
    expect(answer.status).toBe(502);
    expect(answer.body).toMatchObject({ error: { code: 'FERRY_AUTH_FAILED', message: expect.stringContaining('refused the token of the user ferry acts for') as unknown,
      details: { refused: 'user', status: 401 } } });
    expect(await copiesToSiteB(id)).toBe(0);
  }, 120_000);

  // nova 26's real Rbd.clone() with the ferry patch (it sends the booting user's token) and the tenant's token: a
  // copy-on-write clone whose parent is the site-b copy the agent made for that user.
  it.each([
    ['a private image', privateImage],
    ['an instance snapshot', instanceSnapshot],
    ['the operator\'s public image', publicImage],
    ['another tenant\'s community image', communityImage],
    ['another tenant\'s image shared with it, accepted', (name: string) => sharedImage(name, 'accepted')],
    ['another tenant\'s image shared with it, not accepted', (name: string) => sharedImage(name, 'pending')],
  ] as const)('nova 26\'s Rbd.clone() of %s with its tenant\'s token → a clone whose parent is in site-b\'s images pool', async (kind, make) => {
    const id = await make(`nova-${kind.replace(/[^a-z]+/g, '-')}`);
    const name = `it-tenant-boot-${id.slice(0, 8)}`;
    clones.push(`vms/${name}`);
    const result = await novaClone({ root: nova.root, conf: novaConf(work, 'site-b', { socket: agent.socket }), image: id, name,
      token: tokens['tenant-a'], socket: agent.socket });
    expect(result, JSON.stringify(result)).toMatchObject({ ok: true, patched: true, client: true, warnings: [] });
    const info = ceph('site-b', 'rbd', ['info', `vms/${name}`]);
    expect(info.code, info.stderr).toBe(0);
    expect(info.stdout).toContain(`parent: images/${id}@snap`);
    console.log(`nova 26 Rbd.clone() of ${kind} for tenant-a: ${result.seconds} s`);
    // An instance snapshot's making (the other kinds spawn nothing), nova's clone, the clone's read.
  }, INTEGRATION_TEST_MS + INSTANCE_SNAPSHOT_MS + novaCloneMs() + CEPH_MS);

  // nova reads the image with the user's token before it asks anyone (Rbd.clone: IMAGE_API.get): stock nova's failure.
  it('nova 26\'s Rbd.clone() of tenant-a\'s private image with tenant-b\'s token → ImageNotFound, as stock nova; nothing copied or cloned', async () => {
    const id = await privateImage('nova-other-tenant');
    const name = `it-tenant-boot-${id.slice(0, 8)}`;
    clones.push(`vms/${name}`);
    const result = await novaClone({ root: nova.root, conf: novaConf(work, 'site-b', { socket: agent.socket }), image: id, name,
      token: tokens['tenant-b'], socket: agent.socket });
    expect(result).toMatchObject({ ok: false, error: 'ImageNotFound' });
    expect(await copiesToSiteB(id)).toBe(0);
    expect(ceph('site-b', 'rbd', ['info', `vms/${name}`]).code).not.toBe(0);
  }, INTEGRATION_TEST_MS + novaCloneMs() + CEPH_MS);
});
