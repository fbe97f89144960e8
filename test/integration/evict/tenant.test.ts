import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evictJsonSchema } from '../../../src/cli/reports/evict-json.js';
import { syncJsonSchema } from '../../../src/cli/render/sync.js';
import { usageJsonSchema } from '../../../src/cli/reports/usage-json.js';
import { cloudEnv, devcloud, FERRY } from '../../helpers/devcloud.js';
import { glanceRequest, imagesDeletedAfterAll, readImage, tokenFor, uploadImage, waitUnlocked } from '../../helpers/glance-admin.js';
import { SITE_C } from '../../helpers/site-c-copies.js';

// A tenant (project demo: it can create images, tag them and make them community) must not steer sync or evict
// (Glance 25, Ceph 16, store site-c). Both runs are dry runs as ferry-evict (project admin, no admin role): nothing is
// copied or removed, the plans are what is asserted.

const MIB = 2 ** 20;
const created = imagesDeletedAfterAll();
const work = mkdtempSync(join(tmpdir(), 'ferry-it-tenant-'));

function ferry(args: readonly string[]): { code: number; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [`${process.cwd()}/bin/ferry`, ...args, '--json'],
    { env: { ...process.env, ...cloudEnv(FERRY.evictCloud) }, encoding: 'utf8', timeout: 120_000 });
  return { code: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}

async function image(name: string, as: 'admin' | 'demo', visibility: 'public' | 'community'): Promise<string> {
  const id = await uploadImage({ name, store: 'central', sizeBytes: MIB, as, visibility });
  created.push(id);
  return id;
}

/** Glance's copy-image to site-c, as the operator (admin may copy any project's image). */
async function copyToSiteC(id: string): Promise<void> {
  const answer = await glanceRequest(await tokenFor('admin'), 'POST', `/v2/images/${id}/import`, { method: { name: 'copy-image' }, stores: [SITE_C.store] });
  expect(answer.status).toBe(202);
  const deadline = Date.now() + 120_000;
  while (!String((await waitUnlocked(id, 120_000)).stores).split(',').includes(SITE_C.store)) {
    if (Date.now() > deadline) throw new Error(`copy of ${id} to ${SITE_C.store} not done`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('a tenant cannot steer sync or evict (site-c)', () => {
  it('sync with a budget: a second project\'s community image named like the golden one is neither wanted nor copied', async () => {
    const name = `it-tenant-golden-${process.pid}`;
    const golden = await image(name, 'admin', 'public');
    const lookalike = await image(name, 'demo', 'community');
    const policy = join(work, 'edge.yaml');
    writeFileSync(policy, `version: 1\nplacements:\n  - {name: golden, images: {names: [${name}]}, stores: [${SITE_C.store}]}\n`
      + `stores:\n  ${SITE_C.store}: {budget: 10T, ceph_conf: ${devcloud().ceph['site-b'].conf}, rbd_user: ${FERRY.evictRbdUser}, pool: ${SITE_C.pool}}\n`);
    const run = ferry(['sync', '--policy', policy, '--dry-run']);
    expect(run.code, run.stderr).toBe(0);
    const json = syncJsonSchema.parse(JSON.parse(run.stdout));
    expect(json.placements).toEqual([{ name: 'golden', stores: [SITE_C.store], images: 1, unresolved: 0, drift: 1 }]);
    const planned = (json.result?.items ?? []).map((entry) => entry.image);
    expect(planned).toContain(golden);
    expect(planned).not.toContain(lookalike);
  });

  it('evict: a tenant\'s tag ferry-pin does not keep its copy, and the plan says why; status --usage says it too (pin_ignored)', async () => {
    const id = await image(`it-tenant-pinned-${process.pid}`, 'demo', 'community');
    expect((await glanceRequest(await tokenFor('demo'), 'PUT', `/v2/images/${id}/tags/ferry-pin`)).status).toBe(204);
    await copyToSiteC(id);
    const owner = String((await readImage(id)).owner);
    const run = ferry(['evict', '--store', SITE_C.store, '--ceph-conf', devcloud().ceph['site-b'].conf, '--rbd-user', FERRY.evictRbdUser,
      '--pool', SITE_C.pool, '--idle', '0', '--dry-run']);
    expect(run.code, run.stderr).toBe(0);
    const copy = evictJsonSchema.parse(JSON.parse(run.stdout)).copies.find((entry) => entry.image === id);
    expect(copy).toMatchObject({ action: 'evict', reason: 'idle' });
    expect(copy?.detail).toContain(`its tag ferry-pin ignored: owner ${owner} is not a pin owner`);
    const usage = ferry(['status', '--usage', '--store', SITE_C.store, '--ceph-conf', devcloud().ceph['site-b'].conf, '--rbd-user', FERRY.evictRbdUser,
      '--pool', SITE_C.pool, '--idle', '0']);
    expect(usage.code, usage.stderr).toBe(0);
    expect(usageJsonSchema.parse(JSON.parse(usage.stdout)).copies.find((entry) => entry.image === id))
      .toMatchObject({ pinned: null, pin_ignored: `its tag ferry-pin ignored: owner ${owner} is not a pin owner` });
  });
});
