import { describe, expect, it } from 'vitest';
import { FENCE_HOLD_MS, FOREIGN_FENCE } from '../../../src/fleet/copy-fence.js';
import { formatAge, keepReason, planEviction, type EvictionInput } from '../../../src/evict/plan-eviction.js';
import { DAY, facts, HOUR, MIB, NOW, OPS } from './copy-facts-fixture.js';

// The eviction's decisions as tables: why a copy stays (the first rule that applies), the order candidates go in, and
// how many of them a budget needs. Pure: no Glance, no Ceph, no clock.

const RUN = 'run-1';
const context = { idleMs: DAY, wallNowMs: NOW, run: RUN };

describe('keepReason: the first rule that applies', () => {
  it.each([
    { why: 'a candidate: active, in the pool, no clone, two locations, idle 3 d', copy: facts({ imageId: 'a' }), reason: undefined },
    { why: 'not active (Glance refuses anyway)', copy: facts({ imageId: 'a', status: 'deactivated', clones: 2 }), reason: 'not-active' },
    { why: 'an import holds it (before its clones: removing now could break the import)', copy: facts({ imageId: 'a', importing: true, clones: 1 }),
      reason: 'importing' },
    { why: 'one clone: an instance booted from it', copy: facts({ imageId: 'a', clones: 1 }), reason: 'in-use' },
    { why: 'a clone in the trash only is a clone', copy: facts({ imageId: 'a', clones: 1, trashedClones: 1 }), reason: 'in-use' },
    { why: 'clones that cannot be listed: never a guess', copy: facts({ imageId: 'a', inPool: { unreadable: 'EPERM' } }), reason: 'clones-unknown' },
    { why: 'Glance lists it, the pool does not have it: nothing to free', copy: facts({ imageId: 'a', inPool: 'absent' }), reason: 'not-in-pool' },
    { why: 'the only location', copy: facts({ imageId: 'a', locations: 1 }), reason: 'last-copy' },
    { why: 'pinned', copy: facts({ imageId: 'a', pin: 'pinned by --pin' }), reason: 'pinned' },
    { why: 'pinned and the last copy: the last copy is said', copy: facts({ imageId: 'a', pin: 'x', locations: 1 }), reason: 'last-copy' },
    { why: 'another run\'s live fence', copy: facts({ imageId: 'a', fence: { run: 'run-0', recheckAtMs: NOW, by: 'h' } }), reason: 'fenced' },
    { why: 'a fence not in ferry\'s format', copy: facts({ imageId: 'a', fence: FOREIGN_FENCE }), reason: 'fenced' },
    { why: 'another run\'s stale fence does not keep it', copy: facts({ imageId: 'a', fence: { run: 'run-0', recheckAtMs: NOW - FENCE_HOLD_MS - 1, by: 'h' } }),
      reason: undefined },
    { why: 'this run\'s own fence does not keep it', copy: facts({ imageId: 'a', fence: { run: RUN, recheckAtMs: NOW, by: 'h' } }), reason: undefined },
    { why: 'used 23 h ago, idle means 24 h', copy: facts({ imageId: 'a', lastUsedMs: NOW - 23 * HOUR }), reason: 'not-idle' },
    { why: 'used exactly 24 h ago: idle', copy: facts({ imageId: 'a', lastUsedMs: NOW - DAY }), reason: undefined },
    { why: 'no use seen at all: idle', copy: facts({ imageId: 'a', lastUsedMs: undefined }), reason: undefined },
    { why: 'a tenant\'s idle copy: not the remove owners\'', copy: facts({ imageId: 'a', owner: 'tenant' }), reason: 'not-owned' },
    { why: 'an image with no owner: no one\'s', copy: facts({ imageId: 'a', owner: null }), reason: 'not-owned' },
    { why: 'a tenant\'s copy not idle: not-idle (what would keep it anyway is said first)', copy: facts({ imageId: 'a', owner: 'tenant', lastUsedMs: NOW - HOUR }),
      reason: 'not-idle' },
    { why: 'a tenant\'s copy with a clone: in-use', copy: facts({ imageId: 'a', owner: 'tenant', clones: 1 }), reason: 'in-use' },
    { why: 'a tenant\'s copy under another run\'s fence: fenced (that run may remove it)', copy: facts({ imageId: 'a', owner: 'tenant',
      fence: { run: 'run-0', recheckAtMs: NOW, by: 'h' } }), reason: 'fenced' },
  ] as const)('$why → $reason', ({ copy, reason }) => {
    expect(keepReason(copy, { ...context, removeOwners: new Set([OPS]) })?.reason).toBe(reason);
  });

  it.each([
    { why: 'remove owners *: every project\'s', owners: new Set(['*']), reason: undefined },
    { why: 'the tenant among the remove owners', owners: new Set([OPS, 'tenant']), reason: undefined },
    { why: 'no remove owners given to the plan: every project\'s (the caller knows its account may)', owners: undefined, reason: undefined },
    { why: 'no remove owners at all (no project known): none', owners: new Set<string>(), reason: 'not-owned' },
  ])('a tenant\'s idle copy, $why → $reason', ({ owners, reason }) => {
    expect(keepReason(facts({ imageId: 'a', owner: 'tenant' }), { ...context, removeOwners: owners })?.reason).toBe(reason);
  });

  it('not-owned says whose it is and who may be removed', () => {
    expect(keepReason(facts({ imageId: 'a', owner: 'tenant' }), { ...context, removeOwners: new Set([OPS]) })?.detail)
      .toBe(`owner tenant is not a remove owner (${OPS}): ferry's account may not remove its copies`);
  });

  it('copies removed elsewhere in the same pass count off the locations: two copies, one going elsewhere → the last', () => {
    const copy = facts({ imageId: 'a', locations: 2 });
    expect(keepReason(copy, { ...context, removedElsewhere: new Map([['a', 1]]) })).toEqual({ reason: 'last-copy',
      detail: 'its other copies are being removed: the last one stays' });
    expect(keepReason(copy, { ...context, removedElsewhere: new Map([['b', 1]]) })).toBeUndefined();
  });

  it('the detail says how many clones, and how many of them are in the trash', () => {
    expect(keepReason(facts({ imageId: 'a', clones: 3, trashedClones: 1 }), context)?.detail).toBe('3 clones, 1 of them in the trash: instances booted from it');
  });

  it('--idle 0: whatever the last use, nothing is kept for it', () => {
    expect(keepReason(facts({ imageId: 'a', lastUsedMs: NOW }), { ...context, idleMs: 0 })).toBeUndefined();
  });
});

const input = (overrides: Partial<EvictionInput>): EvictionInput => ({
  store: 'site-b', copies: [], poolBytes: 0, budgetBytes: undefined, idleMs: DAY, wallNowMs: NOW, run: RUN, ...overrides,
});

describe('planEviction: order and budget', () => {
  const old = facts({ imageId: 'old', lastUsedMs: NOW - 9 * DAY, bytes: 100 * MIB });
  const older = facts({ imageId: 'older', lastUsedMs: NOW - 20 * DAY, bytes: 50 * MIB });
  const never = facts({ imageId: 'never', lastUsedMs: undefined, bytes: 10 * MIB });
  const recent = facts({ imageId: 'recent', lastUsedMs: NOW - 2 * DAY, bytes: 300 * MIB });
  const busy = facts({ imageId: 'busy', clones: 4, bytes: 400 * MIB, lastUsedMs: NOW - HOUR });
  const only = facts({ imageId: 'only', locations: 1, bytes: 200 * MIB });
  const copies = [recent, busy, old, only, never, older];
  const pool = 1060 * MIB + 40 * MIB; // the copies and 40 MiB of something else

  it.each([
    { why: 'no budget: every candidate goes, least recently used first (never seen used first of all)', budget: undefined,
      evict: ['never', 'older', 'old', 'recent'], verdict: 'none' },
    { why: 'a budget 100 MiB under the pool: the least recently used until 100 MiB are freed', budget: pool - 100 * MIB,
      evict: ['never', 'older', 'old'], verdict: 'met' },
    { why: 'a budget 10 MiB under: one copy is enough', budget: pool - 10 * MIB, evict: ['never'], verdict: 'met' },
    { why: 'already under the budget: nothing goes', budget: pool, evict: [], verdict: 'under' },
    { why: 'a budget no candidate can reach: all of them go, and it is unmet', budget: 100 * MIB, evict: ['never', 'older', 'old', 'recent'],
      verdict: 'unmet' },
  ])('$why', ({ budget, evict, verdict }) => {
    const plan = planEviction(input({ copies, poolBytes: pool, budgetBytes: budget }));
    expect(plan.copies.filter((entry) => entry.action === 'evict').map((entry) => entry.copy.imageId)).toEqual(evict);
    expect(plan.budget).toBe(verdict);
    expect(plan.evictBytes).toBe(copies.filter((copy) => evict.includes(copy.imageId)).reduce((sum, copy) => sum + copy.bytes, 0));
    expect(plan.afterBytes).toBe(pool - plan.evictBytes);
  });

  it('what stays, by reason, in the order reasons are judged; candidates a budget did not need are under-budget', () => {
    const plan = planEviction(input({ copies, poolBytes: pool, budgetBytes: pool - 10 * MIB }));
    expect(plan.copies.map((entry) => [entry.copy.imageId, entry.action, entry.reason])).toEqual([
      ['never', 'evict', 'idle'],
      ['busy', 'keep', 'in-use'], ['only', 'keep', 'last-copy'],
      ['older', 'keep', 'under-budget'], ['old', 'keep', 'under-budget'], ['recent', 'keep', 'under-budget'],
    ]);
    expect(plan.kept).toMatchObject({ 'in-use': { copies: 1, bytes: 400 * MIB }, 'last-copy': { copies: 1, bytes: 200 * MIB },
      'under-budget': { copies: 3, bytes: 450 * MIB }, pinned: { copies: 0, bytes: 0 } });
  });

  it('unmet: the tally says what the rest is (in use, the last copy, not idle)', () => {
    const young = facts({ imageId: 'young', lastUsedMs: NOW - HOUR, bytes: 1 * MIB });
    const plan = planEviction(input({ copies: [busy, only, young, old], poolBytes: 701 * MIB, budgetBytes: 100 * MIB }));
    expect(plan.budget).toBe('unmet');
    expect(plan.afterBytes).toBe(601 * MIB);
    expect(plan.kept).toMatchObject({ 'in-use': { copies: 1, bytes: 400 * MIB }, 'last-copy': { copies: 1, bytes: 200 * MIB },
      'not-idle': { copies: 1, bytes: 1 * MIB } });
  });

  it('equal last use: the larger copy first (it frees more), then by id', () => {
    const a = facts({ imageId: 'a', bytes: 10 * MIB });
    const b = facts({ imageId: 'b', bytes: 20 * MIB });
    const c = facts({ imageId: 'c', bytes: 20 * MIB });
    expect(planEviction(input({ copies: [a, c, b], poolBytes: 50 * MIB })).copies.map((entry) => entry.copy.imageId)).toEqual(['b', 'c', 'a']);
  });

  it('equal last use and size: by id in code-unit order, whatever the locale (a collator puts a before B)', () => {
    const ids = ['a-2', 'B-1', '0-3', 'a-10', '872abc64-2f0b-4c7a-9d4e-3b1a2c5d6e7f', '872abc64-2f0b-4c7a-9d4e-3b1a2c5d6e70'];
    const copies = ids.map((imageId) => facts({ imageId, bytes: 10 * MIB }));
    expect(planEviction(input({ copies, poolBytes: 60 * MIB })).copies.map((entry) => entry.copy.imageId))
      .toEqual(['0-3', '872abc64-2f0b-4c7a-9d4e-3b1a2c5d6e70', '872abc64-2f0b-4c7a-9d4e-3b1a2c5d6e7f', 'B-1', 'a-10', 'a-2']);
  });

  it('tenants\' copies older than the operator\'s: the operator\'s go, the tenants\' stay not-owned (never chosen), and they count in the pool', () => {
    const tenantOld = facts({ imageId: 't-old', owner: 'tenant', lastUsedMs: NOW - 30 * DAY, bytes: 100 * MIB });
    const tenantNever = facts({ imageId: 't-never', owner: 'tenant', lastUsedMs: undefined, bytes: 100 * MIB });
    const ours = facts({ imageId: 'ours', lastUsedMs: NOW - 2 * DAY, bytes: 100 * MIB });
    const plan = planEviction(input({ copies: [tenantOld, ours, tenantNever], poolBytes: 300 * MIB, budgetBytes: 250 * MIB, removeOwners: new Set([OPS]) }));
    expect(plan.copies.map((entry) => [entry.copy.imageId, entry.action, entry.reason])).toEqual([
      ['ours', 'evict', 'idle'], ['t-never', 'keep', 'not-owned'], ['t-old', 'keep', 'not-owned']]);
    expect(plan).toMatchObject({ budget: 'met', afterBytes: 200 * MIB, kept: { 'not-owned': { copies: 2, bytes: 200 * MIB } } });
  });

  it('a budget only other projects\' copies could meet: unmet, and the tally says they are the ones ferry may not remove', () => {
    const tenant = facts({ imageId: 't', owner: 'tenant', bytes: 100 * MIB });
    const ours = facts({ imageId: 'ours', bytes: 10 * MIB });
    const plan = planEviction(input({ copies: [tenant, ours], poolBytes: 110 * MIB, budgetBytes: 50 * MIB, removeOwners: new Set([OPS]) }));
    expect(plan.copies.filter((entry) => entry.action === 'evict').map((entry) => entry.copy.imageId)).toEqual(['ours']);
    expect(plan).toMatchObject({ budget: 'unmet', afterBytes: 100 * MIB, kept: { 'not-owned': { copies: 1, bytes: 100 * MIB } } });
  });

  it('no copy at all: nothing to do, the budget judged on the pool alone', () => {
    expect(planEviction(input({ poolBytes: 5 * MIB, budgetBytes: 1 * MIB }))).toMatchObject({ copies: [], budget: 'unmet', afterBytes: 5 * MIB });
  });
});

describe('formatAge', () => {
  it.each([[45_000, '45 s'], [12 * 60_000, '12 min'], [5.5 * HOUR, '5.5 h'], [3 * DAY, '3 d'], [Number.POSITIVE_INFINITY, 'ever']])('%d ms → %s', (ms, text) => {
    expect(formatAge(ms)).toBe(text);
  });
});
