import { describe, expect, it } from 'vitest';
import { ensure } from '../../../src/copy/ensure.js';
import { FerryError } from '../../../src/errors/ferry-error.js';
import { FSID_B, IMAGE_ID, type ImageShape } from '../../helpers/image-body.js';
import { fakeClock } from '../../helpers/fake-clock.js';
import { copyContext, scriptedGlance, type ScriptedGlance } from '../../helpers/scripted-glance.js';

// The copy engine's answers to what Glance really does (issue: lock race between API workers, glance-api restarts,
// expired locks, lost answers, hanging requests), driven through ensure() over a scripted Glance on a fake clock.

const T1 = 'a8860fd2-0000-4000-8000-000000000001';
const T2 = 'b9971fe3-0000-4000-8000-000000000002';
const T9 = 'c0082af4-0000-4000-8000-000000000009';
const options = { store: 'site-b', random: () => 0.5 };
/** The fake clock's wall time at 0 (test/helpers/fake-clock.ts). */
const WALL0 = Date.UTC(2026, 10, 21, 12, 0, 0);
const iso = (ms: number): string => new Date(ms).toISOString();

function task(id: string, fields: { status: string; request_id?: string; message?: string; updated?: number; stores?: string[] }): Record<string, unknown> {
  return { id, type: 'api_image_import', status: fields.status, message: fields.message ?? '', request_id: fields.request_id ?? null,
    input: { backend: fields.stores ?? ['site-b'] }, created_at: iso(WALL0 - 60_000), updated_at: iso(fields.updated ?? WALL0) };
}

const unreachable = (cause: string, notSent = false): FerryError => new FerryError('FERRY_UNREACHABLE',
  `cannot reach 127.0.0.1:9292: ${cause}`, 'Check that the service is running.', { cause, retryable: true, notSent });

describe('copy engine: our own task, told by its request id', () => {
  it('copy engine: our task holds the lock and copies → copied, with its task id', async () => {
    const glance = scriptedGlance({
      images: [{ stores: ['site-a'] }, { stores: ['site-a'], lock: T1, importing: ['site-b'] }, { stores: ['site-a', 'site-b'], importing: [], failed: [] }],
      tasks: [task(T1, { status: 'success', request_id: 'req-1' })],
    });
    const result = await ensure(copyContext(glance, undefined, FSID_B), IMAGE_ID, options);
    expect(result).toMatchObject({ copied: true, joined: false, taskId: T1, tookOver: undefined, importRequests: 1 });
    expect(glance.calls.listImageTasks).toBe(1);
  });

  it('copy engine: the lock race — Glance answered 202 but aborted our task while another copied the store → joined, not copied', async () => {
    // Two API workers: ours (T1, req-1) wrote the lock first, the other busted it (its row did not exist yet) and copied.
    const glance = scriptedGlance({
      images: [{ stores: ['site-a'] }, { stores: ['site-a'], lock: T2, importing: ['site-b'] }, { stores: ['site-a', 'site-b'], importing: [], failed: [] }],
      tasks: [task(T1, { status: 'failure', request_id: 'req-1', message: 'Task was aborted externally' }),
        task(T2, { status: 'success', request_id: 'req-other' })],
    });
    const result = await ensure(copyContext(glance, undefined, FSID_B), IMAGE_ID, options);
    expect(result).toMatchObject({ copied: false, joined: true, taskId: T2, importRequests: 1 });
  });

  it('copy engine: our task aborted and no task brought the store → requests again, and the second import is ours', async () => {
    const glance = scriptedGlance({
      images: [
        { stores: ['site-a'] },
        { stores: ['site-a'], importing: [], failed: [] },
        { stores: ['site-a'], lock: T2, importing: ['site-b'] },
        { stores: ['site-a', 'site-b'], importing: [], failed: [] },
      ],
      answers: [{ kind: 'accepted', requestId: 'req-1' }, { kind: 'accepted', requestId: 'req-2' }],
      taskLists: [
        [task(T1, { status: 'failure', request_id: 'req-1', message: 'Task was aborted externally' })],
        [task(T1, { status: 'failure', request_id: 'req-1', message: 'Task was aborted externally' }), task(T2, { status: 'success', request_id: 'req-2' })],
      ],
    });
    const result = await ensure(copyContext(glance, undefined, FSID_B), IMAGE_ID, options);
    expect(result).toMatchObject({ copied: true, taskId: T2, importRequests: 2 });
    expect(glance.copyRequests).toHaveLength(2);
  });
});

describe('copy engine: naming the task that brought a store', () => {
  it('copy engine: a 409 (someone else copies) and the store present at the next read → joined, named by the newest successful task', async () => {
    const glance = scriptedGlance({
      images: [{ stores: ['site-a'] }, { stores: ['site-a', 'site-b'], importing: [], failed: [] }],
      answers: [{ kind: 'busy', message: 'Image has active task' }],
      tasks: [task(T1, { status: 'success', request_id: 'req-old', updated: WALL0 - 3_600_000 }), task(T2, { status: 'success', request_id: 'req-other' }),
        task(T9, { status: 'success', stores: ['central'] })],
    });
    const result = await ensure(copyContext(glance, undefined, FSID_B), IMAGE_ID, options);
    expect(result).toMatchObject({ copied: false, joined: true, taskId: T2, importRequests: 1 });
    expect(glance.calls.listImageTasks).toBe(1);
  });
});

describe('copy engine: naming the task that is still writing', () => {
  it('copy engine (prewarm): a 409, then one store already written by the import still running → joined, named by the lock holder', async () => {
    const glance = scriptedGlance({
      images: [{ stores: ['site-a'] }, { stores: ['site-a', 'site-b'], lock: T2, importing: ['central'], failed: [] }],
      answers: [{ kind: 'busy', message: 'Image has active task' }],
      tasks: [task(T1, { status: 'success', updated: WALL0 - 3_600_000 }), task(T2, { status: 'processing', stores: ['site-b', 'central'] })],
    });
    const result = await ensure(copyContext(glance, undefined, FSID_B), IMAGE_ID, options);
    expect(result).toMatchObject({ joined: true, taskId: T2 });
  });
});

describe('copy engine: locks that will never be released by their task', () => {
  it('copy engine: an expired lock (task not moved for 2 h) is taken over: the import is sent and our own copy followed', async () => {
    const glance = beforeAndAfterRequest({ stores: ['site-a'], lock: T9, importing: ['site-b'] },
      [task(T9, { status: 'processing', updated: WALL0 - 2 * 3_600_000 })]);
    const result = await ensure(copyContext(glance, undefined, FSID_B), IMAGE_ID, options);
    expect(result).toMatchObject({ copied: true, tookOver: T9, taskId: T1, importRequests: 1 });
  });

  it('copy engine: with --take-over-expired false the same lock is FERRY_COPY_STUCK, and no import is sent', async () => {
    const glance = scriptedGlance({
      images: [{ stores: ['site-a'], lock: T9, importing: ['site-b'] }],
      tasks: [task(T9, { status: 'processing', updated: WALL0 - 2 * 3_600_000 })],
    });
    await expect(ensure(copyContext(glance, undefined, FSID_B), IMAGE_ID, { ...options, takeOverExpired: false }))
      .rejects.toMatchObject({ code: 'FERRY_COPY_STUCK', details: { taskId: T9, expired: true, cause: 'not-moving' } });
    expect(glance.calls.requestCopy).toBe(0);
  });

  it('copy engine: glance-api restarted mid-copy (reads refused, then answered) → the task is dead: FERRY_COPY_STUCK at once, release time ahead', async () => {
    const updated = WALL0 - 5 * 60_000;
    const glance = scriptedGlance({
      images: [{ stores: ['site-a'] }, { stores: ['site-a'], lock: T1, importing: ['site-b'] }],
      readFaults: { 2: unreachable('ECONNREFUSED', true), 3: unreachable('ECONNREFUSED', true) },
      tasks: [task(T1, { status: 'processing', request_id: 'req-1', updated })],
    });
    const ctx = copyContext(glance, undefined, FSID_B);
    const error = await ensure(ctx, IMAGE_ID, options).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'FERRY_COPY_STUCK', details: { taskId: T1, cause: 'glance-restarted', expired: false,
      releaseAt: iso(updated + 3_600_000) } });
    expect((error as FerryError).hint).toContain(`until ${iso(updated + 3_600_000)}`);
    // a few reads through the outage, nowhere near the 600 s timeout
    expect(ctx.clock.now()).toBeLessThan(5_000);
  });

  it('copy engine: taking over as a caller that does not own the image — Glance busts the lock, answers 403 "You do not own this image" and leaves the lock to a task it never stored → asked again at once, the original task named as taken over', async () => {
    const T8 = 'd1193b05-0000-4000-8000-000000000008';
    const ahead = scriptedGlance({ images: [{ stores: ['site-a'], lock: T9, importing: ['site-b'] }],
      tasks: [task(T9, { status: 'processing', updated: WALL0 - 2 * 3_600_000 })] });
    const dead = scriptedGlance({ images: [{ stores: ['site-a'], lock: T8, importing: ['site-b'] }], tasks: [task(T9, { status: 'failure' })] });
    const after = scriptedGlance({
      images: [{ stores: ['site-a'], lock: T1, importing: ['site-b'] }, { stores: ['site-a', 'site-b'], importing: [], failed: [] }],
      tasks: [task(T9, { status: 'failure' }), task(T1, { status: 'success', request_id: 'req-2' })],
    });
    const answers = [{ kind: 'busy', message: 'You do not own this image', deadLock: true }, { kind: 'accepted', requestId: 'req-2' }] as const;
    let sent = 0;
    const now = (): ScriptedGlance => [ahead, dead, after][sent] ?? after;
    const glance: ScriptedGlance = { ...ahead,
      getImage: (id, call) => now().getImage(id, call), findImage: (id, call) => now().findImage(id, call),
      listImageTasks: (id, call) => now().listImageTasks(id, call),
      requestCopy: (id, request) => { ahead.copyRequests.push({ id, stores: request.stores }); return Promise.resolve(answers[Math.min(sent++, 1)]!); } };
    const ctx = copyContext(glance, undefined, FSID_B);
    const result = await ensure(ctx, IMAGE_ID, options);
    expect(result).toMatchObject({ copied: true, tookOver: T9, taskId: T1, importRequests: 2 });
    // at once, not after the 15 s grace a lock naming an unknown task gets
    expect(ctx.clock.now()).toBeLessThan(15_000);
  });

  it('copy engine: a lock naming a task Glance does not have, held past the grace → taken over', async () => {
    const glance = beforeAndAfterRequest({ stores: ['site-a'], lock: T9 }, []);
    const ctx = copyContext(glance, undefined, FSID_B);
    const result = await ensure(ctx, IMAGE_ID, options);
    expect(result).toMatchObject({ copied: true, tookOver: T9, taskId: T1 });
    // not at the first task read: Glance writes the lock before the task's row (the lock race), so it waits out the grace
    expect(ctx.clock.now()).toBeGreaterThanOrEqual(15_000);
  });
});

describe('copy engine: a lock whose task ferry\'s project cannot see (ferry not admin: Glance lists only its project\'s tasks)', () => {
  /** The lock held by T9, a task of another project (never in our task list), until `releasedAtMs` on the clock. */
  function foreignLock(releasedAtMs: number): { glance: ScriptedGlance; ctx: ReturnType<typeof copyContext> } {
    const locked = scriptedGlance({ images: [{ stores: ['site-a'], lock: T9, importing: ['site-b'] }],
      answers: [{ kind: 'busy', message: 'Image has active task' }], tasks: [] });
    const released = scriptedGlance({ images: [{ stores: ['site-a', 'site-b'], importing: [], failed: [] }], tasks: [] });
    const clock = fakeClock();
    const now = (): ScriptedGlance => (clock.now() < releasedAtMs ? locked : released);
    const glance: ScriptedGlance = { ...locked,
      getImage: (id, call) => now().getImage(id, call), findImage: (id, call) => now().findImage(id, call) };
    return { glance, ctx: copyContext(glance, clock, FSID_B) };
  }

  it('copy engine: Glance refuses to bust it (409: the task exists) → one take-over attempt, then waits for it like any other import → joined', async () => {
    const { glance, ctx } = foreignLock(90_000);
    const result = await ensure(ctx, IMAGE_ID, options);
    expect(result).toMatchObject({ copied: false, joined: true, tookOver: undefined });
    expect(glance.calls.requestCopy).toBe(1);
    expect(ctx.clock.now()).toBeGreaterThanOrEqual(90_000);
  });

  it('copy engine: it never lets go → FERRY_COPY_STUCK (unseen-task) once held past --stale-lock-after, after one take-over attempt, no release time promised', async () => {
    const { glance, ctx } = foreignLock(Number.POSITIVE_INFINITY);
    const error = await ensure(ctx, IMAGE_ID, { ...options, staleLockAfterMs: 120_000 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'FERRY_COPY_STUCK', details: { taskId: T9, cause: 'unseen-task', expired: false, taskStatus: 'unseen' } });
    expect((error as FerryError).details.releaseAt).toBeUndefined();
    expect((error as FerryError).hint).toContain('cannot see');
    expect(glance.calls.requestCopy).toBe(1);
    expect(ctx.clock.now()).toBeGreaterThanOrEqual(120_000);
    expect(ctx.clock.now()).toBeLessThan(300_000);
  });
});

/**
 * A Glance whose image shows `locked` until ferry sends an import, then our copy (T1, req-1) running and done; its task
 * list is `before` until then, then the old task preempted and ours a success.
 */
function beforeAndAfterRequest(locked: ImageShape, before: readonly Record<string, unknown>[]): ScriptedGlance {
  const ahead = scriptedGlance({ images: [locked], tasks: before });
  const after = scriptedGlance({
    images: [{ stores: ['site-a'], lock: T1, importing: ['site-b'] }, { stores: ['site-a', 'site-b'], importing: [], failed: [] }],
    tasks: [task(T9, { status: 'failure', message: 'Expired lock preempted' }), task(T1, { status: 'success', request_id: 'req-1' })],
  });
  const now = (): ScriptedGlance => (ahead.calls.requestCopy === 0 ? ahead : after);
  return { ...ahead,
    getImage: (id, call) => now().getImage(id, call),
    findImage: (id, call) => now().findImage(id, call),
    listImageTasks: (id, call) => now().listImageTasks(id, call) };
}

describe('copy engine: the deadline and lost answers', () => {
  it('copy engine: a read that hangs is cut at the deadline → FERRY_COPY_TIMEOUT, not a later request timeout', async () => {
    let reached: () => void = () => undefined;
    const hanging = new Promise<void>((resolve) => { reached = resolve; });
    const glance = scriptedGlance({ images: [{ stores: ['site-a'] }, { stores: ['site-a'], lock: T1, importing: ['site-b'] }],
      readFaults: { 1: 'hang' }, onRead: () => undefined });
    const ctx = copyContext(glance, undefined, FSID_B);
    const originalRequest = glance.requestCopy.bind(glance);
    glance.requestCopy = async (...args) => { const answer = await originalRequest(...args); reached(); return answer; };
    const pending = ensure(ctx, IMAGE_ID, { ...options, timeoutMs: 15_000 }).catch((e: unknown) => e);
    await hanging;
    await new Promise((resolve) => setImmediate(resolve));
    ctx.clock.advance(15_000);
    const error = await pending;
    expect(error).toMatchObject({ code: 'FERRY_COPY_TIMEOUT', details: { timeoutMs: 15_000 } });
  });

  it('copy engine: the import\'s answer was lost (reset after sending) → the image shows the copy running: followed, no second request', async () => {
    const glance = scriptedGlance({
      images: [{ stores: ['site-a'] }, { stores: ['site-a'], lock: T1, importing: ['site-b'] }, { stores: ['site-a', 'site-b'], importing: [], failed: [] }],
      answers: [unreachable('ECONNRESET')],
    });
    const result = await ensure(copyContext(glance, undefined, FSID_B), IMAGE_ID, options);
    expect(result).toMatchObject({ joined: true, taskId: T1, importRequests: 1 });
    expect(glance.calls.requestCopy).toBe(1);
  });

  it('copy engine: a 503 to the import (a gateway) and nothing running → asks again', async () => {
    const gateway = new FerryError('FERRY_HTTP', 'Glance answered 503', 'Retry.', { status: 503, retryable: true });
    const glance = scriptedGlance({
      images: [{ stores: ['site-a'] }, { stores: ['site-a'] }, { stores: ['site-a'], lock: T1, importing: ['site-b'] },
        { stores: ['site-a', 'site-b'], importing: [], failed: [] }],
      answers: [gateway, { kind: 'accepted', requestId: 'req-1' }],
      tasks: [task(T1, { status: 'success', request_id: 'req-1' })],
    });
    const result = await ensure(copyContext(glance, undefined, FSID_B), IMAGE_ID, options);
    expect(result).toMatchObject({ copied: true, taskId: T1, importRequests: 2 });
  });

  it('copy engine: the answer was lost and Glance stays away until the deadline → FERRY_COPY_UNCONFIRMED saying a re-run joins', async () => {
    const faults = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [i + 1, unreachable('ECONNREFUSED', true)]));
    const glance = scriptedGlance({ images: [{ stores: ['site-a'] }], answers: [unreachable('ECONNRESET')], readFaults: faults });
    const error = await ensure(copyContext(glance, undefined, FSID_B), IMAGE_ID, { ...options, timeoutMs: 30_000 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'FERRY_COPY_UNCONFIRMED', message: expect.stringContaining('answer was lost') as unknown });
    expect((error as FerryError).hint).toContain('joins a copy that runs');
    expect(glance.calls.requestCopy).toBe(1);
  });
});

describe('copy engine: an outage seen in any step counts as a glance-api restart', () => {
  const gateway = (status: number): FerryError => new FerryError('FERRY_HTTP', `Glance answered ${status}`, 'Retry.', { status, retryable: true });

  it('copy engine: the answer to the POST lost, 502s from a gateway while reading through it, then answers: the pending task holding the lock is dead → FERRY_COPY_STUCK at once, released 120 min after it last moved', async () => {
    const updated = WALL0 - 1_000;
    const glance = scriptedGlance({
      images: [{ stores: ['site-a'] }, { stores: ['site-a'], lock: T1, importing: ['site-b'] }],
      answers: [unreachable('ECONNRESET')],
      readFaults: { 1: gateway(502), 2: gateway(502), 3: gateway(503) },
      tasks: [task(T1, { status: 'pending', request_id: 'req-1', updated })],
    });
    const ctx = copyContext(glance, undefined, FSID_B);
    const error = await ensure(ctx, IMAGE_ID, options).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'FERRY_COPY_STUCK', details: { taskId: T1, taskStatus: 'pending', cause: 'glance-restarted',
      releaseAt: iso(updated + 120 * 60_000) } });
    expect((error as FerryError).message).toContain(`${T1} (pending)`);
    expect(glance.calls.requestCopy).toBe(1);
    expect(ctx.clock.now()).toBeLessThan(10_000);
  });

  it('copy engine: the same outage as refused connections during the lost-answer reads → the same verdict', async () => {
    const glance = scriptedGlance({
      images: [{ stores: ['site-a'] }, { stores: ['site-a'], lock: T1, importing: ['site-b'] }],
      answers: [unreachable('ECONNRESET')],
      readFaults: { 1: unreachable('ECONNREFUSED', true), 2: unreachable('ECONNREFUSED', true) },
      tasks: [task(T1, { status: 'processing', request_id: 'req-1', updated: WALL0 - 1_000 })],
    });
    const error = await ensure(copyContext(glance, undefined, FSID_B), IMAGE_ID, options).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'FERRY_COPY_STUCK', details: { taskId: T1, taskStatus: 'processing', cause: 'glance-restarted' } });
  });

  it('copy engine: resets alone are lost answers, not an outage: a task that moves on is followed to its end', async () => {
    const glance = scriptedGlance({
      images: [{ stores: ['site-a'] }, { stores: ['site-a'], lock: T1, importing: ['site-b'] }, { stores: ['site-a', 'site-b'], importing: [], failed: [] }],
      answers: [unreachable('ECONNRESET')],
      readFaults: { 1: unreachable('ECONNRESET') },
      tasks: [task(T1, { status: 'processing', request_id: 'req-1', updated: WALL0 - 1_000 })],
    });
    const result = await ensure(copyContext(glance, undefined, FSID_B), IMAGE_ID, options);
    expect(result).toMatchObject({ joined: true, taskId: T1 });
  });

  it('copy engine: a timeout while another task holds the lock says what ferry saw of it (status, how long still), never that it "goes on"', async () => {
    const glance = scriptedGlance({
      images: [{ stores: ['site-a'], lock: T1, importing: ['site-b'] }],
      tasks: [task(T1, { status: 'processing', updated: WALL0 })],
    });
    const error = await ensure(copyContext(glance, undefined, FSID_B), IMAGE_ID, { ...options, timeoutMs: 20_000 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'FERRY_COPY_TIMEOUT' });
    const { hint } = error as FerryError;
    expect(hint).toMatch(new RegExp(`${T1} held the image's import lock when ferry stopped waiting: status processing, last moved \\d+ s before`));
    expect(hint).not.toMatch(/goes on/);
  });
});

describe('copy engine: a lost answer stays a lost answer when the deadline cuts what follows', () => {
  it('copy engine: the answer lost, then a read the deadline cuts (Glance gone, not refusing) → FERRY_COPY_UNCONFIRMED, not a timeout', async () => {
    let hangs: () => void = () => undefined;
    const hanging = new Promise<void>((resolve) => { hangs = resolve; });
    const glance = scriptedGlance({ images: [{ stores: ['site-a'] }], answers: [unreachable('ECONNRESET')], readFaults: { 1: 'hang' } });
    const ctx = copyContext(glance, undefined, FSID_B);
    const getImage = glance.getImage.bind(glance);
    glance.getImage = (...args) => { if (glance.calls.getImage === 1) hangs(); return getImage(...args); };
    const pending = ensure(ctx, IMAGE_ID, { ...options, timeoutMs: 10_000 }).catch((e: unknown) => e);
    await hanging;
    await new Promise((resolve) => setImmediate(resolve));
    ctx.clock.advance(10_000);
    const error = await pending;
    expect(error).toMatchObject({ code: 'FERRY_COPY_UNCONFIRMED' });
    expect(glance.calls.requestCopy).toBe(1);
  });
});

describe('copy engine: failures say what happened', () => {
  it('copy engine: a failed copy with a leftover RBD image in the target pool → FERRY_COPY_TARGET_EXISTS naming pool/image and rbd rm', async () => {
    const glance = scriptedGlance({
      images: [{ stores: ['site-a'] }, { stores: ['site-a'], lock: T1, importing: ['site-b'] }, { stores: ['site-a'], importing: [], failed: ['site-b'] }],
      tasks: [task(T1, { status: 'failure', request_id: 'req-1', message: 'Task failed due to Internal Error' })],
    });
    const asked: string[] = [];
    const ctx = { ...copyContext(glance, undefined, FSID_B),
      findLeftover: (store: string, image: { id: string }) => {
        asked.push(store);
        return Promise.resolve({ pool: 'images', image: image.id, cephConf: '/etc/ceph/ceph.conf', user: 'glance', halfCreated: false });
      } };
    const error = await ensure(ctx, IMAGE_ID, options).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'FERRY_COPY_TARGET_EXISTS', details: { pool: 'images', rbdImage: IMAGE_ID, taskId: T1 } });
    expect((error as FerryError).message).toContain(`images/${IMAGE_ID}`);
    expect((error as FerryError).hint).toContain(`rbd -c /etc/ceph/ceph.conf --id glance rm images/${IMAGE_ID}`);
    expect(asked).toEqual(['site-b']);
  });

  it('copy engine: a half-created RBD image at the target (its creator killed) → FERRY_COPY_TARGET_EXISTS saying so, rbd rm alone', async () => {
    const glance = scriptedGlance({
      images: [{ stores: ['site-a'] }, { stores: ['site-a'], lock: T1, importing: ['site-b'] }, { stores: ['site-a'], importing: [], failed: ['site-b'] }],
      tasks: [task(T1, { status: 'failure', request_id: 'req-1', message: 'Task failed due to Internal Error' })],
    });
    const ctx = { ...copyContext(glance, undefined, FSID_B),
      findLeftover: (_store: string, image: { id: string }) => Promise.resolve({ pool: 'images', image: image.id, cephConf: '/etc/ceph/ceph.conf',
        user: 'glance', halfCreated: true }) };
    const error = await ensure(ctx, IMAGE_ID, options).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'FERRY_COPY_TARGET_EXISTS', details: { pool: 'images', rbdImage: IMAGE_ID, halfCreated: true, taskId: T1 } });
    expect((error as FerryError).message).toContain(`half-created RBD image images/${IMAGE_ID}`);
    expect((error as FerryError).hint).toContain(`(rbd -c /etc/ceph/ceph.conf --id glance rm images/${IMAGE_ID})`);
    // nothing to inspect in it: no snap purge, no children
    expect((error as FerryError).hint).not.toMatch(/snap purge|children/);
  });

  it('copy engine: a failed copy without a leftover keeps FERRY_COPY_FAILED and quotes the task\'s message', async () => {
    const glance = scriptedGlance({
      images: [{ stores: ['site-a'] }, { stores: ['site-a'], importing: [], failed: ['site-b'] }],
      tasks: [task(T1, { status: 'failure', request_id: 'req-1', message: 'Task failed due to Internal Error' })],
    });
    const ctx = { ...copyContext(glance, undefined, FSID_B), findLeftover: () => Promise.resolve(undefined) };
    await expect(ensure(ctx, IMAGE_ID, options)).rejects.toMatchObject({ code: 'FERRY_COPY_FAILED',
      message: expect.stringContaining(`task ${T1}: "Task failed due to Internal Error"`) as unknown });
  });
});
