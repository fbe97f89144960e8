import { describe, expect, it } from 'vitest';
import { parseBudget } from '../../../src/fleet/store-budget.js';
import type { StoreUsage } from '../../../src/fleet/store-usage.js';
import { summarizeStoreUsage } from '../../../src/evict/usage-report.js';
import { DAY, facts, HOUR, MIB, NOW } from './copy-facts-fixture.js';

// status --usage's verdict per store, from the facts ferry evict plans on: three copies in site-b, one idle (100 MiB),
// one with a clone (300 MiB), one the last copy (200 MiB); the pool also holds 50 MiB that is no copy.
const usage: StoreUsage = {
  store: 'site-b', pool: 'images', poolBytes: 650 * MIB, otherBytes: 50 * MIB, trashBytes: 0,
  capacity: { quotaBytes: undefined, poolBytes: undefined, clusterBytes: undefined },
  copies: [facts({ imageId: 'idle' }), facts({ imageId: 'cloned', bytes: 300 * MIB, clones: 1, newestCloneMs: NOW - HOUR, lastUsedMs: NOW - HOUR }),
    facts({ imageId: 'last', bytes: 200 * MIB, locations: 1 })],
};

describe('summarizeStoreUsage', () => {
  it.each([
    { budget: undefined, verdict: 'none', overBytes: 0 },
    { budget: '700M', verdict: 'under', overBytes: 0 },
    { budget: '650M', verdict: 'under', overBytes: 0 },
    { budget: '600M', verdict: 'over', overBytes: 50 * MIB },
    { budget: '550M', verdict: 'over', overBytes: 100 * MIB },
    { budget: '549M', verdict: 'unmet', overBytes: 101 * MIB },
  ])('budget $budget → $verdict', ({ budget, verdict, overBytes }) => {
    const parsed = budget === undefined ? undefined : parseBudget(budget);
    const summary = summarizeStoreUsage({ usage, budget: parsed, budgetBytes: parsed?.kind === 'bytes' ? parsed.bytes : undefined, idleMs: DAY, wallNowMs: NOW });
    expect(summary).toMatchObject({ verdict, overBytes, usedBytes: 650 * MIB, copyBytes: 600 * MIB, otherBytes: 50 * MIB, evictableBytes: 100 * MIB });
    expect(summary.kept['in-use']).toEqual({ copies: 1, bytes: 300 * MIB });
    expect(summary.kept['last-copy']).toEqual({ copies: 1, bytes: 200 * MIB });
    expect(summary.kept['under-budget']).toEqual({ copies: 0, bytes: 0 });
  });

  it('a copy not idle long enough is kept as not-idle, and what could go shrinks with it', () => {
    const summary = summarizeStoreUsage({ usage, budget: parseBudget('600M'), budgetBytes: 600 * MIB, idleMs: 7 * DAY, wallNowMs: NOW });
    expect(summary).toMatchObject({ verdict: 'unmet', evictableBytes: 0, kept: { 'not-idle': { copies: 1, bytes: 100 * MIB } } });
  });

  it('a copy an eviction run is removing (its live fence) counts as leaving: over, not unmet, while that run works', () => {
    const fenced = facts({ imageId: 'fenced', bytes: 100 * MIB, fence: { run: 'run-0', recheckAtMs: NOW + 10_000, by: 'ferry evict pid 7', sinceMs: NOW - 20_000 } });
    const summary = summarizeStoreUsage({ usage: { ...usage, poolBytes: 750 * MIB, copies: [...usage.copies, fenced] }, budget: parseBudget('550M'),
      budgetBytes: 550 * MIB, idleMs: DAY, wallNowMs: NOW });
    expect(summary).toMatchObject({ verdict: 'over', evictableBytes: 100 * MIB, kept: { fenced: { copies: 1, bytes: 100 * MIB } } });
  });
});
