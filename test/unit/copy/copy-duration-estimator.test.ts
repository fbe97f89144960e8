import { describe, expect, it } from 'vitest';
import { COPY_RATE_DEFAULTS, createCopyDurationEstimator } from '../../../src/copy/copy-duration-estimator.js';

const MiB = 1024 * 1024;

describe('createCopyDurationEstimator', () => {
  it('copyDurationEstimator: unknown size → no estimate', () => {
    expect(createCopyDurationEstimator().expectedMs('site-b', null)).toBeUndefined();
  });

  it('copyDurationEstimator: the default leans fast (100 MiB/s + fixed cost)', () => {
    expect(createCopyDurationEstimator().expectedMs('site-b', 200 * MiB)).toBe(COPY_RATE_DEFAULTS.overheadMs + 2_000);
  });

  it('copyDurationEstimator: a small copy (mostly fixed cost) teaches nothing, even a slow one', () => {
    const estimator = createCopyDurationEstimator();
    estimator.record('site-b', 6 * MiB, 1_100);
    expect(estimator.expectedMs('site-b', 200 * MiB)).toBe(COPY_RATE_DEFAULTS.overheadMs + 2_000);
  });

  it('copyDurationEstimator: a long copy teaches its store\'s rate, not another store\'s', () => {
    const estimator = createCopyDurationEstimator();
    estimator.record('wan-site', 200 * MiB, COPY_RATE_DEFAULTS.overheadMs + 20_000);
    expect(estimator.expectedMs('wan-site', 200 * MiB)).toBe(COPY_RATE_DEFAULTS.overheadMs + 20_000);
    expect(estimator.expectedMs('site-b', 200 * MiB)).toBe(COPY_RATE_DEFAULTS.overheadMs + 2_000);
  });

  it('copyDurationEstimator: observations are smoothed, so one outlier moves the estimate only halfway', () => {
    const estimator = createCopyDurationEstimator();
    estimator.record('site-b', 100 * MiB, COPY_RATE_DEFAULTS.overheadMs + 2_000);
    estimator.record('site-b', 100 * MiB, COPY_RATE_DEFAULTS.overheadMs + 1_000);
    const expected = estimator.expectedMs('site-b', 100 * MiB)! - COPY_RATE_DEFAULTS.overheadMs;
    expect(expected).toBeCloseTo((100 * MiB) / ((100 * MiB / 2_000 + 100 * MiB / 1_000) / 2), 5);
  });
});
