import type { CopyContext } from '../copy/copy-context.js';
import type { GlanceImage } from '../glance/image.js';
import { planPrewarm, type PlanInput } from '../prewarm/plan-prewarm.js';
import { resolvePrewarmOptions, type PrewarmOptions } from '../prewarm/prewarm-options.js';
import type { PrewarmReport } from '../prewarm/prewarm-report.js';
import { runPrewarmPlan } from '../prewarm/run-prewarm-plan.js';
import { selectImages, type UnresolvedImage } from '../prewarm/select-images.js';
import { readStoreCatalogue } from '../prewarm/store-catalogue.js';
import { policyError } from './parse-sync-policy.js';
import type { SyncPolicy } from './sync-policy.js';

export type SyncOptions = Omit<PrewarmOptions, 'stores'>;

export interface PlacementDrift {
  readonly name: string;
  readonly stores: readonly string[];
  /** Images the placement selected (resolved), and named ones Glance does not know. */
  readonly images: number;
  readonly unresolved: number;
  /** (image, store) pairs of this placement not present when planned. */
  readonly drift: number;
}

export interface SyncReport {
  readonly policy: string;
  readonly placements: readonly PlacementDrift[];
  /** (image, store) pairs the policy wants, each counted once however many placements want it. */
  readonly wanted: number;
  /** Pairs not present when planned. */
  readonly driftBefore: number;
  /** Pairs still not present after the run (failed, skipped, interrupted). A dry run changes nothing. */
  readonly driftAfter: number;
  readonly converged: boolean;
  /** The prewarm of the drift. */
  readonly result: PrewarmReport;
}

const IN_PLACE = new Set(['present', 'copied', 'joined']);

/**
 * One convergence pass: resolve every placement's images, merge them (an image wanted in several stores by several
 * placements gets one job with all of them, in policy order), and prewarm what is not in place. Sync never deletes:
 * copies the policy does not mention are left alone. A store Glance does not have is FERRY_INVALID_CONFIG naming
 * the policy line.
 */
export async function syncOnce(ctx: CopyContext, policy: SyncPolicy, options: SyncOptions = {}): Promise<SyncReport> {
  const catalogue = await readStoreCatalogue(ctx.glance, options.signal);
  for (const placement of policy.placements) {
    placement.stores.forEach((store, index) => {
      if (!catalogue.stores.some((s) => s.id === store)) {
        throw policyError(policy, placement.storePositions[index], `${placement.name}: stores`,
          `Glance has no store '${store}' (it has ${catalogue.stores.map((s) => s.id).join(', ')})`);
      }
    });
  }
  const stores = [...new Set(policy.placements.flatMap((placement) => placement.stores))];
  const resolved = resolvePrewarmOptions({ ...options, stores });

  const targets = new Map<string, { image: GlanceImage; stores: string[] }>();
  const unresolved = new Map<string, { image: UnresolvedImage; stores: string[] }>();
  const wantedBy: { name: string; stores: readonly string[]; ids: string[]; unresolved: number }[] = [];
  for (const placement of policy.placements) {
    const selected = await selectImages(ctx.glance, placement.selection, { signal: resolved.signal });
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
  const plan = planPrewarm(input, { anyFormat: resolved.anyFormat });
  const result = await runPrewarmPlan(ctx, plan, catalogue, resolved);

  const planned = new Map(plan.items.map((item) => [`${item.imageId}\u0000${item.store}`, item.state]));
  const placements = wantedBy.map((wanted): PlacementDrift => Object.freeze({
    name: wanted.name,
    stores: wanted.stores,
    images: wanted.ids.length,
    unresolved: wanted.unresolved,
    drift: wanted.ids.reduce((sum, id) => sum + wanted.stores.filter((store) => planned.get(`${id}\u0000${store}`) !== 'present').length, 0)
      + wanted.unresolved * wanted.stores.length,
  }));
  const driftBefore = plan.items.filter((item) => item.state !== 'present').length;
  const driftAfter = result.dryRun ? driftBefore : result.items.filter((item) => !IN_PLACE.has(item.outcome ?? '')).length;
  ctx.logger.info({ policy: policy.source, wanted: plan.items.length, driftBefore, driftAfter }, 'sync pass');
  return Object.freeze({
    policy: policy.source,
    placements: Object.freeze(placements),
    wanted: plan.items.length,
    driftBefore,
    driftAfter,
    converged: driftAfter === 0,
    result,
  });
}
