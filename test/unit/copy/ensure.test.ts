import { describe, expect, it } from 'vitest';
import { resolveBackendConfig } from '../../../src/backend/resolve-backend-config.js';
import { ensure, ensureOnHost } from '../../../src/copy/ensure.js';
import { FSID_A, FSID_B, IMAGE_ID } from '../../helpers/image-body.js';
import { copyContext, scriptedGlance } from '../../helpers/scripted-glance.js';

const T1 = 'a8860fd2-0000-4000-8000-000000000001';
const T9 = 'c0082af4-0000-4000-8000-000000000009';
const options = { store: 'site-b', random: () => 0.5 };

describe('ensure', () => {
  it('ensure: an image already clonable in the local cluster costs one read and no write', async () => {
    const glance = scriptedGlance({ images: [{ stores: ['site-a', 'site-b'] }] });
    const result = await ensure(copyContext(glance, undefined, FSID_B), IMAGE_ID, options);
    expect(result).toMatchObject({ copied: false, joined: false, imageReads: 1, importRequests: 0,
      target: { fsid: FSID_B, pool: 'images', image: IMAGE_ID, snapshot: 'snap', url: `rbd://${FSID_B}/images/${IMAGE_ID}/snap` } });
    expect(glance.calls).toEqual({ getImage: 1, requestCopy: 0, listImageTasks: 0 });
  });

  it('ensure: a non-raw image is refused before any copy', async () => {
    const glance = scriptedGlance({ images: [{ diskFormat: 'qcow2' }] });
    await expect(ensure(copyContext(glance, undefined, FSID_B), IMAGE_ID, options))
      .rejects.toMatchObject({ code: 'FERRY_NOT_CLONABLE', message: expect.stringContaining('disk_format qcow2') as unknown });
    expect(glance.calls.requestCopy).toBe(0);
  });

  it('ensure: copies, follows the property timeline and returns the target in the local cluster', async () => {
    const glance = scriptedGlance({ images: [
      { stores: ['site-a'] },
      { stores: ['site-a'], lock: T1 },
      { stores: ['site-a'], lock: T1, importing: ['site-b'], failed: [] },
      { stores: ['site-a', 'site-b'], lock: T1, importing: [], failed: [] },
      { stores: ['site-a', 'site-b'], importing: [], failed: [] },
    ] });
    const ctx = copyContext(glance, undefined, FSID_B);
    const result = await ensure(ctx, IMAGE_ID, options);
    expect(result).toMatchObject({ copied: true, joined: false, importRequests: 1, imageReads: 5, target: { fsid: FSID_B } });
    expect(glance.copyRequests).toEqual([{ id: IMAGE_ID, stores: ['site-b'] }]);
  });

  it('ensure: a failure left by an earlier attempt does not fool it while our task holds the lock', async () => {
    const glance = scriptedGlance({ images: [
      { stores: ['site-a'], importing: [], failed: ['site-b'] },
      { stores: ['site-a'], lock: T1, importing: [], failed: ['site-b'] },
      { stores: ['site-a'], lock: T1, importing: ['site-b'], failed: [] },
      { stores: ['site-a', 'site-b'], importing: [], failed: [] },
    ] });
    const result = await ensure(copyContext(glance, undefined, FSID_B), IMAGE_ID, options);
    expect(result).toMatchObject({ copied: true, importRequests: 1 });
  });

  it('ensure: a copy Glance fails is reported as soon as the lock is released, not at the timeout', async () => {
    const glance = scriptedGlance({ images: [
      { stores: ['site-a'] },
      { stores: ['site-a'], lock: T1, importing: ['site-b'], failed: [] },
      { stores: ['site-a'], lock: T1, importing: [], failed: ['site-b'] },
      { stores: ['site-a'], importing: [], failed: ['site-b'] },
    ] });
    const ctx = copyContext(glance, undefined, FSID_B);
    await expect(ensure(ctx, IMAGE_ID, options)).rejects.toMatchObject({ code: 'FERRY_COPY_FAILED',
      details: { outcome: 'failed', store: 'site-b' } });
    expect(glance.calls.getImage).toBe(4);
    expect(ctx.clock.now()).toBeLessThan(2_000);
  });

  it('ensure: a rollback (another store of the same import failed) is named as such', async () => {
    const glance = scriptedGlance({ images: [
      { stores: ['site-a'] },
      { stores: ['site-a'], importing: [], failed: ['broken'] },
    ] });
    await expect(ensure(copyContext(glance, undefined, FSID_B), IMAGE_ID, options))
      .rejects.toMatchObject({ code: 'FERRY_COPY_FAILED', details: { outcome: 'rolled-back' } });
  });

  it('ensure: 400 "already present" → read again and succeed without waiting', async () => {
    const glance = scriptedGlance({
      images: [{ stores: ['site-a'] }, { stores: ['site-a', 'site-b'] }],
      answers: [{ kind: 'already-present', store: 'site-b' }],
    });
    const result = await ensure(copyContext(glance, undefined, FSID_B), IMAGE_ID, options);
    expect(result).toMatchObject({ copied: false, importRequests: 1, imageReads: 2 });
  });

  it('ensure: 409 busy → joins the running import, then finds the image there: one request', async () => {
    const glance = scriptedGlance({
      images: [
        { stores: ['site-a'] },
        { stores: ['site-a'], lock: T9, importing: ['site-b'] },
        { stores: ['site-a'], lock: T9, importing: ['site-b'] },
        { stores: ['site-a', 'site-b'], importing: [], failed: [] },
      ],
      answers: [{ kind: 'busy', message: 'Image has active task' }],
    });
    const result = await ensure(copyContext(glance, undefined, FSID_B), IMAGE_ID, options);
    expect(result).toMatchObject({ copied: false, joined: true, importRequests: 1 });
  });

  it('ensure: a joined import that did not bring our store → requests again', async () => {
    const glance = scriptedGlance({
      images: [
        { stores: ['site-a'], lock: T9, importing: ['central'] },
        { stores: ['site-a'], lock: T9, importing: ['central'] },
        { stores: ['site-a', 'central'], importing: [], failed: [] },
        { stores: ['site-a', 'central'], lock: T1, importing: ['site-b'] },
        { stores: ['site-a', 'central', 'site-b'], importing: [], failed: [] },
      ],
    });
    const result = await ensure(copyContext(glance, undefined, FSID_B), IMAGE_ID, options);
    expect(result).toMatchObject({ copied: true, joined: true, importRequests: 1 });
  });

  it('ensure: a joined lock whose task has not moved for long is reported stuck at once, with task id and age', async () => {
    const glance = scriptedGlance({
      images: [{ stores: ['site-a'], lock: T9, importing: ['site-b'] }],
      tasks: [{ id: T9, type: 'api_image_import', status: 'processing', message: '', input: { backend: ['site-b'] },
        created_at: '2026-11-21T10:00:00Z', updated_at: '2026-11-21T11:30:00Z' }],
    });
    const ctx = copyContext(glance, undefined, FSID_B);
    await expect(ensure(ctx, IMAGE_ID, options)).rejects.toMatchObject({ code: 'FERRY_COPY_STUCK',
      details: { taskId: T9, taskAgeSeconds: 1800, releaseAt: '2026-11-21T12:30:00.000Z' } });
    expect(glance.calls.requestCopy).toBe(0);
    expect(ctx.clock.sleeps).toEqual([]);
  });

  it('ensure: a copy that never ends times out with what it saw all along', async () => {
    const glance = scriptedGlance({ images: [{ stores: ['site-a'] }, { stores: ['site-a'], lock: T1, importing: ['site-b'] }] });
    const ctx = copyContext(glance, undefined, FSID_B);
    const error = await ensure(ctx, IMAGE_ID, { ...options, timeoutMs: 30_000, maxPollDelayMs: 5_000 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'FERRY_COPY_TIMEOUT', details: { seen: { 'copying to site-b': expect.any(Number) as unknown } } });
    expect(ctx.clock.now()).toBeLessThanOrEqual(30_000);
    expect(ctx.clock.now()).toBeGreaterThan(29_000);
  });

  it('ensure: the store holds the image but in another cluster → FERRY_NOT_LOCAL, no request', async () => {
    const glance = scriptedGlance({ images: [{ stores: ['site-a', 'site-b'] }] });
    await expect(ensure(copyContext(glance, undefined, '99999999-0000-4000-8000-000000000000'), IMAGE_ID, options))
      .rejects.toMatchObject({ code: 'FERRY_NOT_LOCAL' });
    expect(glance.calls.requestCopy).toBe(0);
  });

  it('ensure: 100 concurrent calls for one image make one import request and one wait', async () => {
    const glance = scriptedGlance({ images: [
      { stores: ['site-a'] },
      { stores: ['site-a'], lock: T1, importing: ['site-b'] },
      { stores: ['site-a', 'site-b'], importing: [], failed: [] },
    ] });
    const ctx = copyContext(glance, undefined, FSID_B);
    const results = await Promise.all(Array.from({ length: 100 }, () => ensure(ctx, IMAGE_ID, options)));
    expect(glance.calls.requestCopy).toBe(1);
    expect(new Set(results.map((r) => r.target.url))).toEqual(new Set([`rbd://${FSID_B}/images/${IMAGE_ID}/snap`]));
    expect(glance.calls.getImage).toBe(3);
  });

  it('ensure: an abort while waiting ends at once with FERRY_ABORTED', async () => {
    const controller = new AbortController();
    const glance = scriptedGlance({ images: [{ stores: ['site-a'] }, { stores: ['site-a'], lock: T1, importing: ['site-b'] }],
      onRead: (index) => { if (index === 1) controller.abort(new Error('Ctrl-C')); } });
    await expect(ensure(copyContext(glance, undefined, FSID_B), IMAGE_ID, { ...options, signal: controller.signal }))
      .rejects.toThrow('Ctrl-C');
  });

  it('ensure: options are validated before any request', async () => {
    const glance = scriptedGlance({ images: [{}] });
    await expect(ensure(copyContext(glance), IMAGE_ID, { store: 'site b' })).rejects.toMatchObject({ code: 'FERRY_INVALID_OPTION' });
    await expect(ensure(copyContext(glance), IMAGE_ID, { store: 'site-b', timeoutMs: 0 })).rejects.toMatchObject({ code: 'FERRY_INVALID_OPTION' });
    expect(glance.calls.getImage).toBe(0);
  });

  it('ensure: a site-a image is already local to a site-a host', async () => {
    const glance = scriptedGlance({ images: [{ stores: ['site-a'] }] });
    const result = await ensure(copyContext(glance, undefined, FSID_A), IMAGE_ID, { store: 'site-a' });
    expect(result.target.fsid).toBe(FSID_A);
  });
});

describe('ensureOnHost', () => {
  const rbdHostKeepingQcow2 = resolveBackendConfig({ imagesType: 'rbd', imagesTypeMapping: 'qcow2:qcow2', useCowImages: true });

  it('ensureOnHost: an image this host keeps in another backend needs no copy: one read, no request', async () => {
    const glance = scriptedGlance({ images: [{ diskFormat: 'qcow2' }] });
    const outcome = await ensureOnHost(copyContext(glance, undefined, FSID_B), IMAGE_ID, { ...options, backend: rbdHostKeepingQcow2 });
    expect(outcome).toMatchObject({ needed: false, imageReads: 1, backend: { backend: 'qcow2', converted: false, decidedBy: 'images_type_mapping' } });
    expect(glance.calls).toEqual({ getImage: 1, requestCopy: 0, listImageTasks: 0 });
  });

  it('ensureOnHost: a raw image on the same host goes to rbd and is copied as usual', async () => {
    const glance = scriptedGlance({ images: [{ stores: ['site-a'] }, { stores: ['site-a', 'site-b'], importing: [], failed: [] }] });
    const outcome = await ensureOnHost(copyContext(glance, undefined, FSID_B), IMAGE_ID, { ...options, backend: rbdHostKeepingQcow2 });
    expect(outcome).toMatchObject({ needed: true, copied: true, importRequests: 1 });
  });
});

describe('ensure: learning copy durations', () => {
  it('ensure: learns the copy\'s end (midway between the last two reads), not when it noticed it', async () => {
    const MiB = 1024 * 1024;
    const size = 512 * MiB;
    const glance = scriptedGlance({ images: [
      { stores: ['site-a'], size },
      { stores: ['site-a'], lock: T1, importing: ['site-b'], size },
      { stores: ['site-a'], lock: T1, importing: ['site-b'], size },
      { stores: ['site-a'], lock: T1, importing: ['site-b'], size },
      { stores: ['site-a', 'site-b'], importing: [], failed: [], size },
    ] });
    const ctx = copyContext(glance, undefined, FSID_B);
    const recorded: number[] = [];
    const record = ctx.copyDurations.record.bind(ctx.copyDurations);
    const durations = { ...ctx.copyDurations, record: (store: string, bytes: number | null, ms: number) => { recorded.push(ms); record(store, bytes, ms); } };
    await ensure({ ...ctx, copyDurations: durations }, IMAGE_ID, options);
    const reads = ctx.clock.sleeps.reduce<number[]>((at, sleep) => [...at, (at.at(-1) ?? 0) + sleep], [0]);
    expect(recorded).toEqual([(reads.at(-2)! + reads.at(-1)!) / 2]);
  });
});
