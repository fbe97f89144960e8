import { describe, expect, it } from 'vitest';
import { judgeFoundBytes, judgeFoundShape, sameIdentity, type FoundCopyFacts } from '../../../src/copy/transfer/judge-found-copy.js';
import type { ExpectedHash } from '../../../src/copy/transfer/rbd-direct-plan.js';
import type { RbdImageInfo } from '../../../src/rbd/rbd-image-commands.js';

// Issue 25: a copy found with the mark is judged by its shape, then by its bytes read back whole.
const MiB = 1024 * 1024;
const SIZE = 16 * MiB;
const OBJECT = 8 * MiB;
const image: RbdImageInfo = { id: '10275af3464f', hasParent: false, size: SIZE, objectSize: OBJECT, features: ['layering'], protected: false,
  modifiedAtSec: 0 };
const snap = { id: 4, name: 'snap', size: SIZE, protected: true };
// One object of data (the second of two), as ferry writes a sparse image.
const facts: FoundCopyFacts = { image, snapshots: [snap], extents: [{ offset: OBJECT, length: OBJECT }] };

describe('judgeFoundShape', () => {
  it('judgeFoundShape: an image of its own with a protected snapshot of Glance\'s size → readable, with its identity and objects', () => {
    expect(judgeFoundShape(facts, SIZE, 'snap')).toEqual({ kind: 'readable', identity: { imageId: '10275af3464f', snapshotId: 4 }, objectSize: OBJECT,
      present: new Set([1]) });
  });

  it.each([
    { name: 'gone: no image of that name any more', facts: { ...facts, image: undefined }, kind: 'gone' },
    { name: 'gone: its snapshot list could not be read (renamed meanwhile)', facts: { ...facts, snapshots: undefined }, kind: 'gone' },
    { name: 'gone: its snapshot vanished between the looks', facts: { ...facts, extents: undefined }, kind: 'gone' },
    { name: 'a clone: its bytes live in its parent', facts: { ...facts, image: { ...image, hasParent: true } }, kind: 'unproven', reason: /clone/ },
    { name: 'no snapshot snap', facts: { ...facts, snapshots: [{ ...snap, name: 'other' }] }, kind: 'unproven', reason: /no snapshot snap/ },
    { name: 'snapshot not protected', facts: { ...facts, snapshots: [{ ...snap, protected: false }] }, kind: 'unproven', reason: /not protected/ },
    { name: 'another size', facts: { ...facts, snapshots: [{ ...snap, size: SIZE - 1 }] }, kind: 'unproven', reason: /16777215 bytes, Glance says the image has 16777216/ },
    { name: 'no image id', facts: { ...facts, image: { ...image, id: undefined } }, kind: 'unproven', reason: /no image id/ },
  ])('judgeFoundShape: $name', ({ facts: found, kind, reason }) => {
    const shape = judgeFoundShape(found, SIZE, 'snap');
    expect(shape.kind).toBe(kind);
    if (reason !== undefined) expect(shape).toMatchObject({ reason: expect.stringMatching(reason) as unknown });
  });
});

const SHA: ExpectedHash = { algorithm: 'sha512', value: 'ab'.repeat(64), field: 'os_hash_value' };
const read = { digest: 'ab'.repeat(64), bytes: SIZE, dataObjects: new Set([1]) };

describe('judgeFoundBytes', () => {
  it.each([
    { name: 'Glance\'s hash and size, data exactly in its objects', readBack: read, present: [1], kind: 'match' },
    { name: 'upper-case digest', readBack: { ...read, digest: 'AB'.repeat(64) }, present: [1], kind: 'match' },
    { name: 'other bytes (a forgery with the mark copied)', readBack: { ...read, digest: 'cd'.repeat(64) }, present: [1], kind: 'mismatch' },
    { name: 'short', readBack: { ...read, bytes: SIZE - 4096 }, present: [1], kind: 'mismatch' },
    { name: 'data read from an object the snapshot does not list', readBack: { ...read, dataObjects: new Set([0, 1]) }, present: [1], kind: 'mismatch' },
    { name: 'an object holding zeros only (ferry never writes one)', readBack: read, present: [0, 1], kind: 'mismatch' },
  ])('judgeFoundBytes: $name', ({ readBack, present, kind }) => {
    expect(judgeFoundBytes(SHA, readBack, SIZE, new Set(present)).kind).toBe(kind);
  });
});

describe('sameIdentity', () => {
  const proven = { imageId: 'a1', snapshotId: 4 };
  it.each([
    { name: 'same image, same snapshot', now: { imageId: 'a1', snapshotId: 4 }, same: true },
    { name: 'another image renamed into the name', now: { imageId: 'b2', snapshotId: 4 }, same: false },
    { name: 'the snapshot made again', now: { imageId: 'a1', snapshotId: 9 }, same: false },
    { name: 'nothing there', now: { imageId: undefined, snapshotId: undefined }, same: false },
  ])('sameIdentity: $name', ({ now, same }) => {
    expect(sameIdentity(proven, now)).toBe(same);
  });
});
