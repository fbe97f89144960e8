import { describe, expect, it } from 'vitest';
import type { BudgetVerdict } from '../../../src/fleet/eviction-plan.js';
import { syncExitCode, type SyncVerdictInput } from '../../../src/sync/sync-exit-code.js';

// `ferry sync`'s exit code as a table (docs/exit-codes.md): the first verdict that holds wins. Pure.

const pass = ({ aborted = false, failed = 0, verdicts = [] as readonly BudgetVerdict[], errors = 0 } = {}): SyncVerdictInput => ({
  result: { aborted, counts: { failed } },
  budgets: [...verdicts.map((verdict) => ({ report: { budget: { verdict } } })),
    ...Array.from({ length: errors }, () => ({ error: { code: 'FERRY_CEPH' as const, message: 'no mon answered' } }))],
});

describe('syncExitCode: a pass (and whether it was watched) → the exit code', () => {
  it.each([
    { why: 'a clean pass: 0', report: pass(), watched: false, expected: 0 },
    { why: 'budgets met or under: 0', report: pass({ verdicts: ['met', 'under', 'none'] }), watched: false, expected: 0 },
    { why: 'a watch ends only when interrupted: 130', report: pass(), watched: true, expected: 130 },
    { why: 'a watch that completed no pass: 130', report: undefined, watched: true, expected: 130 },
    { why: 'no report and no watch: 0', report: undefined, watched: false, expected: 0 },
    { why: 'an aborted pass: 130, over any failure', report: pass({ aborted: true, failed: 3, verdicts: ['unmet'] }), watched: false, expected: 130 },
    { why: 'a store left over its budget: 51', report: pass({ verdicts: ['met', 'unmet'] }), watched: false, expected: 51 },
    { why: 'over budget wins over failed copies: 51', report: pass({ failed: 2, verdicts: ['unmet'], errors: 1 }), watched: false, expected: 51 },
    { why: 'a copy that failed: 50', report: pass({ failed: 1 }), watched: false, expected: 50 },
    { why: 'a budget that could not be judged: 50', report: pass({ verdicts: ['met'], errors: 1 }), watched: false, expected: 50 },
  ])('$why', ({ report, watched, expected }) => {
    expect(syncExitCode(report, watched)).toBe(expected);
  });
});
