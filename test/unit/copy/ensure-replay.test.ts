import nock from 'nock';
import { afterAll, describe, expect, it } from 'vitest';
import { ensure } from '../../../src/copy/ensure.js';
import { COPY_ENGINE_LIMITS } from '../../../src/copy/ensure-options.js';
import { createHttpTransport } from '../../../src/openstack/http-transport.js';
import { GLANCE_ROOT, keystoneTime, KEYSTONE_ROOT, loadExchange, loadTimeline, RECORDED_IMPORT_REQUEST_ID, recordedTaskList, replay, replaySnapshots,
  timelineImageId, tokenExchange, type RecordedTimeline, type TimelineFixture } from '../../helpers/fixtures.js';
import { wireCopyContext } from '../../helpers/scripted-glance.js';

// ensure() over the whole real stack (Glance client → service client → Keystone session → transport → nock), fed the
// image states recorded from the real Glance after each copy-image POST (fixtures/glance/timeline-*.json).

const inner = createHttpTransport();
afterAll(() => inner.close());

interface Stack {
  readonly ctx: ReturnType<typeof wireCopyContext>['ctx'];
  readonly count: { readonly tokenPosts: number; readonly imageGets: number; readonly importPosts: number };
}

function stack(fsid: string): Stack {
  const { ctx, sent } = wireCopyContext(inner, fsid);
  const counted = (method: string, pattern: RegExp): number =>
    sent.filter((r) => r.method === method && pattern.test(new URL(r.url).pathname)).length;
  return {
    ctx,
    count: {
      get tokenPosts() { return counted('POST', /^\/v3\/auth\/tokens$/); },
      get imageGets() { return counted('GET', /^\/v2\/images\/[^/]+$/); },
      get importPosts() { return counted('POST', /^\/v2\/images\/[^/]+\/import$/); },
    },
  };
}

/**
 * Keystone's token, then the image before the copy, then the import answer; the caller adds the GETs after it.
 * The image before the copy is the first recorded snapshot without its import lock: the POST is what set it.
 */
function replayUpToImport(clock: { wallNow(): number }, timeline: RecordedTimeline, importAnswer = loadExchange('glance', 'import-202')): nock.Scope {
  replay(nock(KEYSTONE_ROOT), tokenExchange('token-password-admin', keystoneTime(clock.wallNow() + 3_600_000)),
    { headers: { 'x-subject-token': 'placeholder-token-1' } });
  const id = timelineImageId(timeline);
  const { os_glance_import_task: _lock, ...before } = timeline.snapshots[0]!.body;
  const glance = nock(GLANCE_ROOT).get(`/v2/images/${id}`).reply(200, JSON.stringify(before), { 'content-type': 'application/json' });
  // ensure() asks for its one store; the interceptor checks the body it sends.
  return replay(glance, { ...importAnswer, request: { method: 'POST', path: timeline.request.path,
    body: { method: { name: 'copy-image' }, stores: [timeline.store[0]] } } });
}

/** The fsid of the Ceph cluster behind `store`, from the location Glance recorded for it. */
function fsidOfLocation(timeline: RecordedTimeline, store: string): string {
  const locations = timeline.snapshots.at(-1)!.body.locations as { url: string; metadata: { store?: string } }[];
  const url = locations.find((l) => l.metadata.store === store)?.url ?? '';
  return /^rbd:\/\/([^/]+)\//.exec(url)?.[1] ?? '';
}

/** The fsid of a cluster that does not hold these images: site-b's, from Glance's recorded store descriptions. */
function siteBFsid(): string {
  const stores = (loadExchange('glance', 'info-stores').body as { stores: { id: string; description: string }[] }).stores;
  return /([0-9a-f-]{36})$/.exec(stores.find((s) => s.id === 'site-b')?.description ?? '')?.[1] ?? '';
}

const random = (): number => 0.5;

/** The task the timeline's import created (the lock it shows). */
function lockOf(timeline: RecordedTimeline): string {
  return String(timeline.snapshots.find((snapshot) => snapshot.body.os_glance_import_task !== undefined)?.body.os_glance_import_task);
}

/** Once the lock is gone ensure() reads the image's tasks to find its own (by the 202's request id). */
function ownTask(scope: nock.Scope, timeline: RecordedTimeline, status: 'success' | 'failure'): nock.Scope {
  const message = status === 'success' ? 'Copied 32 MiB' : 'Task failed due to Internal Error';
  return scope.get(`/v2/images/${timelineImageId(timeline)}/tasks`).reply(200,
    recordedTaskList(timelineImageId(timeline), [{ id: lockOf(timeline), status, message, request_id: RECORDED_IMPORT_REQUEST_ID, stores: timeline.store }]),
    { 'content-type': 'application/json' });
}

/**
 * The import ended with our store in neither list (aborted): the shape a copy broken by an image deletion leaves
 * while Glance is still removing the data (the image as a CI run's JSON showed it: lock released, the store still
 * listed as importing, nothing failed). Built from the recorded failure by changing only those two properties.
 */
function abortedEnding(timeline: RecordedTimeline): RecordedTimeline['snapshots'] {
  const last = timeline.snapshots.at(-1)!;
  const aborted = { ...last, body: { ...last.body, os_glance_importing_to_stores: timeline.store.join(','), os_glance_failed_import: '' } };
  return [...timeline.snapshots.slice(0, -1), aborted];
}

describe('ensure: replaying recorded Glance timelines', () => {
  it.each<{ fixture: TimelineFixture; oldFailure: string | undefined }>([
    { fixture: 'timeline-success', oldFailure: undefined },
    // A retry after the rollback: broken's failure stays visible throughout; only our store matters.
    { fixture: 'timeline-retry-other-store', oldFailure: 'broken' },
  ])('ensure: $fixture → copied, the clone target in the target store\'s cluster', async ({ fixture, oldFailure }) => {
    const timeline = loadTimeline(fixture);
    const store = timeline.store[0]!;
    const fsid = fsidOfLocation(timeline, store);
    const { ctx, count } = stack(fsid);
    const glance = ownTask(replaySnapshots(replayUpToImport(ctx.clock, timeline), timeline), timeline, 'success');
    const result = await ensure(ctx, timelineImageId(timeline), { store, random });
    const id = timelineImageId(timeline);
    expect(result).toMatchObject({ imageId: id, store, copied: true, joined: false, importRequests: 1, taskId: lockOf(timeline),
      imageReads: 1 + timeline.snapshots.length,
      target: { fsid, pool: 'images', image: id, snapshot: 'snap', url: `rbd://${fsid}/images/${id}/snap` } });
    expect(count).toEqual({ tokenPosts: 1, imageGets: 1 + timeline.snapshots.length, importPosts: 1 });
    expect(ctx.clock.sleeps).toHaveLength(timeline.snapshots.length - 1);
    expect(glance.isDone()).toBe(true);
    expect(nock.isDone()).toBe(true);
    // What ensure() sent (checked by the interceptor) is what the recording sent; the old failure was there to see.
    expect(timeline.request.body).toEqual({ method: { name: 'copy-image' }, stores: [store] });
    expect(timeline.snapshots[0]!.body.os_glance_failed_import || undefined).toBe(oldFailure);
  });

  it.each<{ fixture: TimelineFixture; outcome: string; reason: RegExp; oldFailure: string | undefined }>([
    { fixture: 'timeline-failure', outcome: 'failed', reason: /^Glance reports the copy to broken failed/, oldFailure: undefined },
    // The first snapshot already shows "failed: broken" (the earlier attempt's) while our task holds the lock.
    { fixture: 'timeline-retry', outcome: 'failed', reason: /^Glance reports the copy to broken failed/, oldFailure: 'broken' },
    { fixture: 'timeline-rollback', outcome: 'rolled-back', reason: /^the copy to site-b was rolled back because broken failed/,
      oldFailure: undefined },
  ])('ensure: $fixture → FERRY_COPY_FAILED, outcome $outcome, judged only once the lock is released', async ({ fixture, outcome, reason, oldFailure }) => {
    const timeline = loadTimeline(fixture);
    expect(timeline.snapshots[0]!.body.os_glance_failed_import || undefined).toBe(oldFailure);
    const store = timeline.store[0]!;
    const { ctx, count } = stack(siteBFsid());
    const glance = ownTask(replaySnapshots(replayUpToImport(ctx.clock, timeline), timeline), timeline, 'failure');
    await expect(ensure(ctx, timelineImageId(timeline), { store, random })).rejects.toMatchObject({
      code: 'FERRY_COPY_FAILED', message: expect.stringMatching(reason) as unknown,
      details: { outcome, store, imageId: timelineImageId(timeline), polls: timeline.snapshots.length } });
    expect(count).toEqual({ tokenPosts: 1, imageGets: 1 + timeline.snapshots.length, importPosts: 1 });
    expect(glance.isDone()).toBe(true);
    expect(nock.isDone()).toBe(true);
  });

  // Glance removes a deleted image's data first (ending our copy), its record last: the reads after the aborted end
  // show the image `stillThere` times, then (if `gone`) a 404.
  it.each([
    { after: 'still there after a look again for 10 s', stillThere: COPY_ENGINE_LIMITS.deletionRecheckPausesMs.length, gone: false,
      expected: { code: 'FERRY_COPY_FAILED', details: { outcome: 'aborted' } } },
    { after: 'gone a moment later (a deletion under way)', stillThere: 1, gone: true,
      expected: { code: 'FERRY_IMAGE_NOT_FOUND' } },
    { after: 'gone only after 3 s (a loaded Glance deleting a 128 MiB image from two stores: seen in CI)', stillThere: 4, gone: true,
      expected: { code: 'FERRY_IMAGE_NOT_FOUND' } },
  ])('ensure: an aborted import, the image $after → $expected.code', async ({ stillThere, gone, expected }) => {
    const timeline = loadTimeline('timeline-failure');
    const id = timelineImageId(timeline);
    const snapshots = abortedEnding(timeline);
    const { ctx, count } = stack(siteBFsid());
    const glance = ownTask(replaySnapshots(replayUpToImport(ctx.clock, timeline), timeline, snapshots), timeline, 'failure');
    replaySnapshots(glance, timeline, Array.from({ length: stillThere }, () => snapshots.at(-1)!));
    if (gone) replay(glance, loadExchange('glance', 'image-404'), { path: `/v2/images/${id}` });
    await expect(ensure(ctx, id, { store: timeline.store[0]!, random })).rejects.toMatchObject({
      ...expected, message: expect.stringContaining(id) as unknown });
    const rereads = stillThere + (gone ? 1 : 0);
    expect(count).toEqual({ tokenPosts: 1, imageGets: 1 + snapshots.length + rereads, importPosts: 1 });
    expect(ctx.clock.sleeps.slice(-rereads)).toEqual(COPY_ENGINE_LIMITS.deletionRecheckPausesMs.slice(0, rereads));
    expect(glance.isDone()).toBe(true);
    expect(nock.isDone()).toBe(true);
  });

  it('ensure: a 409 "active task", then someone else\'s copy ends with our store → joined, one POST, no second request', async () => {
    const timeline = loadTimeline('timeline-success');
    const store = timeline.store[0]!;
    const fsid = fsidOfLocation(timeline, store);
    const { ctx, count } = stack(fsid);
    // The recorded 409 is about another image; its answer is the same for any image whose lock is held.
    const glance = replaySnapshots(replayUpToImport(ctx.clock, timeline, loadExchange('glance', 'import-409-active-task')), timeline);
    const result = await ensure(ctx, timelineImageId(timeline), { store, random });
    expect(result).toMatchObject({ copied: false, joined: true, importRequests: 1, imageReads: 1 + timeline.snapshots.length,
      target: { fsid, image: timelineImageId(timeline) } });
    expect(count).toEqual({ tokenPosts: 1, imageGets: 1 + timeline.snapshots.length, importPosts: 1 });
    expect(glance.isDone()).toBe(true);
    expect(nock.isDone()).toBe(true);
  });

  it('ensure: the image already in the local cluster (recorded after a copy) → one GET, no import', async () => {
    const after = loadExchange('glance', 'image-after-copy');
    const id = after.request.path.split('/')[3]!;
    const locations = (after.body as { locations: { url: string; metadata: { store: string } }[] }).locations;
    const fsid = /^rbd:\/\/([^/]+)\//.exec(locations.find((l) => l.metadata.store === 'site-b')!.url)![1]!;
    const { ctx, count } = stack(fsid);
    replay(nock(KEYSTONE_ROOT), tokenExchange('token-password-admin', keystoneTime(ctx.clock.wallNow() + 3_600_000)),
      { headers: { 'x-subject-token': 'placeholder-token-1' } });
    replay(nock(GLANCE_ROOT), after);
    await expect(ensure(ctx, id, { store: 'site-b', random })).resolves.toMatchObject({ copied: false, joined: false,
      imageReads: 1, importRequests: 0, target: { fsid, image: id } });
    expect(count).toEqual({ tokenPosts: 1, imageGets: 1, importPosts: 0 });
    expect(nock.isDone()).toBe(true);
  });
});

