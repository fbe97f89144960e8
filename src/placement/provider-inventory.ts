import { z } from 'zod';
import { validateResponse } from '../openstack/validate-response.js';

/** One resource class of a provider's inventory, with Placement's defaults filled in (it always returns them). */
export interface Inventory {
  readonly total: number;
  readonly reserved: number;
  readonly minUnit: number;
  readonly maxUnit: number;
  readonly stepSize: number;
  readonly allocationRatio: number;
}

/** `GET /resource_providers/{uuid}/inventories`. */
export interface ProviderInventories {
  /** Resource class → inventory. */
  readonly inventories: Readonly<Record<string, Inventory>>;
  readonly generation: number;
}

/** `GET /resource_providers/{uuid}/usages`: what is allocated now, per resource class. */
export interface ProviderUsages {
  /** Resource class → amount in use (every class of the inventory; 0 when nothing is allocated). */
  readonly usages: Readonly<Record<string, number>>;
  /** Sent from microversion 1.9 on. */
  readonly generation: number | undefined;
}

const inventorySchema = z.object({
  total: z.number(),
  reserved: z.number(),
  min_unit: z.number(),
  max_unit: z.number(),
  step_size: z.number(),
  allocation_ratio: z.number(),
});

const inventoriesSchema = z.object({
  inventories: z.record(z.string(), inventorySchema),
  resource_provider_generation: z.number().int().nonnegative(),
});

const usagesSchema = z.object({
  usages: z.record(z.string(), z.number()),
  resource_provider_generation: z.number().int().nonnegative().optional(),
});

export function parseProviderInventories(body: unknown, endpoint: string): ProviderInventories {
  const wire = validateResponse(inventoriesSchema, body, endpoint);
  return Object.freeze({
    inventories: Object.freeze(Object.fromEntries(Object.entries(wire.inventories).map(([resourceClass, inventory]) => [resourceClass,
      Object.freeze({
        total: inventory.total, reserved: inventory.reserved, minUnit: inventory.min_unit, maxUnit: inventory.max_unit,
        stepSize: inventory.step_size, allocationRatio: inventory.allocation_ratio,
      })]))),
    generation: wire.resource_provider_generation,
  });
}

export function parseProviderUsages(body: unknown, endpoint: string): ProviderUsages {
  const wire = validateResponse(usagesSchema, body, endpoint);
  return Object.freeze({ usages: Object.freeze({ ...wire.usages }), generation: wire.resource_provider_generation });
}
