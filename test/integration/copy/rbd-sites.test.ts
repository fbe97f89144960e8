import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { prewarmJsonSchema } from '../../../src/contract/prewarm-document.js';
import { ceph, CEPH_MS, devcloud, FERRY } from '../../helpers/devcloud.js';
import { imagesDeletedAfterAll, readImage, tokenFor } from '../../helpers/glance-admin.js';
import { INTEGRATION_TEST_MS } from '../../helpers/spawn-budget.js';
import { DIGEST_MS, FERRY_RUN_MS, ferrySync, md5, MiB, sparseBytes, uploadBytes } from './rbd-transfer-helpers.js';

// Every site at once (issue 19, item 5): one image in site-a, wanted at site-b (pool images of cluster B) and site-c
// (pool images-c of the same cluster), brought by prewarm --transfer rbd. Each copy lands in its own store's pool.
const created = imagesDeletedAfterAll();

/** md5 of what a clone of POOL/IMAGE@snap in site-b's cluster reads. */
function md5InClusterB(pool: string, image: string): string {
  const out = spawnSync('bash', ['-c', `set -o pipefail; timeout 120 rbd -c ${devcloud().ceph['site-b'].conf} --id admin export --no-progress ${pool}/${image}@snap - | md5sum`],
    { encoding: 'utf8', timeout: DIGEST_MS });
  if (out.status !== 0) throw new Error(`rbd export ${pool}/${image}@snap: ${out.stderr}`);
  return out.stdout.split(' ')[0] ?? '';
}

/** The member may see the admin's image (it is public) but not GET /v2/info/stores/detail. */
async function makePublic(id: string): Promise<void> {
  const response = await fetch(`${devcloud().glance.url}/v2/images/${id}`, {
    method: 'PATCH', headers: { 'x-auth-token': await tokenFor('admin'), 'content-type': 'application/openstack-images-v2.1-json-patch' },
    body: JSON.stringify([{ op: 'replace', path: '/visibility', value: 'public' }]),
  });
  if (response.status !== 200) throw new Error(`make ${id} public: ${response.status} ${await response.text()}`);
}

describe('ferry prewarm --transfer rbd: every site at once', () => {
  it('prewarm --transfer rbd: an image in site-a lands in site-b (pool images) and site-c (pool images-c), both verified, registered, clonable, "transfer": "rbd" per store', async () => {
    const facts = devcloud();
    const bytes = sparseBytes(16 * MiB, 2 * MiB);
    const id = await uploadBytes('it-rbd-sites', bytes, 'site-a');
    created.push(id);
    const b = facts.ceph['site-b'].conf;
    const run = ferrySync(['prewarm', id, '--store', 'site-b', '--store', 'site-c', '--transfer', 'rbd', '--rbd-user', FERRY.transferRbdUser, '--json',
      '--source-ceph-conf', `site-a=${facts.ceph['site-a'].conf}`, '--source-ceph-conf', `site-b=${b}`, '--source-ceph-conf', `site-c=${b}`]);
    expect(run.code, run.stderr).toBe(0);
    const json = prewarmJsonSchema.parse(run.json);
    expect(json).toMatchObject({ counts: { copied: 2, failed: 0 }, transfers: { rbd: 2, glance: 0 }, requests: { import_requests: 0 } });
    expect(json.items.map((item) => [item.store, item.outcome, item.transfer]).sort())
      .toEqual([['site-b', 'copied', 'rbd'], ['site-c', 'copied', 'rbd']]);

    const glance = await readImage(id);
    expect(String(glance.stores).split(',').sort()).toEqual(['site-a', 'site-b', 'site-c']);
    const urls = ((glance.locations ?? []) as { url: string; metadata: { store?: string } }[])
      .map((location) => [location.metadata.store, location.url]).sort();
    const fsidB = facts.ceph['site-b'].fsid;
    expect(urls).toEqual([
      ['site-a', `rbd://${facts.ceph['site-a'].fsid}/images/${id}/snap`],
      ['site-b', `rbd://${fsidB}/images/${id}/snap`],
      ['site-c', `rbd://${fsidB}/images-c/${id}/snap`],
    ]);
    expect(md5(bytes)).toBe(glance.checksum);
    for (const pool of ['images', 'images-c']) {
      expect(md5InClusterB(pool, id)).toBe(glance.checksum);
      const clone = `vms/it-rbd-sites-${pool}-${id.slice(0, 8)}`;
      const cloned = ceph('site-b', 'rbd', ['clone', `${pool}/${id}@snap`, clone], 'nova');
      expect(cloned.code, cloned.stderr).toBe(0);
      expect(ceph('site-b', 'rbd', ['info', clone], 'nova').stdout).toContain(`parent: ${pool}/${id}@snap`);
      ceph('site-b', 'rbd', ['rm', '--no-progress', clone], 'nova');
      expect(ceph('site-b', 'rbd', ['ls', pool], 'admin').stdout).not.toContain(`${id}.ferry-partial`);
    }

    const again = ferrySync(['prewarm', id, '--store', 'site-b', '--store', 'site-c', '--transfer', 'rbd', '--rbd-user', FERRY.transferRbdUser, '--json',
      '--source-ceph-conf', `site-a=${facts.ceph['site-a'].conf}`, '--source-ceph-conf', `site-b=${b}`, '--source-ceph-conf', `site-c=${b}`]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json).toMatchObject({ counts: { copied: 0, present: 2 }, requests: { import_requests: 0 } });
  }, INTEGRATION_TEST_MS + 2 * FERRY_RUN_MS + 2 * DIGEST_MS + 8 * CEPH_MS);

  it('ensure --transfer rbd as a member: the target pool cannot be known (stores/detail is admin-only) → 28 FERRY_RBD_TARGET_POOL_UNKNOWN, nothing written', async () => {
    const facts = devcloud();
    const id = await uploadBytes('it-rbd-sites-member', sparseBytes(4 * MiB, MiB), 'site-a');
    created.push(id);
    await makePublic(id);
    const run = ferrySync(['ensure', id, '--store', 'site-c', '--ceph-conf', facts.ceph['site-b'].conf, '--rbd-user', FERRY.transferRbdUser,
      '--transfer', 'rbd', '--source-ceph-conf', `site-a=${facts.ceph['site-a'].conf}`, '--json', '--os-cloud', 'devcloud-member']);
    expect(run.code, run.stderr).toBe(28);
    expect(run.json).toMatchObject({ error: { code: 'FERRY_RBD_TARGET_POOL_UNKNOWN' } });
    expect(String((run.json.error as { message: string }).message)).toContain('admin-only: 403');
    expect(ceph('site-b', 'rbd', ['ls', 'images-c'], 'admin').stdout).not.toContain(id);
  }, INTEGRATION_TEST_MS + FERRY_RUN_MS + CEPH_MS);
});
