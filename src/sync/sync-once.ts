import type { CopyContext } from '../copy/copy-context.js';
import type { GlanceImage } from '../glance/image.js';
import type { FleetVerbs } from '../fleet/fleet-verb.js';
import type { PlanInput } from '../fleet/prewarm-plan.js';
import { selectImages, type UnresolvedImage } from '../fleet/select-images.js';
import { readStoreCatalogue } from '../fleet/store-catalogue.js';
import type { StoreCatalogue } from '../fleet/store-catalogue.js';
import { buildSyncReport } from './build-sync-report.js';
import { policyError } from '../fleet/parse-sync-policy.js';
import { syncWithBudgets } from './sync-with-budgets.js';
import type { PolicyPosition, SyncPolicy } from '../fleet/sync-policy.js';
import type { SyncOptions, SyncReport } from './sync-report.js';

export type { SyncOptions, PlacementDrift, SyncReport, StoreBudget } from './sync-report.js';

/**
 * One convergence pass: resolve every placement's images, merge them (an image wanted in several stores by several
 * placements gets one job with all of them, in policy order), and prewarm what is not in place. Without `stores:`
 * budgets sync never deletes: copies the policy does not mention are left alone. With them (or usage rules), the pass
 * is syncWithBudgets': one listing of every image, one of each pool, copies first, then evictions in the stores over
 * budget. A store Glance does not have is FERRY_INVALID_CONFIG naming the policy line. The copies and evictions are
 * the prewarm and evict verbs' (`verbs`: prewarm/prewarm-verb, evict/evict-verb), handed in by the caller.
 */
export async function syncOnce(ctx: CopyContext, verbs: FleetVerbs, policy: SyncPolicy, options: SyncOptions = {}): Promise<SyncReport> {
  const catalogue = await readStoreCatalogue(ctx.glance, options.signal);
  for (const placement of policy.placements) {
    placement.stores.forEach((store, index) => requireStore(catalogue, policy, store, placement.storePositions[index], `${placement.name}: stores`));
  }
  for (const [store, settings] of policy.stores) requireStore(catalogue, policy, store, settings.position, 'stores');
  for (const rule of policy.usage) for (const store of rule.stores) requireStore(catalogue, policy, store, rule.position, `${rule.name}: stores`);
  if (policy.stores.size > 0 || policy.usage.length > 0) return syncWithBudgets(ctx, verbs, policy, catalogue, options);
  const stores = [...new Set(policy.placements.flatMap((placement) => placement.stores))];

  const targets = new Map<string, { image: GlanceImage; stores: string[] }>();
  const unresolved = new Map<string, { image: UnresolvedImage; stores: string[] }>();
  const wantedBy: { name: string; stores: readonly string[]; ids: string[]; unresolved: number }[] = [];
  for (const placement of policy.placements) {
    const selected = await selectImages(ctx.glance, placement.selection, { signal: options.signal });
    for (const image of selected.images) {
      const target = targets.get(image.id) ?? { image, stores: [] };
      target.stores.push(...placement.stores.filter((store) => !target.stores.includes(store)));
      targets.set(image.id, target);
    }
    for (const image of selected.unresolved) {
      const entry = unresolved.get(image.ref) ?? { image, stores: [] };
      entry.stores.push(...placement.stores.filter((store) => !entry.stores.includes(store)));
      unresolved.set(image.ref, entry);
    }
    wantedBy.push({ name: placement.name, stores: placement.stores, ids: selected.images.map((image) => image.id),
      unresolved: selected.unresolved.length });
  }

  const input: PlanInput = { targets: [...targets.values()], unresolved: [...unresolved.values()], catalogue };
  const plan = verbs.prewarm.plan(input, { anyFormat: options.anyFormat === true });
  const result = await verbs.prewarm.run(ctx, plan, catalogue, { ...options, stores });
  return buildSyncReport(ctx, policy, wantedBy, plan, result, []);
}

function requireStore(catalogue: StoreCatalogue, policy: SyncPolicy, store: string, position: PolicyPosition | undefined, field: string): void {
  if (!catalogue.stores.some((s) => s.id === store)) {
    throw policyError(policy, position, field, `Glance has no store '${store}' (it has ${catalogue.stores.map((s) => s.id).join(', ')})`);
  }
}
