import { describe, expect, it } from 'vitest';
import {
  decideClaim, FRESH_CLAIM, judgeTemporary, nextClaimMemory, type ClaimLook, type ClaimStep, type TemporaryFacts,
} from '../../../src/copy/transfer/decide-claim.js';
import { verifiedMark, type ExpectedHash } from '../../../src/copy/transfer/rbd-direct-plan.js';

const SHA: ExpectedHash = { algorithm: 'sha512', value: 'ab'.repeat(64), field: 'os_hash_value' };
const NOW = 1_800_000_000;
const fresh: TemporaryFacts = { watchers: 0, modifiedAtSec: NOW - 10, verified: undefined, protectedSnapshot: false, writerGone: false };
const marked: TemporaryFacts = { ...fresh, verified: verifiedMark(SHA), protectedSnapshot: true };

describe('judgeTemporary', () => {
  it.each([
    { name: 'open by a writer', facts: { ...fresh, watchers: 1 }, kind: 'live' },
    { name: 'written moments ago, between two commands', facts: fresh, kind: 'live' },
    { name: 'quiet for the whole quiet time', facts: { ...fresh, modifiedAtSec: NOW - 180 }, kind: 'leftover' },
    { name: 'no timestamp', facts: { ...fresh, modifiedAtSec: undefined }, kind: 'leftover' },
    { name: 'its writer on this host is gone', facts: { ...fresh, writerGone: true }, kind: 'leftover' },
    { name: 'writer gone but its watch still open (the watch times out first)', facts: { ...fresh, writerGone: true, watchers: 1 }, kind: 'live' },
    // Issue 25: the mark is a hint, never proof (anyone who may write the pool can copy it): such an image is proven
    // by reading it back before it is used (was `resume`: renamed and registered as it stood).
    { name: 'verified and protected: maybe ours, to be proven', facts: marked, kind: 'maybe-ours' },
    { name: 'verified and protected but open: a live writer about to rename it', facts: { ...marked, watchers: 1 }, kind: 'live' },
    { name: 'verified for another hash: not ours', facts: { ...fresh, verified: 'md5:00', protectedSnapshot: true, writerGone: true }, kind: 'leftover' },
    { name: 'verified but not protected yet: removed, not trusted', facts: { ...fresh, verified: verifiedMark(SHA), writerGone: true }, kind: 'leftover' },
  ])('judgeTemporary: $name', ({ facts, kind }) => {
    expect(judgeTemporary(facts, SHA, NOW, 180_000).kind).toBe(kind);
  });
});

const rule = { expected: SHA, nowSec: NOW, quietMs: 180_000 };
const names = (over: Partial<Extract<ClaimLook, { kind: 'names' }>>): ClaimLook => ({ kind: 'names', final: undefined, created: false, temporary: undefined, ...over });

describe('decideClaim', () => {
  it.each<{ name: string; look: ClaimLook; halfCreatedSeen?: boolean; step: ClaimStep }>([
    { name: 'Glance writes the store: joined, nothing touched', look: { kind: 'blocked', by: 'busy' }, step: { kind: 'end', by: 'busy' } },
    { name: 'the store is there now', look: { kind: 'blocked', by: 'present' }, step: { kind: 'end', by: 'present' } },
    { name: 'neither name taken: ours to write', look: names({ created: true }), step: { kind: 'write' } },
    // Issue 25: a final name with the mark was registered as it stood; now it is proven first.
    { name: 'the final name with our mark: proven before it is registered (the created temporary image discarded)',
      look: names({ final: { mark: verifiedMark(SHA) }, created: true }), step: { kind: 'prove-final', discardCreated: true } },
    { name: 'the final name with our mark, the temporary name taken', look: names({ final: { mark: verifiedMark(SHA) } }),
      step: { kind: 'prove-final', discardCreated: false } },
    { name: 'the final name without a mark: refused (Glance\'s, or anyone\'s)', look: names({ final: { mark: undefined }, created: true }),
      step: { kind: 'refuse-final', discardCreated: true } },
    { name: 'the final name marked for another hash: refused', look: names({ final: { mark: 'sha512:00' } }), step: { kind: 'refuse-final', discardCreated: false } },
    { name: 'the temporary image vanished since the create failed', look: names({ temporary: { kind: 'none' } }), step: { kind: 'look-again' } },
    { name: 'a half-created temporary image, first seen: one more look', look: names({ temporary: { kind: 'half-created' } }),
      step: { kind: 'wait', why: 'half-created' } },
    { name: 'a half-created temporary image, still so: removed', look: names({ temporary: { kind: 'half-created' } }), halfCreatedSeen: true,
      step: { kind: 'remove-temporary', why: 'half-created' } },
    { name: 'a live writer\'s temporary image: waited for', look: names({ temporary: { kind: 'image', facts: { ...fresh, watchers: 1 } } }),
      step: { kind: 'wait', why: 'live' } },
    { name: 'a dead writer\'s partial image: removed', look: names({ temporary: { kind: 'image', facts: { ...fresh, writerGone: true } } }),
      step: { kind: 'remove-temporary', why: 'leftover' } },
    // Issue 25: was `resume` (renamed and registered as it stood).
    { name: 'a marked, protected, unwatched temporary image: proven, never resumed as it stands',
      look: names({ temporary: { kind: 'image', facts: marked } }), step: { kind: 'prove-temporary' } },
  ])('decideClaim: $name', ({ look, halfCreatedSeen, step }) => {
    expect(decideClaim(look, { halfCreatedSeen: halfCreatedSeen ?? false }, rule)).toEqual(step);
  });

  it.each<{ name: string; step: ClaimStep; seen: boolean; next: boolean }>([
    { name: 'a half-created image seen now is remembered', step: { kind: 'wait', why: 'half-created' }, seen: false, next: true },
    { name: 'a name found free again keeps what was seen', step: { kind: 'look-again' }, seen: true, next: true },
    { name: 'a removal forgets it', step: { kind: 'remove-temporary', why: 'half-created' }, seen: true, next: false },
    { name: 'a live writer forgets it', step: { kind: 'wait', why: 'live' }, seen: true, next: false },
  ])('nextClaimMemory: $name', ({ step, seen, next }) => {
    expect(nextClaimMemory(step, { halfCreatedSeen: seen }).halfCreatedSeen).toBe(next);
    expect(FRESH_CLAIM.halfCreatedSeen).toBe(false);
  });
});
