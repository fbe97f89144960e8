// Glance's answers to DELETE /v2/stores/{store}/{image} (what `ferry evict` sends), and what rbd_store_copies.py says
// of a pool holding a copy with a clone. Cases: a copy removed (204), the last location (403), a store that does not
// hold the image (404), a store Glance does not have (409), an unknown image (404), a copy with a clone in its
// cluster (409 "in use"), a member's token (403 by policy), an image that is not active (409).
// Run with the other cases (scripts/record-fixtures.ts) or alone: npx tsx scripts/devcloud/recorder/store-delete-cases.ts
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FIXTURE_PREFIX, GlanceSession, randomUuid } from './glance-session.js';
import { expectStatus, loadDevcloud, Recorder, type Answer } from './recorder.js';

interface CephSites { readonly ceph: Readonly<Record<string, { readonly conf: string; readonly fsid: string }>> }

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

function rbd(conf: string, ...args: string[]): string {
  return execFileSync('rbd', ['-c', conf, '--id', 'glance', ...args], { encoding: 'utf8' });
}

/** rbd_store_copies.py `list` of a pool, as ferry runs it (the text isolated, from /). */
function storeListing(conf: string, pool: string): unknown {
  const text = readFileSync(join(repoRoot, 'src', 'rbd', 'python', 'rbd_store_copies.py'), 'utf8');
  return JSON.parse(execFileSync('/usr/bin/python3', ['-I', '-c', text, conf, 'glance', '10', pool, 'snap', 'list'], { encoding: 'utf8', cwd: '/' }));
}

export async function recordStoreDeleteCases(glance: GlanceSession, stateDir: string): Promise<void> {
  const { rec } = glance;
  const sites = (JSON.parse(readFileSync(join(stateDir, 'devcloud.json'), 'utf8')) as CephSites).ceph;
  const siteB = sites['site-b'];
  if (siteB === undefined) throw new Error('devcloud.json names no ceph site-b');
  const named = async (name: string, id: string, store: string, expected: number, token = glance.admin): Promise<Answer> => {
    const answer = await rec.record('glance', `store-delete-${name}`, { method: 'DELETE', url: `${glance.url}/v2/stores/${store}/${id}`, token });
    expectStatus(answer, expected, `DELETE /v2/stores/${store} (${name})`);
    return answer;
  };
  // Public, so that the member sees it and is refused by policy (a private image would be a 404). Tracked by its name
  // prefix: cleanup() removes it with the others.
  const created = await rec.call({ method: 'POST', url: `${glance.url}/v2/images`, token: glance.admin,
    json: { name: `${FIXTURE_PREFIX}store-delete-two`, disk_format: 'raw', container_format: 'bare', visibility: 'public' } });
  expectStatus(created, 201, 'create a public image');
  const two = String((created.body as { id: string }).id);
  await glance.upload(two, 1, 'site-a');
  expectStatus(await glance.copy(two, { stores: ['site-b', 'central'] }), 202, 'copy to site-b and central');
  await glance.waitUnlocked(two);
  await named('403-member', two, 'site-b', 403, glance.member);
  await named('204', two, 'site-b', 204);
  // Glance checks for the last location before it looks for the store: a store that does not hold it is 404 only
  // while the image has two locations or more.
  await named('404-not-in-store', two, 'site-b', 404);
  await named('409-unknown-store', two, 'nosuch', 409);
  await glance.removeFromStore(two, 'central');
  await named('403-last-location', two, 'site-a', 403);
  await named('404-image', randomUuid(), 'site-b', 404);

  const queued = await glance.create('store-delete-queued');
  await named('409-not-active', queued, 'site-a', 409);

  const cloned = await glance.activeImage('store-delete-cloned', 1, 'site-a');
  expectStatus(await glance.copy(cloned, { stores: ['site-b'] }), 202, 'copy to site-b');
  await glance.waitUnlocked(cloned);
  const clone = `ferry-fixture-clone-${cloned.slice(0, 8)}`;
  rbd(siteB.conf, 'clone', `images/${cloned}@snap`, `vms/${clone}`);
  try {
    writeFileSync(join(repoRoot, 'fixtures', 'rbd', 'store-listing-site-b.json'), JSON.stringify(storeListing(siteB.conf, 'images'), null, 2) + '\n');
    rec.recorded.push('rbd/store-listing-site-b');
    await named('409-in-use', cloned, 'site-b', 409);
  } finally {
    rbd(siteB.conf, 'rm', '--no-progress', `vms/${clone}`);
  }
}

/** Alone: an admin and a member token straight from Keystone (not recorded), then the cases above. */
async function main(): Promise<void> {
  const stateDir = process.env.FERRY_DEVCLOUD_DIR ?? join(repoRoot, '.devcloud');
  const rec = new Recorder(loadDevcloud(join(stateDir, 'devcloud.json')), join(repoRoot, 'fixtures'));
  const token = async (who: 'admin' | 'demo'): Promise<string> => {
    const user = rec.cloud.users[who];
    const answer = await rec.call({ method: 'POST', url: `${rec.cloud.keystone.url}/auth/tokens`, json: { auth: {
      identity: { methods: ['password'], password: { user: { name: user.name, domain: { id: 'default' }, password: user.password } } },
      scope: { project: { name: user.project, domain: { id: 'default' } } },
    } } });
    expectStatus(answer, 201, `${who} token`);
    const subject = answer.headers.get('x-subject-token');
    if (subject === null) throw new Error(`${who} token: no X-Subject-Token`);
    return subject;
  };
  const glance = new GlanceSession(rec, await token('admin'), await token('demo'));
  try {
    await recordStoreDeleteCases(glance, stateDir);
  } finally {
    await glance.cleanup();
  }
  console.log(`${rec.recorded.length} fixtures written:\n  ${rec.recorded.join('\n  ')}`);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) await main();
