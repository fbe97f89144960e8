// Least privilege, proven against the real services (issue 25). ferry's own identity — the Keystone role ferry with
// packaging/glance/ferry-policy.yaml, application credentials with access rules, the cephx users client.ferry and
// client.ferry-transfer (docs/security.md) — runs ferry's paths (here: sync; ensure, join, the agent, prewarm, stores
// and the direct transfer run as it in their own test files), and Glance and Ceph refuse it everything else, with the
// bodies they answer. The opt-ins of packaging/glance/opt-in/ are tested off and on; nova's own copy (the fallback
// when ferry is away) runs nova's real code with a member's token.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cephAll, CEPH_MS, cloudEnv, devcloud, FERRY, markReached, type CephCommand } from '../../helpers/devcloud.js';
import { FAULT_MS, faults, lockedBy, rawImport, until } from '../../helpers/devcloud-faults.js';
import { appcredToken, deleteImage, glanceRequest, imageTasks, readImage, tokenFor, uploadImage, waitUnlocked } from '../../helpers/glance-admin.js';
import { CLEAR_GLANCE_RULES_MS, clearGlanceRules, OPT_IN, shippedPolicy, writeGlanceRules } from '../../helpers/glance-policy.js';
import { INTEGRATION_TEST_MS } from '../../helpers/spawn-budget.js';
import { novaClone, novaCloneMs, novaConf } from '../agent/nova-tree.js';

const created: { id: string; as: 'admin' | 'demo' }[] = [];
// The files this test puts into Glance's policy directory, one per rule it changes: glance-api reads the whole
// directory again on a change (in name order, a later file winning) and never forgets a rule (glance-policy.ts), so a
// rule is changed and written back in one file, and the directory is emptied at the end with a restart of glance-api.
const POLICY_FILES = { copyImage: 'copy-image.yaml', default: 'default.yaml', privateImages: 'private-images.yaml' } as const;
const SHIPPED_COPY_RULE = '"copy_image": "role:admin or role:ferry or service_roles:ferry"\n';
const clones: string[] = [];
let work: string;

/** Glance 25's refusals of the last location, whatever the policy (recorded against the dev cloud). */
const LAST_LOCATION_PATCH = { status: 403, body: { message: 'Access was denied to this resource.<br /><br />\nCannot remove last location in the image.\n\n',
  code: '403 Forbidden', title: 'Forbidden' } };
const LAST_LOCATION_DELETE = { status: 403, body: { message: 'Cannot delete image data from the only store containing it. Consider deleting the image instead.<br /><br />\n\n\n',
  code: '403 Forbidden', title: 'Forbidden' } };

async function image(name: string, options: { store?: string; as?: 'admin' | 'demo'; visibility?: 'private' | 'shared' } = {}): Promise<string> {
  const as = options.as ?? 'admin';
  const id = await uploadImage({ name: `it-least-privilege-${name}`, store: options.store ?? 'site-a', as, sizeBytes: 2 * 1024 * 1024,
    ...(options.visibility === undefined ? {} : { visibility: options.visibility }) });
  created.push({ id, as });
  return id;
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'ferry-it-least-privilege-'));
  // Rules an interrupted run left behind would change what this file sees: start from the shipped policy alone.
  clearGlanceRules({ onlyIfAny: true });
}, INTEGRATION_TEST_MS + CLEAR_GLANCE_RULES_MS);

afterAll(async () => {
  clearGlanceRules();
  markReached('glance');
  // Every clone removed in one program.
  cephAll('site-b', clones.map((name) => ['rbd', 'rm', '--no-progress', name] as const));
  for (const { id, as } of created) {
    await waitUnlocked(id, 30_000);
    await deleteImage(id, as);
  }
  rmSync(work, { recursive: true, force: true });
}, INTEGRATION_TEST_MS + CLEAR_GLANCE_RULES_MS + CEPH_MS);

/** Glance's error body: the message with the `<br />` tail its webob pages carry. */
const refusal = (status: 403 | 404, message: string): { status: number; body: unknown } => ({
  status, body: { message: `${message}<br /><br />\n\n\n`, code: status === 403 ? '403 Forbidden' : '404 Not Found', title: status === 403 ? 'Forbidden' : 'Not Found' },
});
const notAuthorized = (rule: string): { status: number; body: unknown } => refusal(403, `You are not authorized to complete ${rule} action.`);

/**
 * What a refused request must leave as it was. The locations (and `stores`, in their order) as a set: Glance 25 loads an
 * image's locations unordered (glance/db/sqlalchemy/models.py: a backref without order_by) and rewrites their rows at
 * every save of the image, so PostgreSQL may list them in another order with nothing refused having changed (seen once
 * in CI rehearsal 11: "site-a,site-b", then "site-b,site-a").
 */
async function unchanged(id: string): Promise<Record<string, unknown>> {
  const { checksum, stores, visibility, status, locations } = await readImage(id);
  const byUrl = (a: { url: string }, b: { url: string }): number => a.url.localeCompare(b.url);
  return {
    checksum, visibility, status,
    stores: typeof stores === 'string' ? stores.split(',').sort() : stores,
    locations: Array.isArray(locations) ? [...(locations as { url: string }[])].sort(byUrl) : locations,
  };
}

/** One ferry() run (an ensure or a sync of a 2 MiB image, or a refusal), killed after that. */
const FERRY_MS = 120_000;
/** `bin/ferry ARGS --json` as the identity given, site-b's fsid. */
function ferry(args: readonly string[], cloud: string = FERRY.cloud): { code: number; json: Record<string, unknown>; stderr: string } {
  const result = spawnSync(process.execPath, [`${process.cwd()}/bin/ferry`, ...args, '--json'], {
    encoding: 'utf8', timeout: FERRY_MS, env: { ...process.env, ...cloudEnv(cloud), FERRY_FSID: devcloud().ceph['site-b'].fsid },
  });
  return { code: result.status ?? -1, json: JSON.parse(result.stdout || '{}') as Record<string, unknown>, stderr: result.stderr };
}

describe('ferry\'s own identity in Keystone', () => {
  it('keystone: ferry\'s tokens carry the role ferry and reader (implied), the compute node\'s also service (its token as a service token: acting for the booting user), the transfer\'s also ferry-transfer, in project ferry or the owning project', async () => {
    const facts = devcloud();
    for (const [user, project, roles] of [['ferry', 'ferry', ['ferry', 'reader', 'service']], ['ferry-transfer', 'admin', ['ferry', 'ferry-transfer', 'reader']]] as const) {
      const token = await tokenFor(user);
      const response = await fetch(`${facts.keystone.url}/auth/tokens`, { headers: { 'x-auth-token': token, 'x-subject-token': token } });
      const body = (await response.json()) as { token: { roles: { name: string }[]; project: { name: string } } };
      expect(body.token.roles.map((r) => r.name).sort()).toEqual(roles);
      expect(body.token.project.name).toBe(project);
    }
  });

  it('keystone: the compute node\'s user cannot reach the images\' project (two users, not one user with two projects) → 401', async () => {
    const facts = devcloud();
    const ferry = facts.users.ferry;
    const response = await fetch(`${facts.keystone.url}/auth/tokens`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ auth: { identity: { methods: ['password'], password: { user: { name: ferry.name, domain: { id: 'default' }, password: ferry.password } } },
        scope: { project: { name: facts.users['ferry-transfer'].project, domain: { id: 'default' } } } } }),
    });
    expect(response.status).toBe(401);
  });
});

describe('ferry\'s paths as its own identity', () => {
  it('sync (the Glance path, as a compute node\'s agent: project ferry, application credential with access rules): copies the drift, then finds none', async () => {
    const id = await image('sync');
    const policy = join(work, 'sync.yaml');
    writeFileSync(policy, `version: 1\nplacements:\n  - name: least privilege\n    images:\n      ids: [${id}]\n    stores: [site-b]\n`);
    const first = ferry(['sync', '--policy', policy]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json).toMatchObject({ drift_before: 1, drift_after: 0, converged: true, result: { counts: { copied: 1, failed: 0 } } });
    const second = ferry(['sync', '--policy', policy]);
    expect(second.json).toMatchObject({ drift_before: 0, result: { requests: { import_requests: 0 } } });
    expect(String((await readImage(id)).stores).split(',').sort()).toEqual(['site-a', 'site-b']);
  }, INTEGRATION_TEST_MS + 2 * FERRY_MS);

  it('the grant is what lets ferry copy: with Glance\'s stock copy_image (admin only) the same ensure is refused, 11 FERRY_FORBIDDEN, nothing locked', async () => {
    const id = await image('stock-copy-rule');
    writeGlanceRules(POLICY_FILES.copyImage, '"copy_image": "role:admin"\n');
    try {
      const refused = ferry(['ensure', id, '--store', 'site-b']);
      expect(refused.code, refused.stderr).toBe(11);
      expect(refused.json).toMatchObject({ error: { code: 'FERRY_FORBIDDEN', hint: expect.stringContaining('ferry-policy.yaml') as unknown } });
    } finally {
      writeGlanceRules(POLICY_FILES.copyImage, SHIPPED_COPY_RULE);
    }
    expect((await waitUnlocked(id, 1_000)).os_glance_import_task).toBeUndefined();
    expect(ferry(['ensure', id, '--store', 'site-b'])).toMatchObject({ code: 0, json: { copied: true } });
  }, INTEGRATION_TEST_MS + 2 * FERRY_MS);

  it('another project\'s import lock (a task ferry\'s project cannot read): ferry asks Glance once, is refused, waits; stuck (32, unseen-task) after --stale-lock-after; aged past 60 min, the next run takes it over', async () => {
    const id = await image('unseen-lock');
    // Admin's import naming a store twice: Glance fails the task and keeps the lock (glance-multistore.md §11).
    expect((await rawImport(id, ['site-b', 'site-b'])).status).toBe(202);
    const task = await lockedBy(id);
    await until('the duplicate-store task to end', async () => {
      const t = (await imageTasks(id)).find((x) => x.id === task);
      return t && t.status !== 'processing' && t.status !== 'pending' ? t : undefined;
    }, 20_000);
    const started = Date.now();
    const stuck = ferry(['ensure', id, '--store', 'site-b', '--stale-lock-after', '30s', '--timeout', '110']);
    expect(stuck.code, stuck.stderr).toBe(32);
    expect(stuck.json).toMatchObject({ error: { code: 'FERRY_COPY_STUCK', hint: expect.stringContaining('cannot see') as unknown,
      details: { task_id: task, cause: 'unseen-task', expired: false } } });
    // after the 30 s rule, not at the 110 s deadline
    expect(Date.now() - started).toBeLessThan(90_000);
    // Glance did not release the lock for ferry: the same task still holds it
    expect((await readImage(id)).os_glance_import_task).toBe(task);
    faults.ageTask(task, 61);
    // Glance busts it, then cannot clean the old task's progress as ferry (not the image's owner) and leaves the lock to a
    // task it never stored (403 "You do not own this image"); ferry asks again at once, which busts that one.
    const again = ferry(['ensure', id, '--store', 'site-b', '--timeout', '110']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json).toMatchObject({ image: id, copied: true, took_over: task, import_requests: 2 });
  }, INTEGRATION_TEST_MS + 2 * FERRY_MS + FAULT_MS);
});

describe('Glance refuses ferry\'s role what ferry must never do (ferry-policy.yaml installed)', () => {
  // Password tokens: what the policy refuses (the application credentials' access rules would stop most of these
  // before Glance reads its policy; see below).
  it('in the project that owns the image (the direct transfer\'s scope): delete, upload, publish, share with all, drop a location, delete it from a store → 403 each, nothing changed', async () => {
    const id = await image('owned', { visibility: 'shared' });
    const before = await unchanged(id);
    const token = await tokenFor('ferry-transfer');
    expect(await glanceRequest(token, 'DELETE', `/v2/images/${id}`)).toEqual(notAuthorized('delete_image'));
    expect(await glanceRequest(token, 'PUT', `/v2/images/${id}/file`, 'not the image')).toEqual(notAuthorized('upload_image'));
    expect(await glanceRequest(token, 'PATCH', `/v2/images/${id}`, [{ op: 'replace', path: '/visibility', value: 'public' }])).toEqual(notAuthorized('publicize_image'));
    expect(await glanceRequest(token, 'PATCH', `/v2/images/${id}`, [{ op: 'replace', path: '/visibility', value: 'community' }])).toEqual(notAuthorized('communitize_image'));
    // delete_image_location is the role ferry-evict's (ferry evict, docs/evict.md), not the transfer's role ferry:
    // Glance 25 governs both removals by that one rule.
    expect(await glanceRequest(token, 'PATCH', `/v2/images/${id}`, [{ op: 'remove', path: '/locations/0' }])).toEqual(notAuthorized('delete_image_location'));
    expect(await glanceRequest(token, 'DELETE', `/v2/stores/site-a/${id}`)).toEqual(notAuthorized('delete_image_location'));
    expect(await glanceRequest(token, 'GET', `/v2/images/${id}/file`)).toMatchObject(notAuthorized('download_image'));
    expect(await unchanged(id)).toEqual(before);
  });

  it('as ferry evict (role ferry-evict in the owning project): delete, upload, publish → 403 each; drop its last location, delete it from its only store → 403 (the last location), nothing changed', async () => {
    const id = await image('owned-evict', { visibility: 'shared' });
    const before = await unchanged(id);
    const token = await tokenFor('ferry-evict');
    expect(await glanceRequest(token, 'DELETE', `/v2/images/${id}`)).toEqual(notAuthorized('delete_image'));
    expect(await glanceRequest(token, 'PUT', `/v2/images/${id}/file`, 'not the image')).toEqual(notAuthorized('upload_image'));
    expect(await glanceRequest(token, 'PATCH', `/v2/images/${id}`, [{ op: 'replace', path: '/visibility', value: 'public' }])).toEqual(notAuthorized('publicize_image'));
    // Granted delete_image_location, and still Glance refuses the last location whatever the policy.
    expect(await glanceRequest(token, 'PATCH', `/v2/images/${id}`, [{ op: 'remove', path: '/locations/0' }])).toEqual(LAST_LOCATION_PATCH);
    expect(await glanceRequest(token, 'DELETE', `/v2/stores/site-a/${id}`)).toEqual(LAST_LOCATION_DELETE);
    expect(await glanceRequest(token, 'GET', `/v2/images/${id}/file`)).toMatchObject(notAuthorized('download_image'));
    expect(await unchanged(id)).toEqual(before);
  });

  // Issue 34: set_image_location was granted to the role ferry in the owning project, so every identity holding it
  // there (ferry-evict implies ferry; an agent's user given the role on the images' project) could add a location at
  // any index — /locations/0 included — pointing at any RBD image Glance's store user reads. Now the role
  // ferry-transfer's alone (the direct transfer's registration).
  it('adding a location in the owning project is the role ferry-transfer\'s alone: ferry evict (role ferry-evict, which implies ferry) → 403 set_image_location, nothing changed', async () => {
    const id = await image('owned-evict-location', { visibility: 'shared' });
    const before = await unchanged(id);
    const location = (before.locations as { url: string; metadata: { store: string } }[])[0];
    const token = await tokenFor('ferry-evict');
    expect(await glanceRequest(token, 'PATCH', `/v2/images/${id}`, [{ op: 'add', path: '/locations/0', value: location }])).toEqual(notAuthorized('set_image_location'));
    expect(await glanceRequest(token, 'PATCH', `/v2/images/${id}`, [{ op: 'add', path: '/locations/-', value: location }])).toEqual(notAuthorized('set_image_location'));
    expect(await unchanged(id)).toEqual(before);
  });

  it('on the operator\'s public image, as a compute node (project ferry): delete, upload, make private, drop or add a location, delete from a store → 403 each, nothing changed', async () => {
    const id = await image('public');
    const before = await unchanged(id);
    const token = await tokenFor('ferry');
    const location = (before.locations as { url: string; metadata: { store: string } }[])[0];
    expect(await glanceRequest(token, 'DELETE', `/v2/images/${id}`)).toEqual(notAuthorized('delete_image'));
    expect(await glanceRequest(token, 'PUT', `/v2/images/${id}/file`, 'not the image')).toEqual(notAuthorized('upload_image'));
    expect(await glanceRequest(token, 'PATCH', `/v2/images/${id}`, [{ op: 'replace', path: '/visibility', value: 'private' }])).toEqual(notAuthorized('modify_image'));
    expect(await glanceRequest(token, 'PATCH', `/v2/images/${id}`, [{ op: 'remove', path: '/locations/0' }])).toEqual(notAuthorized('delete_image_location'));
    // A compute node never registers a location: it could point an image at other bytes for every host of the site.
    expect(await glanceRequest(token, 'PATCH', `/v2/images/${id}`, [{ op: 'add', path: '/locations/-', value: location }])).toEqual(notAuthorized('set_image_location'));
    expect(await glanceRequest(token, 'DELETE', `/v2/stores/site-a/${id}`)).toEqual(notAuthorized('get_image_location'));
    expect(await unchanged(id)).toEqual(before);
  });

  it('a private image of another project: not found for both of ferry\'s scopes, read or copy (the default; opt-in below)', async () => {
    const id = await image('demo-private', { as: 'demo', visibility: 'private' });
    for (const user of ['ferry', 'ferry-transfer'] as const) {
      const token = await tokenFor(user);
      expect(await glanceRequest(token, 'GET', `/v2/images/${id}`)).toEqual(refusal(404, `No image found with ID ${id}`));
      expect(await glanceRequest(token, 'POST', `/v2/images/${id}/import`, { method: { name: 'copy-image' }, stores: ['site-b'] }))
        .toEqual(refusal(404, `No image found with ID ${id}`));
    }
    expect(ferry(['ensure', id, '--store', 'site-b'])).toMatchObject({ code: 20, json: { error: { code: 'FERRY_IMAGE_NOT_FOUND' } } });
  }, INTEGRATION_TEST_MS + FERRY_MS);

  it('application credentials: the access rules refuse any other call (401 before Glance\'s policy); the compute node\'s and the evicting host\'s may not PATCH at all', async () => {
    const id = await image('appcred');
    const before = await unchanged(id);
    const agent = await appcredToken('ferry');
    const transfer = await appcredToken('ferry-transfer');
    const evict = await appcredToken('ferry-evict');
    const denied = { status: 401, body: expect.objectContaining({ code: '401 Unauthorized' }) as unknown };
    expect(await glanceRequest(agent, 'GET', `/v2/images/${id}`)).toMatchObject({ status: 200 });
    expect(await glanceRequest(evict, 'GET', `/v2/images/${id}`)).toMatchObject({ status: 200 });
    for (const token of [agent, transfer, evict]) {
      expect(await glanceRequest(token, 'DELETE', `/v2/images/${id}`)).toEqual(denied);
      expect(await glanceRequest(token, 'PUT', `/v2/images/${id}/file`, 'not the image')).toEqual(denied);
      expect(await glanceRequest(token, 'GET', `/v2/images/${id}/file`)).toEqual(denied);
    }
    for (const token of [agent, transfer]) expect(await glanceRequest(token, 'DELETE', `/v2/stores/site-a/${id}`)).toEqual(denied);
    // The evict credential may ask (its one write): Glance still refuses the image's last location.
    expect(await glanceRequest(evict, 'DELETE', `/v2/stores/site-a/${id}`)).toEqual(LAST_LOCATION_DELETE);
    for (const token of [agent, evict]) {
      expect(await glanceRequest(token, 'PATCH', `/v2/images/${id}`, [{ op: 'replace', path: '/visibility', value: 'private' }])).toEqual(denied);
    }
    expect(await glanceRequest(evict, 'PATCH', `/v2/images/${id}`, [{ op: 'remove', path: '/locations/0' }])).toEqual(denied);
    // The transfer's credential may PATCH (the registration): Glance's policy refuses all but adding a location.
    expect(await glanceRequest(transfer, 'PATCH', `/v2/images/${id}`, [{ op: 'remove', path: '/locations/0' }])).toEqual(notAuthorized('delete_image_location'));
    expect(await unchanged(id)).toEqual(before);
  });

  it('the policy\'s "default": "not role:ferry" is what keeps the owning project\'s ferry token from deleting (without it, in Zed\'s legacy mode, it may)', async () => {
    const id = await image('default-rule', { visibility: 'shared' });
    const token = await tokenFor('ferry-transfer');
    writeGlanceRules(POLICY_FILES.default, '"default": ""\n');
    try {
      const answer = await glanceRequest(token, 'DELETE', `/v2/images/${id}`);
      // With enforce_new_defaults the legacy fallback is gone anyway: the rule matters in Zed's default mode.
      expect(answer).toEqual(devcloud().ferry.glancePolicy.enforceNewDefaults ? notAuthorized('delete_image') : { status: 204, body: undefined });
    } finally {
      // Glance never forgets a rule it read: write the shipped value back, exactly.
      writeGlanceRules(POLICY_FILES.default, '"default": "not role:ferry"\n');
    }
    expect(await glanceRequest(await tokenFor('ferry-transfer'), 'DELETE', `/v2/images/${id}`))
      .toEqual(devcloud().ferry.glancePolicy.enforceNewDefaults ? notAuthorized('delete_image') : refusal(404, `Failed to find image ${id} to delete`));
  });
});

describe('nova\'s own copy when ferry is away (stock nova 26, Rbd.clone with a member\'s token)', () => {
  /** nova's real, unpatched image backend cloning IMAGE into site-b's vms pool, asking Glance to copy it to site-b first. */
  async function novaBoots(id: string, label: string): Promise<Awaited<ReturnType<typeof novaClone>>> {
    const conf = novaConf(work, 'site-b');
    writeFileSync(conf, '\n[libvirt]\nimages_rbd_glance_copy_poll_interval = 1\n', { flag: 'a' });
    const name = `it-least-privilege-nova-${label}-${id.slice(0, 8)}`;
    clones.push(`vms/${name}`);
    return novaClone({ root: '/usr/lib/python3/dist-packages', conf, image: id, name, token: await tokenFor('demo'), socket: '', withoutClient: true });
  }

  it('stock copy_image (admin and ferry only): the member\'s boot fails with ImageNotAuthorized, nothing copied', async () => {
    const id = await image('nova-stock');
    const result = await novaBoots(id, 'stock');
    expect(result).toMatchObject({ ok: false, error: 'ImageNotAuthorized', patched: false });
    expect(String((await readImage(id)).stores)).toBe('site-a');
  }, INTEGRATION_TEST_MS + novaCloneMs());

  it('with packaging/glance/opt-in/nova-fallback.yaml: the member\'s boot copies the public image and its own private one, and clones from site-b', async () => {
    const shared = await image('nova-opt-in-public');
    const own = await image('nova-opt-in-own', { as: 'demo', visibility: 'private' });
    writeGlanceRules(POLICY_FILES.copyImage, shippedPolicy(OPT_IN.novaFallback));
    try {
      for (const [id, label] of [[shared, 'public'], [own, 'own']] as const) {
        const result = await novaBoots(id, label);
        expect(result, JSON.stringify(result)).toMatchObject({ ok: true, patched: false });
        const [info] = cephAll('site-b', [['rbd', 'info', `vms/it-least-privilege-nova-${label}-${id.slice(0, 8)}`]]);
        expect(info?.stdout).toContain(`parent: images/${id}@snap`);
      }
      // The member still may not copy what it cannot see: another project's private image stays not found.
      const hidden = await image('nova-opt-in-hidden', { visibility: 'private' });
      expect(await glanceRequest(await tokenFor('demo'), 'POST', `/v2/images/${hidden}/import`, { method: { name: 'copy-image' }, stores: ['site-b'] }))
        .toEqual(refusal(404, `No image found with ID ${hidden}`));
    } finally {
      writeGlanceRules(POLICY_FILES.copyImage, SHIPPED_COPY_RULE);
    }
    // Back to the shipped rule: refused again.
    expect(await glanceRequest(await tokenFor('demo'), 'POST', `/v2/images/${shared}/import`, { method: { name: 'copy-image' }, stores: ['site-c'] }))
      .toEqual(notAuthorized('copy_image'));
  }, INTEGRATION_TEST_MS + 2 * (novaCloneMs() + CEPH_MS));
});

describe('opt-in: other projects\' private images (packaging/glance/opt-in/private-images.yaml)', () => {
  // get_image and context_is_admin have no shipped value to write back: glance-api forgets them by the restart at the end.
  it('ferry reads and copies a tenant\'s private image; delete, upload, download, visibility and locations stay refused', async () => {
    const id = await image('opt-in-private', { as: 'demo', visibility: 'private' });
    writeGlanceRules(POLICY_FILES.privateImages, shippedPolicy(OPT_IN.privateImages));
    const token = await tokenFor('ferry');
    expect(await glanceRequest(token, 'GET', `/v2/images/${id}`)).toMatchObject({ status: 200, body: { id, visibility: 'private' } });
    const run = ferry(['ensure', id, '--store', 'site-b']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json).toMatchObject({ image: id, copied: true, target: { fsid: devcloud().ceph['site-b'].fsid } });
    const before = await unchanged(id);
    const location = (before.locations as { url: string }[])[0];
    expect(await glanceRequest(token, 'DELETE', `/v2/images/${id}`)).toEqual(notAuthorized('delete_image'));
    expect(await glanceRequest(token, 'PUT', `/v2/images/${id}/file`, 'not the image')).toEqual(notAuthorized('upload_image'));
    expect(await glanceRequest(token, 'GET', `/v2/images/${id}/file`)).toMatchObject(notAuthorized('download_image'));
    expect(await glanceRequest(token, 'PATCH', `/v2/images/${id}`, [{ op: 'replace', path: '/visibility', value: 'community' }])).toEqual(notAuthorized('communitize_image'));
    expect(await glanceRequest(token, 'PATCH', `/v2/images/${id}`, [{ op: 'remove', path: '/locations/0' }])).toEqual(notAuthorized('delete_image_location'));
    expect(await glanceRequest(token, 'PATCH', `/v2/images/${id}`, [{ op: 'add', path: '/locations/-', value: location }])).toEqual(notAuthorized('set_image_location'));
    expect(await unchanged(id)).toEqual(before);
  }, INTEGRATION_TEST_MS + FERRY_MS);
});

describe('Ceph refuses ferry\'s cephx users what their role does not need', () => {
  const denied = (stderr: string): boolean => /\(1\) Operation not permitted/.test(stderr);
  /** What one cephx user's commands answered, in one program per site and user (cephAll: CEPH_MS), in order. */
  const asUser = (site: 'site-a' | 'site-b', user: string, ...commands: CephCommand[]): { code: number; stdout: string; stderr: string }[] =>
    cephAll(site, commands, user);
  const at = <T>(results: readonly T[], n: number): T => {
    const result = results[n];
    if (result === undefined) throw new Error(`no result ${n}`);
    return result;
  };

  it('client.ferry (a compute node): reads the images pools and the fsid; writes nothing, reads no VM disk', () => {
    for (const site of ['site-a', 'site-b'] as const) {
      const outs = asUser(site, FERRY.rbdUser, ['rbd', 'ls', 'images'], ['ceph', 'fsid'], ['rbd', 'create', '--size', '1M', 'images/it-least-privilege-probe'],
        ['rbd', 'ls', 'vms'], ...(site === 'site-b' ? [['rbd', 'ls', 'images-c'] as const] : []));
      expect(at(outs, 0).code).toBe(0);
      expect(at(outs, 1).stdout.trim()).toBe(devcloud().ceph[site].fsid);
      const create = at(outs, 2);
      expect(create.code).not.toBe(0);
      expect(denied(create.stderr), create.stderr).toBe(true);
      const vms = at(outs, 3);
      expect(denied(vms.stderr), vms.stderr).toBe(true);
      if (site === 'site-b') expect(at(outs, 4).code).toBe(0);
    }
  }, INTEGRATION_TEST_MS + 2 * CEPH_MS);

  it('client.ferry-transfer: writes the target pools (site-b), only reads the source (site-a), reads no VM disk anywhere', () => {
    const name = 'images-c/it-least-privilege-probe';
    const [create, rm, vmsB] = asUser('site-b', FERRY.transferRbdUser, ['rbd', 'create', '--size', '1M', name], ['rbd', 'rm', '--no-progress', name], ['rbd', 'ls', 'vms']);
    expect(create?.code).toBe(0);
    expect(rm?.code).toBe(0);
    const [source, vmsA] = asUser('site-a', FERRY.transferRbdUser, ['rbd', 'create', '--size', '1M', 'images/it-least-privilege-probe'], ['rbd', 'ls', 'vms']);
    expect(denied(source?.stderr ?? ''), source?.stderr).toBe(true);
    for (const vms of [vmsA, vmsB]) expect(denied(vms?.stderr ?? ''), vms?.stderr).toBe(true);
    expect(at(asUser('site-a', 'admin', ['rbd', 'ls', 'images']), 0).stdout.split('\n')).not.toContain('it-least-privilege-probe');
  }, INTEGRATION_TEST_MS + 3 * CEPH_MS);

  it('client.ferry-evict: writes the images pools (the fence is image metadata), reads every pool (a copy\'s clones are nova\'s disks in vms), writes no VM disk', () => {
    const name = 'images-c/it-least-privilege-evict-probe';
    expect(at(asUser('site-b', 'admin', ['rbd', 'create', '--size', '1M', name]), 0).code).toBe(0);
    let vmsAfter = '';
    try {
      const [meta, vms, vmDisk] = asUser('site-b', FERRY.evictRbdUser, ['rbd', 'image-meta', 'set', name, 'ferry.probe', '1'], ['rbd', 'ls', 'vms'],
        ['rbd', 'create', '--size', '1M', 'vms/it-least-privilege-evict-probe']);
      expect(meta?.code).toBe(0);
      expect(vms?.code).toBe(0);
      expect(denied(vmDisk?.stderr ?? ''), vmDisk?.stderr).toBe(true);
    } finally {
      // Removed, and vms looked at, in one program.
      vmsAfter = at(asUser('site-b', 'admin', ['rbd', 'rm', '--no-progress', name], ['rbd', 'ls', 'vms']), 1).stdout;
    }
    expect(vmsAfter.split('\n')).not.toContain('it-least-privilege-evict-probe');
  }, INTEGRATION_TEST_MS + 3 * CEPH_MS);
});
