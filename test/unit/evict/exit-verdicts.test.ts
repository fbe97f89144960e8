import { describe, expect, it } from 'vitest';
import { evictExitCode, usageExitCode } from '../../../src/evict/exit-verdicts.js';
import type { BudgetVerdict } from '../../../src/fleet/eviction-plan.js';
import type { UsageReport } from '../../../src/evict/read-usage.js';

// The exit codes of `ferry evict` and `ferry status --usage` as tables (docs/exit-codes.md). Pure: reports in,
// a number out.

describe('evictExitCode: an eviction\'s report → its exit code', () => {
  it.each([
    { why: 'no budget, every copy gone: 0', verdict: 'none', failed: 0, forbidden: 0, expected: 0 },
    { why: 'under its budget as it was: 0', verdict: 'under', failed: 0, forbidden: 0, expected: 0 },
    { why: 'budget met: 0', verdict: 'met', failed: 0, forbidden: 0, expected: 0 },
    { why: 'budget unmet: 51', verdict: 'unmet', failed: 0, forbidden: 0, expected: 51 },
    { why: 'budget unmet wins over a failed copy: 51', verdict: 'unmet', failed: 2, forbidden: 1, expected: 51 },
    { why: 'a failed copy is a partial failure: 50', verdict: 'met', failed: 1, forbidden: 0, expected: 50 },
    { why: 'a copy Glance refused (403) is as much a removal not done: 50', verdict: 'none', failed: 0, forbidden: 1, expected: 50 },
  ] satisfies readonly { why: string; verdict: BudgetVerdict; failed: number; forbidden: number; expected: number }[])(
    '$why', ({ verdict, failed, forbidden, expected }) => {
      expect(evictExitCode({ budget: { verdict }, counts: { failed, forbidden } })).toBe(expected);
    });
});

describe('usageExitCode: a look at usage → its exit code', () => {
  const read = { store: 'site-a' } as unknown as UsageReport['stores'][number];
  const notRead = { store: 'site-b', error: { code: 'FERRY_CEPH', message: 'no mon answered' } } as const;
  it.each([
    { why: 'no store asked: 0', stores: [], expected: 0 },
    { why: 'every store read (over budget or not, a look fails nothing): 0', stores: [read, read], expected: 0 },
    { why: 'a store not read: 50', stores: [read, notRead], expected: 50 },
    { why: 'no store read: 50', stores: [notRead], expected: 50 },
  ])('$why', ({ stores, expected }) => {
    expect(usageExitCode({ stores })).toBe(expected);
  });
});
