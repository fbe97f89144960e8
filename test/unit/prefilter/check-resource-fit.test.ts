import { describe, expect, it } from 'vitest';
import { checkResourceFit, formatAmount } from '../../../src/prefilter/check-resource-fit.js';
import { parseResources } from '../../../src/prefilter/parse-resources.js';
import type { Inventory } from '../../../src/placement/provider-inventory.js';
import { loadExchange } from '../../helpers/fixtures.js';

const recordedInventories = (loadExchange('placement', 'prefilter-inventories-e').body as {
  inventories: Record<string, { total: number; reserved: number; min_unit: number; max_unit: number; step_size: number; allocation_ratio: number }>;
}).inventories;
// pf-host-e as recorded: MEMORY_MB total 2048, reserved 512, and 1024 allocated.
const inventoriesE: Record<string, Inventory> = Object.fromEntries(Object.entries(recordedInventories).map(([cls, i]) => [cls,
  { total: i.total, reserved: i.reserved, minUnit: i.min_unit, maxUnit: i.max_unit, stepSize: i.step_size, allocationRatio: i.allocation_ratio }]));
const usagesE = (loadExchange('placement', 'prefilter-usages-e').body as { usages: Record<string, number> }).usages;

const inventory = (over: Partial<Inventory>): Inventory => ({
  total: 8, reserved: 0, minUnit: 1, maxUnit: 2147483647, stepSize: 1, allocationRatio: 1, ...over,
});

describe('checkResourceFit', () => {
  it('checkResourceFit: recorded pf-host-e takes 512 MB but not 1024 (capacity 1536, 1024 used)', () => {
    expect(checkResourceFit(parseResources('VCPU:1,MEMORY_MB:512'), inventoriesE, usagesE).every((f) => f.fits)).toBe(true);
    expect(checkResourceFit(parseResources('VCPU:1,MEMORY_MB:1024'), inventoriesE, usagesE)).toEqual([
      { resourceClass: 'VCPU', requested: 1, capacity: 2, used: 0, free: 2, fits: true },
      { resourceClass: 'MEMORY_MB', requested: 1024, capacity: 1536, used: 1024, free: 512, fits: false,
        why: 'needs 1024, 512 free (capacity 1536, used 1024)' },
    ]);
  });

  it.each([
    { title: 'allocation ratio multiplies capacity', inv: inventory({ total: 8, allocationRatio: 4 }), used: 30, amount: 2, fits: true },
    { title: 'exactly full still fits', inv: inventory({ total: 8, reserved: 2 }), used: 4, amount: 2, fits: true },
    { title: 'one over capacity', inv: inventory({ total: 8, reserved: 2 }), used: 5, amount: 2, fits: false, why: 'needs 2, 1 free (capacity 6, used 5)' },
    { title: 'above max_unit', inv: inventory({ total: 1024, maxUnit: 512 }), used: 0, amount: 600, fits: false, why: 'needs 600, more than max_unit 512 in one allocation' },
    { title: 'below min_unit', inv: inventory({ minUnit: 2 }), used: 0, amount: 1, fits: false, why: 'needs 1, less than min_unit 2' },
    { title: 'not a step_size multiple', inv: inventory({ total: 100, stepSize: 4 }), used: 0, amount: 6, fits: false, why: 'needs 6, not a multiple of step_size 4' },
    { title: 'a fractional ratio', inv: inventory({ total: 15, allocationRatio: 1.5 }), used: 22, amount: 1, fits: false, why: 'needs 1, 0.50 free (capacity 22.50, used 22)' },
  ])('checkResourceFit: $title', ({ inv, used, amount, fits, why }) => {
    const [fit] = checkResourceFit([{ resourceClass: 'VCPU', amount }], { VCPU: inv }, { VCPU: used });
    expect(fit?.fits).toBe(fits);
    expect(fit?.why).toBe(why);
  });

  it('checkResourceFit: a class the provider has no inventory of does not fit, and says so', () => {
    expect(checkResourceFit([{ resourceClass: 'CUSTOM_IMG_SLOT', amount: 1 }], inventoriesE, usagesE)).toEqual([
      { resourceClass: 'CUSTOM_IMG_SLOT', requested: 1, capacity: 0, used: 0, free: 0, fits: false, why: 'no CUSTOM_IMG_SLOT inventory on this provider' },
    ]);
  });

  it.each([[512, '512'], [22.5, '22.50'], [0, '0']])('formatAmount(%s) → %s', (value, text) => {
    expect(formatAmount(value)).toBe(text);
  });
});
