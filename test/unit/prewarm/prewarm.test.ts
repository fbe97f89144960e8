import { describe, expect, it } from 'vitest';
import { FerryError } from '../../../src/errors/ferry-error.js';
import { prewarm } from '../../../src/prewarm/prewarm.js';
import type { PrewarmEvent } from '../../../src/fleet/prewarm-events.js';
import { copyContext } from '../../helpers/scripted-glance.js';
import { imageId, scriptedImages, type ImageScript } from './scripted-images.js';

const T1 = 'a8860fd2-0000-4000-8000-000000000001';
const T9 = 'c0082af4-0000-4000-8000-000000000009';
const A = imageId(1);
const B = imageId(2);
const C = imageId(3);
const base = { random: () => 0.5 };

function run(scripts: Record<string, ImageScript>, stores: readonly string[], extra: Record<string, unknown> = {}, images = Object.keys(scripts)) {
  const glance = scriptedImages(scripts);
  const ctx = copyContext(glance);
  const events: PrewarmEvent[] = [];
  const result = prewarm(ctx, { images }, { stores, ...base, onProgress: (e) => events.push(e), ...extra });
  return { glance, ctx, events, result };
}

const outcomes = (report: Awaited<ReturnType<typeof prewarm>>) => report.items.map((item) => ({
  image: item.imageId, store: item.store, outcome: item.outcome, ...(item.failure ? { failure: item.failure } : {}) }));

/** A copy to site-a then site-b in one import: the property timeline Glance shows (reference §6.5). */
const copiedBoth: ImageScript = { reads: [
  { stores: ['central'] },
  { stores: ['central'], lock: T1 },
  { stores: ['central'], lock: T1, importing: ['site-a', 'site-b'], failed: [] },
  { stores: ['central', 'site-a'], lock: T1, importing: ['site-b'], failed: [] },
  { stores: ['central', 'site-a', 'site-b'], lock: T1, importing: [], failed: [] },
  { stores: ['central', 'site-a', 'site-b'], importing: [], failed: [] },
] };

describe('prewarm outcomes', () => {
  it('prewarm: copied — one import names both stores with allow-failure and is followed until the lock goes', async () => {
    const { glance, ctx, result } = run({ [A]: copiedBoth }, ['site-a', 'site-b']);
    const report = await result;
    expect(outcomes(report)).toEqual([{ image: A, store: 'site-a', outcome: 'copied' }, { image: A, store: 'site-b', outcome: 'copied' }]);
    // the first read waits half the expected time: 2 stores × (0.3 s + 20 MiB at 100 MiB/s) = 1 s
    expect(ctx.clock.sleeps[0]).toBe(500);
    expect(glance.copyRequests).toEqual([{ id: A, stores: ['site-a', 'site-b'], allStoresMustSucceed: false }]);
    expect(report.items[0]).toMatchObject({ planned: 'missing', action: 'copy', taskId: T1 });
    expect(report.counts).toMatchObject({ copied: 2, failed: 0 });
    // no read before the request (the plan's snapshot serves), then polls until the lock goes
    // one task read after the import: was the task that copied ours (its request id)?
    expect(report.requests).toEqual({ imageReads: 5, importRequests: 1, taskReads: 1 });
    expect(report.aborted).toBe(false);
  });

  it('prewarm: after the first import, the first read waits 3/4 of what the run\'s own imports took', async () => {
    const ctx = copyContext(scriptedImages({ [A]: copiedBoth, [B]: copiedBoth }));
    let aDone: { sleeps: number; at: number } | undefined;
    let aRequested = 0;
    await prewarm(ctx, { images: [A, B] }, { stores: ['site-a', 'site-b'], concurrency: 1, random: () => 0.5, onProgress: (event) => {
      if (event.type === 'job-progress' && event.imageId === A && event.phase === 'requesting') aRequested = ctx.clock.now();
      if (event.type === 'job-done' && event.imageId === A) aDone = { sleeps: ctx.clock.sleeps.length, at: ctx.clock.now() };
    } });
    expect(ctx.clock.sleeps[0]).toBe(500); // nothing learnt yet: half the size-based guess
    // A's import is learnt as ending midway between its last two reads (not when the run noticed it): each sleep of
    // A's wait precedes one read, so the end lies half of the last sleep before the read that saw it.
    const aSleeps = ctx.clock.sleeps.slice(0, aDone!.sleeps);
    const noticed = aSleeps.reduce((sum, ms) => sum + ms, 0);
    expect(aDone!.at - aRequested).toBe(noticed);
    expect(ctx.clock.sleeps[aDone!.sleeps]).toBe(Math.round((noticed - aSleeps.at(-1)! / 2) * 0.75));
  });

  it('prewarm: already there — present stores cost no request and no job', async () => {
    const { glance, result } = run({ [A]: { reads: [{ stores: ['central', 'site-a', 'site-b'] }] } }, ['site-a', 'site-b']);
    const report = await result;
    expect(outcomes(report)).toEqual([{ image: A, store: 'site-a', outcome: 'present' }, { image: A, store: 'site-b', outcome: 'present' }]);
    expect(glance.copyRequests).toEqual([]);
    expect(glance.reads[A]).toBe(1); // the lookup's read only
  });

  it('prewarm: failed — Glance fails one store, the other stays (allow-failure), each judged on its own', async () => {
    const { result } = run({ [A]: { reads: [
      { stores: ['central'] },
      { stores: ['central'], lock: T1, importing: ['site-a', 'broken'], failed: [] },
      { stores: ['central', 'site-a'], lock: T1, importing: [], failed: ['broken'] },
      { stores: ['central', 'site-a'], importing: [], failed: ['broken'] },
    ] } }, ['site-a', 'broken']);
    const report = await result;
    expect(outcomes(report)).toEqual([{ image: A, store: 'site-a', outcome: 'copied' },
      { image: A, store: 'broken', outcome: 'failed', failure: 'failed' }]);
    expect(report.items[1]).toMatchObject({ code: 'FERRY_COPY_FAILED', reason: expect.stringContaining('Glance reports the copy to broken failed') as unknown });
  });

  it('prewarm: a failure left by an earlier attempt does not fool it while our task holds the lock', async () => {
    const { glance, result } = run({ [A]: { reads: [
      { stores: ['central'], importing: [], failed: ['site-a'] },
      { stores: ['central'], lock: T1, importing: [], failed: ['site-a'] },
      { stores: ['central'], lock: T1, importing: ['site-a'], failed: [] },
      { stores: ['central', 'site-a'], importing: [], failed: [] },
    ] } }, ['site-a']);
    const report = await result;
    expect(outcomes(report)).toEqual([{ image: A, store: 'site-a', outcome: 'copied' }]);
    expect(report.items[0]?.planned).toBe('failed-earlier');
    expect(glance.copyRequests).toEqual([{ id: A, stores: ['site-a'], allStoresMustSucceed: undefined }]);
  });

  it('prewarm: rolled back — our store in no list while another failed is named as a rollback', async () => {
    const { result } = run({ [A]: { reads: [
      { stores: ['central'] },
      { stores: ['central'], lock: T1, importing: ['site-a'], failed: [] },
      { stores: ['central'], importing: [], failed: ['site-b'] },
    ] } }, ['site-a']);
    expect(outcomes(await result)).toEqual([{ image: A, store: 'site-a', outcome: 'failed', failure: 'rolled-back' }]);
  });

  it('prewarm: aborted — the import ends with our store in no list and nothing failed (a staging quota, a busted lock)', async () => {
    const { result } = run({ [A]: { reads: [
      { stores: ['central'] },
      { stores: ['central'], lock: T1, importing: ['site-a'], failed: [] },
      { stores: ['central'], importing: [], failed: [] },
    ] } }, ['site-a']);
    const report = await result;
    expect(outcomes(report)).toEqual([{ image: A, store: 'site-a', outcome: 'failed', failure: 'aborted' }]);
    expect(report.items[0]?.reason).toContain('the import ended without site-a');
  });

  it('prewarm: gave up — other imports keep the image busy round after round', async () => {
    const { glance, result } = run({ [A]: { reads: [{ stores: ['central'] }], answers: [{ kind: 'busy', message: 'Image has active task' }] } },
      ['site-a']);
    const report = await result;
    expect(outcomes(report)).toEqual([{ image: A, store: 'site-a', outcome: 'failed', failure: 'gave-up' }]);
    expect(glance.copyRequests).toHaveLength(7);
  });

  it('prewarm: joined — a copy someone else runs is waited out without a request', async () => {
    const { glance, result } = run({ [A]: { reads: [
      { stores: ['central'], lock: T9, importing: ['site-a'], failed: [] },
      { stores: ['central'], lock: T9, importing: ['site-a'], failed: [] },
      { stores: ['central', 'site-a'], importing: [], failed: [] },
    ] } }, ['site-a']);
    const report = await result;
    expect(outcomes(report)).toEqual([{ image: A, store: 'site-a', outcome: 'joined' }]);
    expect(report.items[0]?.planned).toBe('copying');
    expect(glance.copyRequests).toEqual([]);
  });

  it('prewarm: a joined import that did not bring our store is followed by our own request', async () => {
    const { glance, result } = run({ [A]: { reads: [
      { stores: ['central'], lock: T9, importing: ['site-b'], failed: [] },
      { stores: ['central', 'site-b'], importing: [], failed: [] },
      { stores: ['central', 'site-b'], lock: T1, importing: ['site-a'], failed: [] },
      { stores: ['central', 'site-b', 'site-a'], importing: [], failed: [] },
    ] } }, ['site-a', 'site-b']);
    const report = await result;
    expect(outcomes(report)).toEqual([{ image: A, store: 'site-a', outcome: 'copied' }, { image: A, store: 'site-b', outcome: 'joined' }]);
    expect(glance.copyRequests.map((r) => r.stores)).toEqual([['site-a']]);
  });

  it('prewarm: 409 busy → read again and join, then present without a second request', async () => {
    const { glance, result } = run({ [A]: {
      reads: [{ stores: ['central'] }, { stores: ['central'], lock: T9, importing: ['site-a'] }, { stores: ['central', 'site-a'] }],
      answers: [{ kind: 'busy', message: 'Image has active task' }],
    } }, ['site-a']);
    expect(outcomes(await result)).toEqual([{ image: A, store: 'site-a', outcome: 'joined' }]);
    expect(glance.copyRequests).toHaveLength(1);
  });

  it('prewarm: 400 already present (a copy that just ended) → read again, joined', async () => {
    const { result } = run({ [A]: {
      reads: [{ stores: ['central'] }, { stores: ['central', 'site-a'] }],
      answers: [{ kind: 'already-present', store: 'site-a' }],
    } }, ['site-a']);
    expect(outcomes(await result)).toEqual([{ image: A, store: 'site-a', outcome: 'joined' }]);
  });

  it('prewarm: not copyable — a qcow2 image is skipped for the rbd store and copied to the file store', async () => {
    const { glance, result } = run({ [A]: { reads: [
      { stores: ['site-a'], diskFormat: 'qcow2' },
      { stores: ['site-a'], diskFormat: 'qcow2', lock: T1, importing: ['central'] },
      { stores: ['site-a', 'central'], diskFormat: 'qcow2', importing: [], failed: [] },
    ] } }, ['site-b', 'central']);
    const report = await result;
    expect(outcomes(report)).toEqual([{ image: A, store: 'site-b', outcome: 'skipped' }, { image: A, store: 'central', outcome: 'copied' }]);
    expect(report.items[0]).toMatchObject({ skipReason: 'not-raw' });
    expect(glance.copyRequests.map((r) => r.stores)).toEqual([['central']]);
  });

  it('prewarm: deleted mid-run — the image 404s while copying: failed image-deleted; the other image is unaffected', async () => {
    const { result } = run({
      [A]: { reads: [{ stores: ['central'] }, { stores: ['central'], lock: T1, importing: ['site-a'] }, 'gone'] },
      [B]: { reads: [{ stores: ['central'] }, { stores: ['central'], lock: T1, importing: ['site-a'] }, { stores: ['central', 'site-a'], importing: [], failed: [] }] },
    }, ['site-a']);
    const report = await result;
    expect(outcomes(report)).toEqual([{ image: A, store: 'site-a', outcome: 'failed', failure: 'image-deleted' },
      { image: B, store: 'site-a', outcome: 'copied' }]);
    expect(report.items[0]?.code).toBe('FERRY_IMAGE_NOT_FOUND');
  });

  it('prewarm: a name Glance does not know fails that image only', async () => {
    const { glance, result } = run({ [A]: { reads: [{ stores: ['central', 'site-a'] }] } }, ['site-a'], {}, [A, 'nosuch-image']);
    const report = await result;
    expect(outcomes(report)).toEqual([{ image: A, store: 'site-a', outcome: 'present' },
      { image: 'nosuch-image', store: 'site-a', outcome: 'failed', failure: 'unresolved' }]);
    expect(glance.copyRequests).toEqual([]);
  });

  it('prewarm: a refusal (403 copy_image policy) fails the image with its code', async () => {
    const { result } = run({ [A]: { reads: [{ stores: ['central'] }],
      answers: [new FerryError('FERRY_FORBIDDEN', 'Glance refused the copy', 'Use an admin.')] } }, ['site-a']);
    const report = await result;
    expect(report.items[0]).toMatchObject({ outcome: 'failed', failure: 'refused', code: 'FERRY_FORBIDDEN' });
  });

  it('prewarm: a lock held by a task that ended long ago is reported as stuck, not waited on', async () => {
    const task = { id: T9, type: 'api_image_import', status: 'failure', message: '', input: { backend: ['site-a'] },
      created_at: '2026-11-21T10:00:00Z', updated_at: '2026-11-21T10:00:01Z' };
    // Ended 2 h ago: Glance would bust it, but taking over is turned off here.
    const { result } = run({ [A]: { reads: [{ stores: ['central'], lock: T9, importing: ['site-a'] }], tasks: [task] } }, ['site-a'],
      { takeOverExpired: false });
    const report = await result;
    expect(report.items[0]).toMatchObject({ outcome: 'failed', failure: 'stuck', code: 'FERRY_COPY_STUCK', taskId: T9 });
  });

  it('prewarm: a copy that outlives the deadline fails with timeout and is said to go on inside Glance', async () => {
    const { result } = run({ [A]: { reads: [{ stores: ['central'] }, { stores: ['central'], lock: T1, importing: ['site-a'] }] } }, ['site-a'],
      { timeoutMs: 5_000 });
    const report = await result;
    expect(report.items[0]).toMatchObject({ outcome: 'failed', failure: 'timeout', code: 'FERRY_COPY_TIMEOUT', runningInGlance: true, taskId: T1 });
  });

  // Issue 37: Glance writes an import's stores one after another, so the deadline of a job asking N stores is N times
  // --timeout (jobDeadlineMs); it was --timeout alone, whatever the number of stores.
  it('prewarm: the deadline of an image asked for 2 stores is 2 × --timeout', async () => {
    const { result } = run({ [A]: { reads: [{ stores: ['central'] }, { stores: ['central'], lock: T1, importing: ['site-a', 'site-b'] }] } },
      ['site-a', 'site-b'], { timeoutMs: 5_000 });
    const report = await result;
    expect(report.items[0]).toMatchObject({ outcome: 'failed', failure: 'timeout', code: 'FERRY_COPY_TIMEOUT' });
    expect(report.items.map((item) => item.reason)).toEqual(Array(2).fill(expect.stringContaining('did not finish within 10 s') as unknown));
  });
  // A 2-store job that times out: each store is reported by what Glance says of it at the end (its stores, its
  // importing and failed lists), not all as timed out — Glance had finished site-a, and the report said it failed.
  it.each([
    { what: 'site-a done, site-b still importing', last: { stores: ['central', 'site-a'], lock: T1, importing: ['site-b'], failed: [] },
      a: { outcome: 'copied', taskId: T1 }, b: { outcome: 'failed', failure: 'timeout', runningInGlance: true, taskId: T1 } },
    { what: 'site-a done, site-b failed by Glance while the lock is still held', last: { stores: ['central', 'site-a'], lock: T1, importing: [], failed: ['site-b'] },
      a: { outcome: 'copied', taskId: T1 }, b: { outcome: 'failed', failure: 'failed', code: 'FERRY_COPY_FAILED', taskId: T1 } },
    { what: 'neither written yet', last: { stores: ['central'], lock: T1, importing: ['site-a', 'site-b'], failed: [] },
      a: { outcome: 'failed', failure: 'timeout', runningInGlance: true }, b: { outcome: 'failed', failure: 'timeout', runningInGlance: true } },
    { what: 'site-b\'s failure left from an earlier attempt, the flow not started', flowStarted: false,
      last: { stores: ['central'], lock: T1, importing: [], failed: ['site-b'] },
      a: { outcome: 'failed', failure: 'timeout', runningInGlance: true }, b: { outcome: 'failed', failure: 'timeout', runningInGlance: true } },
  ] as const)('prewarm: a 2-store job past its deadline reports each store by what Glance says of it: $what', async ({ last, a, b, ...row }) => {
    const flow = 'flowStarted' in row ? [] : [{ stores: ['central'], lock: T1, importing: ['site-a', 'site-b'], failed: [] }];
    const { result } = run({ [A]: { reads: [{ stores: ['central'] }, ...flow, last] } }, ['site-a', 'site-b'], { timeoutMs: 5_000 });
    const report = await result;
    expect(report.items.map((item) => item.store)).toEqual(['site-a', 'site-b']);
    expect(report.items[0]).toMatchObject(a);
    expect(report.items[1]).toMatchObject(b);
    expect(report.counts).toMatchObject({ copied: a.outcome === 'copied' ? 1 : 0, failed: a.outcome === 'copied' ? 1 : 2 });
  });
});

describe('prewarm request modes, dry run, events', () => {
  it('prewarm: requestMode store sends one single-store request after another', async () => {
    const { glance, result } = run({ [A]: { reads: [
      { stores: ['central'] },
      { stores: ['central'], lock: T1, importing: ['site-a'] },
      { stores: ['central', 'site-a'], importing: [], failed: [] },
      { stores: ['central', 'site-a'], lock: T9, importing: ['site-b'] },
      { stores: ['central', 'site-a', 'site-b'], importing: [], failed: [] },
    ] } }, ['site-a', 'site-b'], { requestMode: 'store' });
    const report = await result;
    expect(outcomes(report).map((o) => o.outcome)).toEqual(['copied', 'copied']);
    expect(glance.copyRequests).toEqual([
      { id: A, stores: ['site-a'], allStoresMustSucceed: undefined }, { id: A, stores: ['site-b'], allStoresMustSucceed: undefined }]);
    expect(report.items.map((i) => i.taskId)).toEqual([T1, T9]);
  });

  it('prewarm: a dry run plans and sends nothing', async () => {
    const { glance, result } = run({ [A]: copiedBoth, [B]: { reads: [{ stores: ['central', 'site-a'] }] } }, ['site-a']);
    void result;
    const dry = await prewarm(copyContext(glance), { images: [A, B] }, { stores: ['site-a'], dryRun: true });
    expect(dry.items.map((i) => [i.planned, i.action, i.outcome])).toEqual([['missing', 'copy', undefined], ['present', 'none', undefined]]);
    expect(dry.dryRun).toBe(true);
  });

  it('prewarm: events — planned first, job progress, an item-done per (image, store), job-done per image', async () => {
    const { events, result } = run({ [A]: copiedBoth, [B]: { reads: [{ stores: ['central', 'site-a', 'site-b'] }] } }, ['site-a', 'site-b']);
    await result;
    expect(events[0]?.type).toBe('planned');
    expect(events.filter((e) => e.type === 'item-done')).toHaveLength(4);
    expect(events.filter((e) => e.type === 'job-done')).toEqual([{ type: 'job-done', imageId: A }]);
    const phases = new Set(events.flatMap((e) => (e.type === 'job-progress' ? [e.phase] : [])));
    expect(phases).toEqual(new Set(['checking', 'requesting', 'copying']));
    expect(Object.isFrozen(events[1])).toBe(true);
  });

  it('prewarm: an unknown store is refused before any copy, naming the stores there are', async () => {
    const { result } = run({ [A]: copiedBoth }, ['site-a', 'nosuch']);
    await expect(result).rejects.toMatchObject({ code: 'FERRY_STORE_NOT_FOUND', hint: expect.stringContaining('central, site-a, site-b, broken') as unknown });
  });

  it.each([
    { options: { concurrency: 0 }, message: /concurrency must be/ },
    { options: { perStoreConcurrency: 65 }, message: /perStoreConcurrency must be/ },
    { options: { stores: [] }, message: /stores must be/ },
    { options: { stores: ['site a'] }, message: /letters, digits/ },
    { options: { stores: ['site-b', 'site-a', 'site-b'] }, message: /stores names 'site-b' twice/ },
  ])('prewarm: invalid options are refused before any request ($message)', async ({ options, message }) => {
    const { glance } = run({ [A]: copiedBoth }, ['site-a']);
    await expect(prewarm(copyContext(glance), { images: [A] }, { stores: ['site-a'], ...options }))
      .rejects.toMatchObject({ code: 'FERRY_INVALID_OPTION', message: expect.stringMatching(message) as unknown });
  });
});

describe('prewarm interruption', () => {
  it('prewarm: an abort before the first read after the request still names the task Glance goes on with (read without the aborted signal)', async () => {
    const controller = new AbortController();
    const glance = scriptedImages({ [A]: { reads: [{ stores: ['central'] }, { stores: ['central'], lock: T1, importing: ['site-a'] }] } });
    const request = glance.requestCopy.bind(glance);
    glance.requestCopy = async (...args) => {
      const answer = await request(...args);
      controller.abort(new Error('interrupted by SIGTERM'));
      return answer;
    };
    const report = await prewarm(copyContext(glance), { images: [A] }, { stores: ['site-a'], signal: controller.signal, random: () => 0.5 });
    expect(report.items[0]).toMatchObject({ outcome: 'interrupted', runningInGlance: true, taskId: T1 });
    expect(report.runningInGlance).toEqual([{ imageId: A, imageName: expect.any(String) as unknown, stores: ['site-a'], taskId: T1 }]);
  });

  it('prewarm: an abort stops new work, names the copy going on inside Glance, and returns the report', async () => {
    const controller = new AbortController();
    const glance = scriptedImages({
      [A]: { reads: [{ stores: ['central'] }, { stores: ['central'], lock: T1, importing: ['site-a'] }] },
      [B]: { reads: [{ stores: ['central'] }] },
      [C]: { reads: [{ stores: ['central'] }] },
    });
    glance.onRead = (id, index) => {
      if (id === A && index === 1 && (glance.reads[A] ?? 0) >= 3) controller.abort(new Error('interrupted by SIGINT'));
    };
    const events: PrewarmEvent[] = [];
    const report = await prewarm(copyContext(glance), { images: [A, B, C] },
      { stores: ['site-a'], concurrency: 1, signal: controller.signal, random: () => 0.5, onProgress: (e) => events.push(e) });
    expect(report.aborted).toBe(true);
    expect(outcomes(report).map((o) => o.outcome)).toEqual(['interrupted', 'interrupted', 'interrupted']);
    expect(report.items[0]).toMatchObject({ runningInGlance: true, taskId: T1 });
    expect(report.items[1]).toMatchObject({ runningInGlance: false });
    expect(report.runningInGlance).toEqual([{ imageId: A, imageName: expect.any(String) as unknown, stores: ['site-a'], taskId: T1 }]);
    expect(glance.copyRequests.map((r) => r.id)).toEqual([A]);
    expect(events.some((e) => e.type === 'aborting')).toBe(true);
  });
});
