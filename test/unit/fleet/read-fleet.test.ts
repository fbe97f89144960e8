import { readFileSync } from 'node:fs';
import nock from 'nock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { everyPool, readFleet, type StoreToRead } from '../../../src/fleet/read-fleet.js';
import { createHttpTransport } from '../../../src/openstack/http-transport.js';
import type { CommandOutcome, CommandRunner } from '../../../src/rbd/command-runner.js';
import { GLANCE_ROOT, keystoneTime, KEYSTONE_ROOT, loadExchange, replay, tokenExchange } from '../../helpers/fixtures.js';
import { wireCopyContext } from '../../helpers/scripted-glance.js';

// readFleet over the whole HTTP stack (Glance client → service client → Keystone session → transport → nock), answered
// with recorded bodies: two pages of GET /v2/images (fixtures/glance/images-list-page*.json), stores/detail, and each
// pool's listing as rbd_store_copies.py printed it (fixtures/rbd/store-listing-site-b.json). What is counted: the pages,
// the stores/detail reads and the processes.

const inner = createHttpTransport();
afterAll(() => inner.close());
afterEach(() => nock.cleanAll());

const PAGE1 = loadExchange('glance', 'images-list-page1');
const PAGE2 = loadExchange('glance', 'images-list-page2');
const LAST_OF_PAGE1 = ((PAGE1.body as { images: { id: string }[] }).images.at(-1))!.id;
const LISTING = readFileSync('fixtures/rbd/store-listing-site-b.json', 'utf8');
const json = { 'content-type': 'application/json' };
const exited = (exitCode: number, stdout: string, stderr = ''): CommandOutcome => ({ outcome: 'exited', exitCode, signal: null, stdout, stderr });

/** rbd_store_copies.py by cluster: each run's (ceph.conf, pool) recorded, the answer chosen by the ceph.conf. */
function poolPrograms(answers: Readonly<Record<string, CommandOutcome>>): CommandRunner & { runs: string[] } {
  const runs: string[] = [];
  return {
    runs,
    run: (_file, args) => {
      // python -I -c PROGRAM conf user timeout pool snapshot command …
      const [conf, , , pool, , command] = args.slice(3);
      runs.push(`${command ?? ''} ${conf ?? ''} ${pool ?? ''}`);
      return Promise.resolve(answers[conf ?? ''] ?? exited(1, '', `no cluster at ${conf ?? ''}`));
    },
  };
}

/** Keystone's token, then the two recorded pages of every image (visibility all, 200 a page). */
function glanceWithTwoPages(wallNowMs: number): { keystone: nock.Scope; glance: nock.Scope } {
  const keystone = replay(nock(KEYSTONE_ROOT), tokenExchange('token-password-admin', keystoneTime(wallNowMs + 3_600_000)),
    { headers: { 'x-subject-token': 'placeholder-token-1' } });
  const glance = nock(GLANCE_ROOT)
    .get('/v2/images').query({ limit: '200', visibility: 'all' }).reply(200, JSON.stringify(PAGE1.body), json)
    .get('/v2/images').query({ limit: '200', visibility: 'all', marker: LAST_OF_PAGE1 }).reply(200, JSON.stringify(PAGE2.body), json);
  return { keystone, glance };
}

const SITE_A: StoreToRead = { store: 'site-a', cluster: { confFile: '/etc/ceph/site-a.conf', user: 'ferry' } };
const SITE_B: StoreToRead = { store: 'site-b', cluster: { confFile: '/etc/ceph/site-b.conf', user: 'ferry' } };

describe('readFleet: one snapshot, O(pages) in Glance, one process per store', () => {
  it('every image from two pages, stores/detail once for both stores, one listing process per store (a store named twice read once)', async () => {
    const { ctx, sent } = wireCopyContext(inner);
    const { keystone, glance } = glanceWithTwoPages(ctx.clock.wallNow());
    replay(glance, loadExchange('glance', 'info-stores-detail'));
    const ceph = poolPrograms({ '/etc/ceph/site-a.conf': exited(0, LISTING), '/etc/ceph/site-b.conf': exited(0, LISTING) });

    const fleet = await readFleet(ctx.glance, [SITE_A, SITE_B, SITE_B], { ceph: { runner: ceph } });

    expect(fleet.images.map((image) => image.id)).toEqual([...(PAGE1.body as { images: { id: string }[] }).images,
      ...(PAGE2.body as { images: { id: string }[] }).images].map((image) => image.id));
    expect([...fleet.pools.keys()]).toEqual(['site-a', 'site-b']);
    expect(fleet.pools.get('site-b')?.images.map((entry) => entry.name)).toEqual(['2d80e4f7-2cac-4fa1-b8c2-5f11d80a36da',
      '93469f30-5123-4b82-b251-47c6c76da588']);
    expect(fleet.failed.size).toBe(0);
    // The pool each store's stores/detail entry names (`images`), one process a store.
    expect(ceph.runs).toEqual(['list /etc/ceph/site-a.conf images', 'list /etc/ceph/site-b.conf images']);
    expect(sent.map((request) => `${request.method} ${new URL(request.url).pathname}`)).toEqual([
      'POST /v3/auth/tokens', 'GET /v2/images', 'GET /v2/images', 'GET /v2/info/stores/detail']);
    expect(keystone.isDone() && glance.isDone()).toBe(true);
  });

  it('a pool given is read as given: no stores/detail', async () => {
    const { ctx, sent } = wireCopyContext(inner);
    glanceWithTwoPages(ctx.clock.wallNow());
    const ceph = poolPrograms({ '/etc/ceph/site-b.conf': exited(0, LISTING) });

    const fleet = await readFleet(ctx.glance, [{ store: 'site-b', cluster: { ...SITE_B.cluster, pool: 'glance-b' } }], { ceph: { runner: ceph } });

    expect(ceph.runs).toEqual(['list /etc/ceph/site-b.conf glance-b']);
    expect(fleet.pools.has('site-b')).toBe(true);
    expect(sent.filter((request) => request.url.includes('/v2/info/stores'))).toEqual([]);
  });

  it('a store whose pool cannot be read is in `failed` with its FERRY_CEPH, the other stands; everyPool throws it', async () => {
    const { ctx } = wireCopyContext(inner);
    const { glance } = glanceWithTwoPages(ctx.clock.wallNow());
    replay(glance, loadExchange('glance', 'info-stores-detail'));
    const ceph = poolPrograms({ '/etc/ceph/site-b.conf': exited(0, LISTING) });

    const fleet = await readFleet(ctx.glance, [SITE_A, SITE_B], { ceph: { runner: ceph } });

    expect([...fleet.pools.keys()]).toEqual(['site-b']);
    expect(fleet.failed.get('site-a')).toMatchObject({ code: 'FERRY_CEPH' });
    expect(() => everyPool(fleet)).toThrow(fleet.failed.get('site-a')!);
    expect(ceph.runs).toHaveLength(2);
  });

  it('stores/detail refused (a member) and no location naming the pool: that store fails with the fix, no process is run for it', async () => {
    const { ctx } = wireCopyContext(inner);
    const { glance } = glanceWithTwoPages(ctx.clock.wallNow());
    replay(glance, loadExchange('glance', 'info-stores-detail-403-member'));
    const ceph = poolPrograms({});

    const fleet = await readFleet(ctx.glance, [SITE_B], { ceph: { runner: ceph } });

    expect(fleet.failed.get('site-b')).toMatchObject({ code: 'FERRY_INVALID_OPTION', hint: expect.stringContaining('--pool POOL') as unknown });
    expect(ceph.runs).toEqual([]);
  });
});
