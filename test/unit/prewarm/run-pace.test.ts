import { describe, expect, it } from 'vitest';
import { createRunPace } from '../../../src/prewarm/run-pace.js';

describe('createRunPace', () => {
  it.each([
    { title: 'nothing learnt yet', records: [], stores: 2, expected: undefined },
    { title: 'one import of 2 stores → per store, times the stores asked', records: [[2, 1000]], stores: 1, expected: 500 },
    { title: 'the median of recent imports, not the mean', records: [[1, 400], [1, 500], [1, 5000]], stores: 2, expected: 1000 },
    { title: 'an even count takes the middle two', records: [[1, 400], [1, 600]], stores: 1, expected: 500 },
    { title: 'only the last 8 count', records: [[1, 9000], [1, 9000], [1, 9000], [1, 9000], [1, 100], [1, 100], [1, 100], [1, 100], [1, 100], [1, 100],
      [1, 100], [1, 100]], stores: 1, expected: 100 },
    { title: 'nonsense is ignored', records: [[0, 1000], [1, -5], [1, Number.NaN]], stores: 1, expected: undefined },
  ] as const)('createRunPace: $title', ({ records, stores, expected }) => {
    const pace = createRunPace();
    for (const [count, ms] of records) pace.record(count, ms);
    expect(pace.expectedMs(stores)).toBe(expected);
  });
});
