import { describe, expect, it } from 'vitest';
import { decideDeleteAnswer, decideFenced, decideFenceExpired, decideRemoved } from '../../../src/evict/decide-removal.js';
import { FENCE_HOLD_MS, FENCE_KEY, FENCE_SKEW_MS, fenceValue } from '../../../src/fleet/copy-fence.js';
import type { PoolEntry } from '../../../src/rbd/pool-entry.js';
import { DAY, facts, MIB, NOW } from './copy-facts-fixture.js';

// The removal's decisions as tables: what the fence mark, the fence's deadline, Glance's answer to the DELETE and the
// pool's look after it each mean for one copy. Pure: no Glance, no Ceph, no clock.

const RUN = 'run-1';
const copy = facts({ imageId: 'a' });
const live = fenceValue({ run: 'run-0', recheckAtMs: NOW, by: 'host-2 pid 7', sinceMs: NOW - 60_000 });
const unsinced = fenceValue({ run: 'run-0', recheckAtMs: NOW, by: 'host-2 pid 7' });
const renewedForever = fenceValue({ run: 'run-0', recheckAtMs: NOW, by: 'host-2 pid 7', sinceMs: NOW - DAY });

describe('decideFenced: the fence as written', () => {
  it.each([
    { why: 'set: this run holds it, on to the last look', mark: 'set' as const, expected: undefined },
    { why: 'no answer for it: nothing to say yet', mark: undefined, expected: undefined },
    { why: 'absent: gone before the fence, its bytes someone else\'s', mark: 'absent' as const,
      expected: { outcome: 'gone', detail: 'the pool no longer had it when it was fenced', freedBytes: 0, othersBytes: 100 * MIB } },
    { why: 'an error: failed, nothing counted', mark: { error: 'Permission denied', errno: 13 },
      expected: { outcome: 'failed', detail: 'its fence could not be written: Permission denied', freedBytes: 0 } },
    { why: 'another run\'s live fence: kept, its removal under way takes the bytes', mark: { held: live },
      expected: { outcome: 'kept', reason: 'fenced', detail: 'another eviction run holds its fence (host-2 pid 7, run run-0): left to it', freedBytes: 0,
        othersBytes: 100 * MIB } },
    { why: 'an older ferry\'s fence (no since): kept, never counted as leaving', mark: { held: unsinced },
      expected: { outcome: 'kept', reason: 'fenced', detail: 'another eviction run holds its fence (host-2 pid 7, run run-0): left to it', freedBytes: 0 } },
    { why: 'a fence renewed past FENCE_COUNTED_MS: kept, not counted', mark: { held: renewedForever },
      expected: { outcome: 'kept', reason: 'fenced', detail: 'another eviction run holds its fence (host-2 pid 7, run run-0): left to it', freedBytes: 0 } },
    { why: 'a mark not in ferry\'s format: kept, left alone', mark: { held: 'someone' },
      expected: { outcome: 'kept', reason: 'fenced', detail: `it carries a mark ${FENCE_KEY} not in ferry's format: left alone`, freedBytes: 0 } },
    { why: 'written over while taken over (held null): kept', mark: { held: null },
      expected: { outcome: 'kept', reason: 'fenced', detail: 'its fence changed while this run took it over: left alone', freedBytes: 0 } },
  ])('$why', ({ mark, expected }) => {
    expect(decideFenced(copy, mark, RUN, NOW)).toEqual(expected);
  });
});

describe('decideFenceExpired: the removal\'s deadline', () => {
  const fence = { run: RUN, recheckAtMs: NOW, by: 'h' };
  const deadline = NOW + FENCE_HOLD_MS - FENCE_SKEW_MS;
  it.each([
    { why: 'at the last look', nowMs: NOW, expired: false },
    { why: 'at the deadline itself: still in time', nowMs: deadline, expired: false },
    { why: 'a millisecond past it', nowMs: deadline + 1, expired: true },
  ])('$why → expired $expired', ({ nowMs, expired }) => {
    expect(decideFenceExpired(fence, nowMs)).toEqual(expired ? { outcome: 'kept', reason: 'fenced', freedBytes: 0,
      detail: `its fence expired before its turn came (removals end ${(FENCE_HOLD_MS - FENCE_SKEW_MS) / 1000} s after the last look): not removed, left for the next run` }
      : undefined);
  });
});

describe('decideDeleteAnswer: Glance\'s answer to the DELETE', () => {
  it.each([
    { kind: 'removed' as const, expected: 'removed' },
    { kind: 'forbidden' as const, message: 'You do not own this image', expected: { outcome: 'forbidden', freedBytes: 0,
      detail: 'You do not own this image (owner ops-project): the account may not remove it; the run went on to the next candidate (docs/evict.md, "Credentials")' } },
    { kind: 'not-in-store' as const, message: 'is not stored in store site-b', expected: { outcome: 'gone', detail: 'Glance: is not stored in store site-b', freedBytes: 0,
      othersBytes: 100 * MIB } },
    { kind: 'last-location' as const, message: 'only store containing it', expected: { outcome: 'kept', reason: 'last-copy',
      detail: 'Glance refused: only store containing it', freedBytes: 0 } },
    { kind: 'in-use' as const, message: 'has snapshot(s) left', expected: { outcome: 'kept', reason: 'in-use', detail: 'Glance refused: has snapshot(s) left', freedBytes: 0 } },
    { kind: 'not-active' as const, message: 'status is not \'active\'', expected: { outcome: 'kept', reason: 'not-active',
      detail: 'Glance refused: status is not \'active\'', freedBytes: 0 } },
  ])('$kind', ({ kind, message, expected }) => {
    const answer = kind === 'removed' ? { kind } : { kind, message: message ?? '' };
    expect(decideDeleteAnswer(copy, answer)).toEqual(expected);
  });

  it('forbidden: an image with no owner says (none)', () => {
    expect(decideDeleteAnswer(facts({ imageId: 'a', owner: null }), { kind: 'forbidden', message: 'no' })).toMatchObject({ detail: expect.stringContaining('(owner (none))') });
  });
});

describe('decideRemoved: the pool after Glance removed the copy', () => {
  const image = (createdMs: number | undefined): PoolEntry => ({ kind: 'image', name: 'a', id: 'x', sizeBytes: 100 * MIB, usedBytes: undefined, createdMs,
    accessedMs: undefined, protected: true, clones: [], meta: {}, trashedMs: undefined });
  it.each([
    { why: 'not checked (the look failed): evicted, its bytes freed', entry: undefined, outcome: 'evicted', freedBytes: 100 * MIB },
    { why: 'gone from the pool: evicted, its bytes freed', entry: { kind: 'absent', name: 'a' } as const, outcome: 'evicted', freedBytes: 100 * MIB },
    { why: 'in the pool\'s trash (a clone at the last moment): trashed, nothing freed', entry: { kind: 'absent', name: 'a', trashedMs: NOW } as const,
      outcome: 'trashed', freedBytes: 0 },
    { why: 'a newer image of its name: evicted, copied anew, nothing freed', entry: image(copy.copiedMs! + 1), outcome: 'evicted', freedBytes: 0 },
    { why: 'the same image still there: failed', entry: image(copy.copiedMs), outcome: 'failed', freedBytes: 0 },
    { why: 'an image of unknown age still there: failed', entry: image(undefined), outcome: 'failed', freedBytes: 0 },
    { why: 'unreadable: still there as far as anyone knows, failed', entry: { kind: 'unreadable', name: 'a', message: 'EIO', errno: 5 } as const,
      outcome: 'failed', freedBytes: 0 },
  ])('$why', ({ entry, outcome, freedBytes }) => {
    expect(decideRemoved(copy, entry)).toMatchObject({ outcome, freedBytes });
  });

  it('a copy of unknown age (copiedMs undefined) and an image there: failed, never called copied anew', () => {
    expect(decideRemoved(facts({ imageId: 'a', copiedMs: undefined }), image(NOW))).toMatchObject({ outcome: 'failed' });
  });
});
