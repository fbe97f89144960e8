import { describe, expect, it } from 'vitest';
import { jobDeadlineMs } from '../../../src/copy/job-deadline.js';

const DAY = 86_400_000;

describe('jobDeadlineMs: --timeout per store asked, as Glance writes an import\'s stores one after another', () => {
  it.each([
    // timeoutMs, stores asked, deadline
    [600_000, 1, 600_000], // one store: --timeout as it is
    [600_000, 2, 1_200_000],
    [600_000, 3, 1_800_000], // central + 2 edges
    [600_000, 40, 24_000_000], // 40 edge stores: 6 h 40 min, not 10 min
    [600_000, 0, 600_000], // nothing asked (all present): never less than --timeout
    [5_000, 2.7, 10_000], // a count is whole
    [3_600_000, 30, DAY], // 30 h asked: capped at the 24 h of --timeout 0
    [DAY, 3, DAY], // --timeout 0 (the 24 h cap) is not multiplied
    [2 * DAY, 2, 2 * DAY], // an explicit --timeout above the cap is kept, not multiplied
  ])('--timeout %i ms, %d stores → %i ms', (timeoutMs, stores, expected) => {
    expect(jobDeadlineMs(timeoutMs, stores)).toBe(expected);
  });
});
