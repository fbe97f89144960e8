import { describe, expect, it } from 'vitest';
import { batchingMode, decideRound, judgeWaitFailure, storesToName, type RoundView, type StorePlacement } from '../../../src/copy/copy-round.js';
import type { CopySnapshot } from '../../../src/copy/copy-snapshot.js';
import { parseImage } from '../../../src/glance/image.js';
import { parseTask } from '../../../src/glance/image-task.js';
import { imageBody, type ImageShape } from '../../helpers/image-body.js';

// The copy engine's decisions as tables: one round (settle, join, transfer, give up, done) and a wait that did not
// settle (timeout, interrupted, take over, stuck). Pure: no Glance, no clock.

type Skip = 'not-raw';
const present: StorePlacement<Skip> = { kind: 'present' };
const missing: StorePlacement<Skip> = { kind: 'missing' };
const skipped: StorePlacement<Skip> = { kind: 'settled', result: { outcome: 'skipped', skip: 'not-raw', reason: 'not raw' } as never };

function view(overrides: Omit<Partial<RoundView<Skip>>, 'placements'> & { placements: Record<string, StorePlacement<Skip>> }): RoundView<Skip> {
  const remaining = overrides.remaining ?? Object.keys(overrides.placements);
  return {
    remaining, touchedGlance: false, broughtBy: new Map(), answerLost: false, elapsedMs: 1_000, round: 0, maxRounds: 6,
    lock: undefined, importingTo: [], expiredLock: undefined, requestMode: 'store',
    ...overrides, placements: new Map(Object.entries(overrides.placements)),
  };
}

describe('decideRound: one round of the copy engine', () => {
  it.each([
    { why: 'everything present → done, settled present', v: view({ placements: { 'site-b': present } }),
      next: { kind: 'done' }, settled: { 'site-b': 'present' } },
    { why: 'present after the job touched Glance → joined (someone brought it)', v: view({ placements: { 'site-b': present }, touchedGlance: true }),
      next: { kind: 'done' }, settled: { 'site-b': 'joined' } },
    { why: 'the caller settles a store itself (skipped) → passed on', v: view({ placements: { 'site-b': skipped } }),
      next: { kind: 'done' }, settled: { 'site-b': 'skipped' } },
    { why: 'missing, no lock → transfer the first store (store mode)', v: view({ placements: { 'site-b': missing, 'site-c': missing } }),
      next: { kind: 'transfer', batch: ['site-b'], takingOver: undefined }, settled: {} },
    { why: 'missing, no lock, image mode → transfer every missing store at once',
      v: view({ placements: { 'site-b': missing, 'site-c': missing }, requestMode: 'image' }),
      next: { kind: 'transfer', batch: ['site-b', 'site-c'], takingOver: undefined }, settled: {} },
    { why: 'someone else holds the lock → join it, naming what it writes',
      v: view({ placements: { 'site-b': missing, 'site-c': missing }, lock: 'T1', importingTo: ['site-c'] }),
      next: { kind: 'join', lock: 'T1', stores: ['site-b', 'site-c'], writes: ['site-c'] }, settled: {} },
    { why: 'a lock this job proved expired → transfer, taking it over',
      v: view({ placements: { 'site-b': missing }, lock: 'T1', expiredLock: 'T1' }),
      next: { kind: 'transfer', batch: ['site-b'], takingOver: 'T1' }, settled: {} },
    { why: 'a new lock after the one proved expired → join the new one',
      v: view({ placements: { 'site-b': missing }, lock: 'T2', expiredLock: 'T1' }),
      next: { kind: 'join', lock: 'T2', stores: ['site-b'], writes: [] }, settled: {} },
    { why: 'rounds used up → give up on what is still missing, after settling what is present',
      v: view({ placements: { 'site-b': present, 'site-c': missing }, round: 6, maxRounds: 6 }),
      next: { kind: 'give-up', stores: ['site-c'] }, settled: { 'site-b': 'present' } },
  ])('$why', ({ v, next, settled }) => {
    const decision = decideRound(v);
    expect(decision.next).toEqual(next);
    expect(Object.fromEntries([...decision.settle].map(([store, result]) => [store, result.outcome]))).toEqual(settled);
  });

  it('a store brought while our answer was lost says it may have been ours, and names the task seen bringing it', () => {
    const decision = decideRound(view({ placements: { 'site-b': present }, touchedGlance: true, answerLost: true, broughtBy: new Map([['site-b', 'T1']]) }));
    expect(decision.settle.get('site-b')).toMatchObject({ outcome: 'joined', taskId: 'T1', reason: expect.stringContaining('may have been ours') as unknown });
  });

  it('storesToName: only stores that showed up after the job touched Glance, and only once', () => {
    const placements = new Map<string, StorePlacement<Skip>>([['a', present], ['b', present], ['c', missing]]);
    expect(storesToName({ remaining: ['a', 'b', 'c'], placements, touchedGlance: true, broughtBy: new Map([['b', 'T1']]) })).toEqual(['a']);
    expect(storesToName({ remaining: ['a', 'b', 'c'], placements, touchedGlance: false, broughtBy: new Map() })).toEqual([]);
  });
});

const WALL = Date.UTC(2026, 10, 25, 12, 0, 0);
const iso = (ms: number): string => new Date(ms).toISOString();

function snapshot(image: ImageShape, task?: { status: string; updatedMs: number }, backAtWallMs?: number): CopySnapshot {
  const parsed = parseImage(imageBody(image));
  return {
    image: parsed, watchedTask: parsed.importTask, lockTaskMissing: false, lockHeldMs: 5_000, elapsedMs: 5_000, wallNowMs: WALL,
    glanceBackAtWallMs: backAtWallMs,
    task: task === undefined || parsed.importTask === undefined ? undefined : parseTask({
      id: parsed.importTask, type: 'api_image_import', status: task.status, message: '', request_id: 'req-1',
      input: { backend: ['site-b'] }, created_at: iso(task.updatedMs - 1_000), updated_at: iso(task.updatedMs),
    }),
  };
}

const RULE = { staleAfterMs: 180_000, finishedGraceMs: 10_000 };
const locked: ImageShape = { stores: ['site-a'], lock: 'T1', importing: ['site-b'] };
const context = { deadlineExpired: false, takeOverExpired: true, expiredLock: undefined };
const failed = (last: CopySnapshot | undefined, state: 'failure' | 'timeout' | 'aborted' = 'failure') =>
  ({ state, reason: 'test', last, elapsedMs: 5_000, polls: 3, seen: {} }) as never;

describe('judgeWaitFailure: a wait that did not settle', () => {
  it.each([
    { why: 'aborted by the deadline → timeout', outcome: failed(snapshot(locked), 'aborted'), ctx: { ...context, deadlineExpired: true }, kind: 'timeout' },
    { why: 'aborted by the caller → interrupted, naming the task watched', outcome: failed(snapshot(locked), 'aborted'), ctx: context, kind: 'interrupted' },
    { why: 'the waiter ran out of time → timeout', outcome: failed(snapshot(locked), 'timeout'), ctx: context, kind: 'timeout' },
    { why: 'a processing task older than Glance\'s return → stuck (glance-restarted)',
      outcome: failed(snapshot(locked, { status: 'processing', updatedMs: WALL - 20_000 }, WALL - 5_000)), ctx: context, kind: 'stuck' },
    { why: 'a pending task older than Glance\'s return → stuck too',
      outcome: failed(snapshot(locked, { status: 'pending', updatedMs: WALL - 20_000 }, WALL - 5_000)), ctx: context, kind: 'stuck' },
    { why: 'expired by Glance\'s rule (61 min, processing) → take it over',
      outcome: failed(snapshot(locked, { status: 'processing', updatedMs: WALL - 61 * 60_000 })), ctx: context, kind: 'take-over' },
    { why: 'expired, but takeover refused → stuck', outcome: failed(snapshot(locked, { status: 'processing', updatedMs: WALL - 61 * 60_000 })),
      ctx: { ...context, takeOverExpired: false }, kind: 'stuck' },
    { why: 'expired again after our takeover of that very lock → stuck (once per lock)',
      outcome: failed(snapshot(locked, { status: 'processing', updatedMs: WALL - 61 * 60_000 })), ctx: { ...context, expiredLock: 'T1' }, kind: 'stuck' },
  ])('$why', ({ outcome, ctx, kind }) => {
    expect(judgeWaitFailure(outcome, ['site-b'], RULE, ctx).kind).toBe(kind);
  });

  it('a stuck verdict after a restart names its cause, the task\'s status and Glance\'s release time (120 min for pending)', () => {
    const updatedMs = WALL - 20_000;
    const verdict = judgeWaitFailure(failed(snapshot(locked, { status: 'pending', updatedMs }, WALL - 5_000)), ['site-b'], RULE, context);
    expect(verdict).toMatchObject({ kind: 'stuck', state: { cause: 'glance-restarted', taskStatus: 'pending', releaseAtWallMs: updatedMs + 120 * 60_000 } });
  });

  it('a wait failed without a stuck lock is a defect of the engine, not Glance\'s doing', () => {
    expect(() => judgeWaitFailure(failed(snapshot({ stores: ['site-a'] })), ['site-b'], RULE, context)).toThrow(/without a stuck lock/);
  });
});

describe('batchingMode', () => {
  it.each([
    { transfer: 'glance' as const, mode: 'store' as const, expected: 'store' },
    { transfer: 'glance' as const, mode: 'image' as const, expected: 'image' },
    // The direct transfer takes no per-image lock: an image's stores always go to it together (every site at once).
    { transfer: 'rbd' as const, mode: 'store' as const, expected: 'image' },
    { transfer: 'rbd' as const, mode: 'image' as const, expected: 'image' },
  ])('batchingMode: $transfer transfer, request mode $mode → $expected', ({ transfer, mode, expected }) => {
    expect(batchingMode(transfer, mode)).toBe(expected);
  });

  it('batchingMode + decideRound: with the rbd transfer in store mode, both missing stores are one batch', () => {
    const v = view({ placements: { 'site-b': missing, 'site-c': missing }, requestMode: batchingMode('rbd', 'store') });
    expect(decideRound(v).next).toEqual({ kind: 'transfer', batch: ['site-b', 'site-c'], takingOver: undefined });
  });
});
