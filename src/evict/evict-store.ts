import { readStoreCatalogue, requireStores } from '../fleet/store-catalogue.js';
import { COPY_SNAPSHOT } from '../rbd/store-copies.js';
import { buildEvictReport } from './build-evict-report.js';
import { ignoredPins, NO_PINS } from '../fleet/copy-pins.js';
import { budgetBytes } from '../fleet/store-budget.js';
import { resolveEvictOptions, type EvictOptions } from './evict-options.js';
import type { EvictReport } from '../fleet/evict-report.js';
import { planEviction } from './plan-eviction.js';
import { ownersOf } from '../fleet/project-owners.js';
import { everyPool, readFleet } from '../fleet/read-fleet.js';
import { storeUsageOf } from '../fleet/store-usage.js';
import { resolvePins } from '../fleet/resolve-pins.js';
import { runEviction, type EvictContext } from './run-eviction.js';

/**
 * Free space in one store without ever breaking a boot (docs/evict.md). Reads every image from Glance (O(pages)) and
 * the store's pool from Ceph (one process), plans (planEviction: candidates, least recently used first, as many as
 * the budget needs, of the remove owners' images only), and unless it is a dry run removes them through Glance: fenced, a grace period, a last look at
 * each, then DELETE /v2/stores/{store}/{image}. Never the image's last location, never a copy with clones (trash
 * included), never a pinned one or one being imported. The report says what went, what stayed and why, and whether
 * the budget is met.
 */
export async function evictStore(ctx: EvictContext, input: EvictOptions): Promise<EvictReport> {
  const options = resolveEvictOptions(input);
  const { signal } = options;
  requireStores(await readStoreCatalogue(ctx.glance, signal, { clock: ctx.clock }), [options.store]);
  const fleet = await readFleet(ctx.glance, [{ store: options.store, cluster: options.cluster }], { signal, ceph: options.ceph });
  const { images } = fleet;
  const listing = everyPool(fleet).get(options.store)!;
  const removeOwners = ownersOf(options.removeOwners, await ctx.projectId?.(signal));
  const pins = options.pinsFrom !== undefined ? resolvePins(options.pinsFrom)(images)(options.store)
    : typeof options.pins === 'function' ? options.pins(images) : options.pins ?? NO_PINS;
  const usage = storeUsageOf(options.store, images, listing, pins);
  const plan = planEviction({
    store: options.store, copies: usage.copies, poolBytes: usage.poolBytes,
    budgetBytes: options.budget === undefined ? undefined : budgetBytes(options.budget, usage.capacity, options.store),
    idleMs: options.idleMs, wallNowMs: ctx.clock.wallNow(), run: options.run, removeOwners,
  });
  options.onProgress?.({ type: 'planned', plan });
  ctx.logger.info({ store: options.store, pool: usage.pool, copies: usage.copies.length, chosen: plan.copies.filter((c) => c.action === 'evict').length,
    budget: plan.budget, dryRun: options.dryRun }, 'eviction planned');
  const run = options.dryRun ? undefined : await runEviction(ctx, plan,
    { ...options.cluster, pool: usage.pool, snapshot: COPY_SNAPSHOT }, options);
  return buildEvictReport(plan, usage, run, { budget: options.budget, dryRun: options.dryRun, run: options.run, graceMs: options.graceMs,
    ignoredPins: ignoredPins(images, options.store, pins) });
}
