import { describe, expect, it } from 'vitest';
import { copyState } from '../../../src/copy/copy-state.js';
import type { CopySnapshot } from '../../../src/copy/copy-snapshot.js';
import { parseImage } from '../../../src/glance/image.js';
import { parseTask } from '../../../src/glance/image-task.js';
import { imageBody, type ImageShape } from '../../helpers/image-body.js';

const rule = { staleAfterMs: 600_000, finishedGraceMs: 15_000 };
const NOW = Date.parse('2026-11-21T19:00:00Z');
const T1 = 'a8860fd2-0000-4000-8000-000000000001';
const T2 = 'b9971fe3-0000-4000-8000-000000000002';

function snapshot(shape: ImageShape, watchedTask?: string, task?: { status: string; updatedAt: string }): CopySnapshot {
  return {
    image: parseImage(imageBody(shape)),
    watchedTask,
    task: task ? parseTask({ id: shape.lock, type: 'api_image_import', status: task.status, message: '', created_at: '2026-11-21T18:00:00Z',
      updated_at: task.updatedAt, input: { backend: ['site-b'] } }) : undefined,
    elapsedMs: 1_000,
    wallNowMs: NOW,
  };
}

describe('copyState', () => {
  it.each([
    { title: 'lock held, only the lock set yet (importing absent)', shape: { lock: T1 }, watched: T1, kind: 'copying' },
    { title: 'lock held, writing to our store', shape: { lock: T1, importing: ['site-b'], failed: [] }, watched: T1, kind: 'copying' },
    { title: 'failed wins over nothing only once the lock is gone: an earlier failure under our lock is still copying',
      shape: { lock: T1, importing: [], failed: ['site-b'] }, watched: T1, kind: 'copying' },
    { title: 'data done but lock still held', shape: { stores: ['site-a', 'site-b'], lock: T1, importing: [], failed: [] }, watched: T1, kind: 'copying' },
    { title: 'lock gone, store present', shape: { stores: ['site-a', 'site-b'], importing: [], failed: [] }, watched: T1, kind: 'copied' },
    { title: 'lock gone, store failed', shape: { importing: [], failed: ['site-b'] }, watched: T1, kind: 'failed' },
    { title: 'lock gone, rolled back because another store failed', shape: { importing: [], failed: ['broken'] }, watched: T1, kind: 'rolled-back' },
    { title: 'lock gone, in no list and nothing failed', shape: { importing: [], failed: [] }, watched: T1, kind: 'vanished' },
    { title: 'lock absent at the first poll: judged by the lists', shape: { stores: ['site-a', 'site-b'] }, watched: undefined, kind: 'copied' },
    { title: 'a new task holds the lock and copies to our store', shape: { lock: T2, importing: ['site-b'] }, watched: T1, kind: 'copying' },
    { title: 'a new task holds the lock for other stores: ours is judged', shape: { stores: ['site-a', 'site-b'], lock: T2, importing: ['central'] }, watched: T1, kind: 'copied' },
    { title: 'whole-name comparison: site-b-2 is not site-b', shape: { stores: ['site-a', 'site-b-2'], importing: [], failed: [] }, watched: T1, kind: 'vanished' },
  ])('copyState: $title → $kind', ({ shape, watched, kind }) => {
    expect(copyState(snapshot(shape, watched), 'site-b', rule).kind).toBe(kind);
  });

  it('copyState: a processing task that has not moved for longer than the stale rule is stuck', () => {
    const state = copyState(snapshot({ lock: T1, importing: ['site-b'] }, T1, { status: 'processing', updatedAt: '2026-11-21T18:40:00Z' }), 'site-b', rule);
    expect(state).toEqual({ kind: 'stuck', taskId: T1, ageMs: 20 * 60_000, taskStatus: 'processing', cause: 'not-moving',
      releaseAtWallMs: Date.parse('2026-11-21T19:40:00Z'), expired: false, why: `task ${T1} holds the image's import lock but has not moved for 1200 s` });
  });

  it('copyState: a processing task that moved recently is copying', () => {
    const state = copyState(snapshot({ lock: T1, importing: ['site-b'] }, T1, { status: 'processing', updatedAt: '2026-11-21T18:59:30Z' }), 'site-b', rule);
    expect(state.kind).toBe('copying');
  });

  it.each([
    { title: 'missing (not in our list, Glance never refused to bust it), past the grace → stuck, expired: Glance busts it at once',
      held: 20_000, facts: { lockTaskMissing: true }, expected: { kind: 'stuck', cause: 'missing-task', expired: true, releaseAtWallMs: NOW } },
    { title: 'unseen (Glance refused to bust it: another project\'s task), held past the grace only → copying',
      held: 20_000, facts: { lockTaskUnseen: true }, expected: { kind: 'copying' } },
    { title: 'unseen, held past the stale rule → stuck, not expired, no release time (only an admin sees when its task moved)',
      held: 600_001, facts: { lockTaskUnseen: true }, expected: { kind: 'stuck', cause: 'unseen-task', taskStatus: 'unseen', expired: false,
        releaseAtWallMs: undefined, ageMs: 600_001 } },
  ])('copyState: a lock whose task is not in our list: $title', ({ held, facts, expected }) => {
    const state = copyState({ ...snapshot({ lock: T2, importing: ['site-b'] }, T2), lockHeldMs: held, ...facts }, 'site-b', rule);
    expect(state).toMatchObject(expected);
  });

  it('copyState: a finished task still holding the lock past the grace is stuck', () => {
    const state = copyState(snapshot({ lock: T1, importing: ['site-b'] }, T1, { status: 'failure', updatedAt: '2026-11-21T18:59:00Z' }), 'site-b', rule);
    expect(state).toMatchObject({ kind: 'stuck', taskStatus: 'failure' });
  });
});
