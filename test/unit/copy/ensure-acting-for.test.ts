import nock from 'nock';
import { afterAll, describe, expect, it } from 'vitest';
import { ensure } from '../../../src/copy/ensure.js';
import { createHttpTransport } from '../../../src/openstack/http-transport.js';
import { GLANCE_ROOT, keystoneTime, KEYSTONE_ROOT, loadExchange, loadTimeline, RECORDED_IMPORT_REQUEST_ID, recordedTaskList, replay,
  replaySnapshots, timelineImageId, tokenExchange } from '../../helpers/fixtures.js';
import { wireCopyContext } from '../../helpers/scripted-glance.js';

// ensure() acting for a user over the whole real stack (service client → transport → nock), fed the recorded answers
// of the real Glance: every Glance request must carry the user's token and ferry's own as the service token.

const inner = createHttpTransport();
afterAll(() => inner.close());
const USER = 'placeholder-user-token';
const OWN = 'placeholder-token-1';
const timeline = loadTimeline('timeline-success');
const refusedAnswer = loadExchange('glance', 'image-401');
const id = timelineImageId(timeline);
const store = timeline.store[0]!;
const locations = timeline.snapshots.at(-1)!.body.locations as { url: string; metadata: { store?: string } }[];
const fsid = /^rbd:\/\/([^/]+)\//.exec(locations.find((l) => l.metadata.store === store)?.url ?? '')?.[1] ?? '';

function keystone(clock: { wallNow(): number }): void {
  replay(nock(KEYSTONE_ROOT), tokenExchange('token-password-admin', keystoneTime(clock.wallNow() + 3_600_000)), { headers: { 'x-subject-token': OWN } });
}
/** Glance, answering only requests that act for USER with ferry's token as the service token. */
const actingGlance = (): nock.Scope => nock(GLANCE_ROOT, { reqheaders: { 'x-auth-token': USER, 'x-service-token': OWN } });

describe('ensure acting for a user (userToken)', () => {
  it('ensure: every request of the copy (the look, the import, the polls, the tasks) carries the user\'s token and ferry\'s as the service token; copy-image even where --transfer rbd is asked', async () => {
    const { ctx, sent } = wireCopyContext(inner, fsid);
    keystone(ctx.clock);
    const { os_glance_import_task: _lock, ...before } = timeline.snapshots[0]!.body;
    const scope = actingGlance().get(`/v2/images/${id}`).reply(200, JSON.stringify(before), { 'content-type': 'application/json' });
    replay(scope, { ...loadExchange('glance', 'import-202'), request: { method: 'POST', path: timeline.request.path, body: { method: { name: 'copy-image' }, stores: [store] } } });
    replaySnapshots(scope, timeline);
    const lock = String(timeline.snapshots.find((s) => s.body.os_glance_import_task !== undefined)?.body.os_glance_import_task);
    scope.get(`/v2/images/${id}/tasks`).reply(200, recordedTaskList(id, [{ id: lock, status: 'success', request_id: RECORDED_IMPORT_REQUEST_ID, stores: [store] }]),
      { 'content-type': 'application/json' });
    // Asked for the direct transfer, which cannot act for a user (its registration needs the owning project): copy-image.
    const result = await ensure(ctx, id, { store, userToken: USER, random: () => 0.5, transfer: 'rbd', sourceCephConfs: { 'site-a': '/nonexistent/ceph.conf' } });
    expect(result).toMatchObject({ copied: true, importRequests: 1, target: { fsid, image: id } });
    expect(nock.isDone()).toBe(true);
    const glanceRequests = sent.filter((request) => request.url.startsWith(GLANCE_ROOT));
    expect(glanceRequests.length).toBe(3 + timeline.snapshots.length);
    expect(glanceRequests.every((request) => request.headers?.['x-auth-token'] === USER && request.headers['x-service-token'] === OWN)).toBe(true);
    expect(ctx.actingTokens.size).toBe(0);
  });

  it.each([
    ['404', loadExchange('glance', 'image-404')],
    // get_image refusing the user: to that user the image does not exist either (the body of Glance's 403s)
    ['403', { ...loadExchange('glance', 'import-403-member'), request: { method: 'GET' as const, path: `/v2/images/${id}` } }],
  ])('ensure: the user\'s look at the image answered %s → FERRY_IMAGE_NOT_FOUND, nothing else asked', async (_status, answer) => {
    const { ctx, sent } = wireCopyContext(inner, fsid);
    keystone(ctx.clock);
    replay(actingGlance(), answer, { path: `/v2/images/${id}` });
    // seenAs: the look was the user's (nova's patch keeps the verdict only then).
    await expect(ensure(ctx, id, { store, userToken: USER })).rejects.toMatchObject({ code: 'FERRY_IMAGE_NOT_FOUND', details: { seenAs: 'user' } });
    expect(nock.isDone()).toBe(true);
    expect(sent.filter((request) => request.url.startsWith(GLANCE_ROOT))).toHaveLength(1);
  });

  it('ensure: two tenants share one copy and the first one\'s token is revoked mid-copy → the copy goes on with the second one\'s; both answered, one import', async () => {
    const { ctx } = wireCopyContext(inner, fsid);
    keystone(ctx.clock);
    const [A, B] = ['placeholder-user-a', 'placeholder-user-b'];
    const as = (user: string): nock.Scope => nock(GLANCE_ROOT, { reqheaders: { 'x-auth-token': user, 'x-service-token': OWN } });
    const { os_glance_import_task: _lock, ...before } = timeline.snapshots[0]!.body;
    let bJoined!: () => void;
    const bVisible = new Promise<void>((resolve) => { bJoined = resolve; });
    // A: its look, the import, then its first poll refused (its token revoked), once B waits too.
    as(A).get(`/v2/images/${id}`).reply(200, JSON.stringify(before), { 'content-type': 'application/json' })
      .post(timeline.request.path).reply(202, '')
      .get(`/v2/images/${id}`).reply(async () => {
        await bVisible;
        return [refusedAnswer.status, JSON.stringify(refusedAnswer.body), { 'content-type': 'application/json' }];
      });
    // ferry's own token alone is fine: the refusal was the user's.
    nock(GLANCE_ROOT, { reqheaders: { 'x-auth-token': OWN }, badheaders: ['x-service-token'] }).get('/v2/info/stores')
      .reply(200, JSON.stringify(loadExchange('glance', 'info-stores').body), { 'content-type': 'application/json' });
    // B: its look, then the rest of the copy's polls.
    const scopeB = as(B).get(`/v2/images/${id}`).reply(200, JSON.stringify(before), { 'content-type': 'application/json' });
    replaySnapshots(scopeB, timeline);
    const lock = String(timeline.snapshots.find((snap) => snap.body.os_glance_import_task !== undefined)?.body.os_glance_import_task);
    scopeB.get(`/v2/images/${id}/tasks`).reply(200, recordedTaskList(id, [{ id: lock, status: 'success', request_id: RECORDED_IMPORT_REQUEST_ID, stores: [store] }]),
      { 'content-type': 'application/json' });

    let aVisible!: () => void;
    const aSeen = new Promise<void>((resolve) => { aVisible = resolve; });
    const first = ensure(ctx, id, { store, userToken: A, random: () => 0.5, onVisible: aVisible });
    await aSeen;
    const second = ensure(ctx, id, { store, userToken: B, random: () => 0.5, onVisible: () => setImmediate(bJoined) });
    const [a, b] = await Promise.all([first, second]);
    expect(a).toMatchObject({ copied: true, target: { fsid, image: id } });
    expect(b).toMatchObject({ target: a.target });
    expect(nock.isDone()).toBe(true);
    expect(ctx.actingTokens.size).toBe(0);
  });

  it('ensure: one deadline for the whole request — the user\'s look counts: a look that took 7 s of a 10 s timeout leaves the copy 3 s, not another 10', async () => {
    const { ctx } = wireCopyContext(inner, fsid);
    keystone(ctx.clock);
    const { os_glance_import_task: _lock, ...before } = timeline.snapshots[0]!.body;
    const copying = timeline.snapshots.find((s) => s.body.os_glance_import_task !== undefined)!;
    const scope = actingGlance().get(`/v2/images/${id}`).reply(200, () => {
      ctx.clock.advance(7_000);
      return JSON.stringify(before);
    }, { 'content-type': 'application/json' });
    replay(scope, { ...loadExchange('glance', 'import-202'), request: { method: 'POST', path: timeline.request.path, body: { method: { name: 'copy-image' }, stores: [store] } } });
    // Glance goes on copying for ever: the deadline decides.
    actingGlance().persist().get(`/v2/images/${id}`).reply(200, JSON.stringify(copying.body), { 'content-type': 'application/json' });
    actingGlance().persist().get(`/v2/images/${id}/tasks`).reply(200, recordedTaskList(id, []), { 'content-type': 'application/json' });
    try {
      await expect(ensure(ctx, id, { store, userToken: USER, timeoutMs: 10_000, random: () => 0.5 }))
        .rejects.toMatchObject({ code: 'FERRY_COPY_TIMEOUT', details: { timeoutMs: 10_000 } });
      expect(ctx.clock.now()).toBeGreaterThanOrEqual(9_000); // the waiter may stop a last poll short of the deadline
      expect(ctx.clock.now()).toBeLessThan(12_000);
    } finally {
      nock.cleanAll();
    }
  });

  it('ensure: already local: one look, the user\'s, and nothing else (the visibility check on every request)', async () => {
    const { ctx, sent } = wireCopyContext(inner, fsid);
    keystone(ctx.clock);
    const last = timeline.snapshots.at(-1)!.body;
    actingGlance().get(`/v2/images/${id}`).reply(200, JSON.stringify(last), { 'content-type': 'application/json' });
    await expect(ensure(ctx, id, { store, userToken: USER })).resolves.toMatchObject({ copied: false, target: { fsid } });
    expect(nock.isDone()).toBe(true);
    expect(sent.filter((request) => request.url.startsWith(GLANCE_ROOT))).toHaveLength(1);
  });
});
