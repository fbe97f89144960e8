// Glance single-request cases: discovery, image states, pagination, and every copy-image answer that needs no race.
import type { GlanceSession } from './glance-session.js';
import { FIXTURE_PREFIX, randomUuid } from './glance-session.js';
import { expectStatus, stringField } from './recorder.js';

export async function recordGlanceDiscovery(g: GlanceSession): Promise<void> {
  const { rec, url } = g;
  expectStatus(await rec.record('glance', 'versions', { method: 'GET', url: `${url}/versions`, token: g.admin }), 200, 'versions');
  const info = (name: string, path: string, token: string) => rec.record('glance', name, { method: 'GET', url: `${url}${path}`, token });
  expectStatus(await info('info-stores', '/v2/info/stores', g.admin), 200, 'info/stores');
  expectStatus(await info('info-stores-detail', '/v2/info/stores/detail', g.admin), 200, 'info/stores/detail');
  expectStatus(await info('info-stores-detail-403-member', '/v2/info/stores/detail', g.member), 403, 'stores/detail as member');
  expectStatus(await info('info-import', '/v2/info/import', g.admin), 200, 'info/import');
}

export async function recordGlanceImageCases(g: GlanceSession): Promise<void> {
  const { rec } = g;
  const queued = await g.create('queued');
  expectStatus(await rec.record('glance', 'image-queued', { method: 'GET', url: g.imageUrl(queued), token: g.admin }), 200, 'queued');
  const notActive = await rec.record('glance', 'import-409-not-active', {
    method: 'POST',
    url: `${g.imageUrl(queued)}/import`,
    token: g.admin,
    json: { method: { name: 'copy-image' }, stores: ['site-b'] },
  });
  expectStatus(notActive, 409, 'copy of a queued image');

  // Pagination over three images of this run only (tag filter), so other images in the cloud do not matter.
  const tag = `${FIXTURE_PREFIX}page`;
  for (const n of [1, 2, 3]) await g.create(`page-${n}`, g.admin, [tag]);
  const page1 = await rec.record('glance', 'images-list-page1', {
    method: 'GET',
    url: `${g.url}/v2/images?limit=2&tag=${tag}`,
    token: g.admin,
  });
  expectStatus(page1, 200, 'images page 1');
  const next = stringField(page1.body, 'next');
  if (next === undefined) throw new Error('images page 1 has no "next" link');
  expectStatus(await rec.record('glance', 'images-list-page2', { method: 'GET', url: g.url + next, token: g.admin }), 200, 'page 2');

  const garbage = await rec.record('glance', 'image-401', { method: 'GET', url: g.imageUrl(queued), token: 'garbage-token' });
  expectStatus(garbage, 401, 'garbage token');
  expectStatus(await rec.record('glance', 'image-404', { method: 'GET', url: g.imageUrl(randomUuid()), token: g.admin }), 404, 'image 404');
}

export async function recordGlanceCopyCases(g: GlanceSession): Promise<void> {
  const { rec } = g;
  const copySpec = (id: string, stores: readonly string[], token = g.admin) => ({
    method: 'POST',
    url: `${g.imageUrl(id)}/import`,
    token,
    json: { method: { name: 'copy-image' }, stores },
  });

  const id = await g.activeImage('site-a', 4, 'site-a');
  expectStatus(await rec.record('glance', 'image-active-site-a', { method: 'GET', url: g.imageUrl(id), token: g.admin }), 200, 'active');
  expectStatus(await rec.record('glance', 'import-202', copySpec(id, ['site-b'])), 202, 'copy to site-b');
  await g.waitUnlocked(id);
  const after = await rec.record('glance', 'image-after-copy', { method: 'GET', url: g.imageUrl(id), token: g.admin });
  expectStatus(after, 200, 'image after copy');
  if (stringField(after.body, 'stores')?.split(',').includes('site-b') !== true) {
    throw new Error(`copy to site-b did not succeed: ${JSON.stringify(after.body)}`);
  }
  const tasks = await rec.record('glance', 'image-tasks', { method: 'GET', url: `${g.imageUrl(id)}/tasks`, token: g.admin });
  expectStatus(tasks, 200, 'image tasks');

  expectStatus(await rec.record('glance', 'import-400-already-present', copySpec(id, ['site-b'])), 400, 'already present');
  expectStatus(await rec.record('glance', 'import-409-unknown-store', copySpec(id, ['nosuch'])), 409, 'unknown store');
  expectStatus(await rec.record('glance', 'import-404', copySpec(randomUuid(), ['site-b'])), 404, 'unknown image');

  // A member's own image: another project's image would be invisible to it (404), not forbidden.
  const own = await g.activeImage('member', 1, 'site-a', g.member);
  expectStatus(await rec.record('glance', 'import-403-member', copySpec(own, ['site-b'], g.member)), 403, 'member copy');
  await g.delete(own);
  await g.delete(id);
}
