import type { Inventory } from '../placement/provider-inventory.js';
import type { ResourceAmount } from './parse-resources.js';

/** One requested resource class against one provider's own inventory and usage. */
export interface ResourceFit {
  readonly resourceClass: string;
  readonly requested: number;
  /** (total − reserved) × allocation_ratio, as Placement computes it; 0 without an inventory of the class. */
  readonly capacity: number;
  readonly used: number;
  /** capacity − used (never below 0). */
  readonly free: number;
  readonly fits: boolean;
  /** Why it does not fit, in words; absent when it fits. */
  readonly why?: string;
}

/**
 * Placement's rule for one provider supplying an amount (its allocation-candidate and `?resources=` filters): the
 * provider has an inventory of the class, `used + amount ≤ (total − reserved) × allocation_ratio`,
 * `min_unit ≤ amount ≤ max_unit`, and `amount` is a multiple of `step_size`. Pure; the first failing check is the
 * one reported. Judges the provider's own inventory only: resources held by child or sharing providers are not seen.
 */
export function checkResourceFit(
  requested: readonly ResourceAmount[],
  inventories: Readonly<Record<string, Inventory>>,
  usages: Readonly<Record<string, number>>,
): readonly ResourceFit[] {
  return Object.freeze(requested.map(({ resourceClass, amount }) => {
    const inventory = inventories[resourceClass];
    const used = usages[resourceClass] ?? 0;
    if (inventory === undefined) {
      return Object.freeze({ resourceClass, requested: amount, capacity: 0, used, free: 0, fits: false,
        why: `no ${resourceClass} inventory on this provider` });
    }
    const capacity = (inventory.total - inventory.reserved) * inventory.allocationRatio;
    const free = Math.max(0, capacity - used);
    const base = { resourceClass, requested: amount, capacity, used, free };
    const why = refusal(amount, inventory, capacity, used, free);
    return Object.freeze(why === undefined ? { ...base, fits: true } : { ...base, fits: false, why });
  }));
}

function refusal(amount: number, inventory: Inventory, capacity: number, used: number, free: number): string | undefined {
  if (used + amount > capacity) {
    return `needs ${amount}, ${formatAmount(free)} free (capacity ${formatAmount(capacity)}, used ${formatAmount(used)})`;
  }
  if (amount > inventory.maxUnit) return `needs ${amount}, more than max_unit ${inventory.maxUnit} in one allocation`;
  if (amount < inventory.minUnit) return `needs ${amount}, less than min_unit ${inventory.minUnit}`;
  if (inventory.stepSize > 1 && amount % inventory.stepSize !== 0) return `needs ${amount}, not a multiple of step_size ${inventory.stepSize}`;
  return undefined;
}

/** Capacities are products with a float ratio (8 × 16.0, 15872 × 1.5): whole numbers print whole, others with 2 decimals. */
export function formatAmount(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}
