import type { CopyContext } from '../copy/copy-context.js';
import { planPrewarm } from './plan-prewarm.js';
import { resolvePrewarmOptions, type PrewarmOptions } from './prewarm-options.js';
import type { PrewarmReport } from '../fleet/prewarm-report.js';
import { assertSelection, type PrewarmSelection } from '../fleet/prewarm-selection.js';
import { runPrewarmPlan } from './run-prewarm-plan.js';
import { selectImages } from '../fleet/select-images.js';
import { readStoreCatalogue, requireStores } from '../fleet/store-catalogue.js';

/**
 * Put the selected images into `options.stores` ahead of boots: read the store list and the images, plan every
 * (image, store) (planPrewarm), then copy what is missing under the concurrency limits, joining copies others run.
 * Never throws for one item: every (image, store) ends in the report (copied, joined, present, failed, skipped,
 * interrupted). Throws before any copy for a bad selection, unknown stores or options (FERRY_INVALID_OPTION,
 * FERRY_STORE_NOT_FOUND), and when Glance cannot be read at all. On abort it stops starting copies and returns,
 * naming the copies that go on inside Glance; running it again picks up from what Glance then shows.
 */
export async function prewarm(ctx: CopyContext, selection: PrewarmSelection, options: PrewarmOptions): Promise<PrewarmReport> {
  const resolved = resolvePrewarmOptions(options);
  assertSelection(selection);
  const catalogue = await readStoreCatalogue(ctx.glance, resolved.signal);
  const stores = requireStores(catalogue, resolved.stores).map((store) => store.id);
  const selected = await selectImages(ctx.glance, selection, { signal: resolved.signal });
  const plan = planPrewarm({
    targets: selected.images.map((image) => ({ image, stores })),
    unresolved: selected.unresolved.map((image) => ({ image, stores })),
    catalogue,
  }, { anyFormat: resolved.anyFormat });
  ctx.logger.info({ images: selected.images.length, unresolved: selected.unresolved.length, stores, plan: plan.counts }, 'prewarm planned');
  return runPrewarmPlan(ctx, plan, catalogue, resolved);
}
