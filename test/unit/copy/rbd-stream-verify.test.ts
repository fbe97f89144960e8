import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ExpectedHash } from '../../../src/copy/transfer/rbd-direct-plan.js';
import { judgeStreamedCopy, objectsOf, type StreamedTargetFacts } from '../../../src/copy/transfer/rbd-stream-verify.js';
import { RbdDiffHasher, type RbdDiffSummary } from '../../../src/rbd/rbd-diff-stream.js';

// The recorded sparse stream and what the real target said after import-diff (fixtures/rbd/export-diff.json).
interface RecordedImage { stream: string; size: number; objectSize: number; sha512: string; targetWholeObjectDiff: { offset: number; length: number }[] }
const { sparse } = (JSON.parse(readFileSync('fixtures/rbd/export-diff.json', 'utf8')) as { images: Record<'sparse', RecordedImage> }).images;
const hasher = new RbdDiffHasher('sha512', sparse.objectSize);
hasher.push(readFileSync(sparse.stream));
const stream = await hasher.finish();
const expected: ExpectedHash = { algorithm: 'sha512', value: sparse.sha512, field: 'os_hash_value' };
const target: StreamedTargetFacts = { snapshotSize: sparse.size, extents: sparse.targetWholeObjectDiff };
const judge = (changes: { stream?: Partial<RbdDiffSummary>; target?: Partial<StreamedTargetFacts>; expected?: Partial<ExpectedHash>; glanceSize?: number | null } = {}) =>
  judgeStreamedCopy({ ...expected, ...changes.expected }, { ...stream, ...changes.stream }, changes.glanceSize === undefined ? sparse.size : changes.glanceSize,
    sparse.objectSize, 'snap', { ...target, ...changes.target });

describe('judgeStreamedCopy', () => {
  it('the recorded stream and target: match', () => {
    expect(judge()).toEqual({ kind: 'match' });
    expect(judge({ glanceSize: null })).toEqual({ kind: 'match' });
  });

  it.each([
    { name: 'another hash', changes: { expected: { value: 'ab'.repeat(64) } }, reason: /sha512 of the streamed bytes is c0e68a6e.*, Glance's os_hash_value is abab/ },
    { name: 'Glance\'s size differs', changes: { glanceSize: sparse.size + 1 }, reason: /the stream's image is 262144 bytes, Glance says 262145/ },
    { name: 'no snapshot on the target', changes: { target: { snapshotSize: undefined } }, reason: /no snapshot snap after the copy/ },
    { name: 'target snapshot of another size', changes: { target: { snapshotSize: 4096 } }, reason: /target's snapshot is 4096 bytes/ },
    { name: 'a data object missing at the target', changes: { target: { extents: [{ offset: 0, length: 65536 }] } }, reason: /lacks 1 object\(s\) .*first: #2/ },
    { name: 'an object nobody streamed', changes: { target: { extents: [...sparse.targetWholeObjectDiff, { offset: 196608, length: 65536 }] } }, reason: /holds 1 object\(s\) the stream never wrote \(first: #3\)/ },
    { name: 'a diff from a snapshot', changes: { stream: { fromSnapshot: 'base' } }, reason: /diff from snapshot base/ },
    { name: 'another end snapshot', changes: { stream: { toSnapshot: 'other' } }, reason: /ends at snapshot other, expected snap/ },
  ])('mismatch: $name', ({ changes, reason }) => {
    const verdict = judge(changes);
    expect(verdict.kind).toBe('mismatch');
    expect(verdict.kind === 'mismatch' ? verdict.reason : '').toMatch(reason);
  });

  it('extents out of order: read the copy back', () => {
    expect(judge({ stream: { ordered: false, digest: undefined } })).toEqual({ kind: 'read-back', reason: 'the diff stream\'s extents were not in increasing order' });
  });

  it('a target object that holds only streamed zeros may be absent (import-diff skips zero runs)', () => {
    const zerosWritten = { ...stream, writtenObjects: new Set([0, 1, 2]) };
    expect(judge({ stream: zerosWritten })).toEqual({ kind: 'match' });
  });
});

describe('objectsOf', () => {
  it('whole-object extents to object indexes; empty extents count for nothing', () => {
    expect([...objectsOf([{ offset: 0, length: 8 }, { offset: 16, length: 16 }, { offset: 40, length: 0 }], 8)]).toEqual([0, 2, 3]);
  });
});
