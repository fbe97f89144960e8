import type { EvictVerb } from '../fleet/fleet-verb.js';
import { COPY_SNAPSHOT } from '../rbd/store-copies.js';
import { buildEvictReport } from './build-evict-report.js';
import { resolveEvictOptions } from './evict-options.js';
import { planEviction } from './plan-eviction.js';
import { runEviction } from './run-eviction.js';

/**
 * Eviction as a sync pass composes it (fleet/fleet-verb.ts): the options checked as for `ferry evict`, the plan run
 * with the same fence, grace and last look when it evicts something and this is no dry run, and its report.
 */
export const evictVerb = Object.freeze<EvictVerb>({
  plan: planEviction,
  async run(ctx, plan, usage, input) {
    const { ignoredPins, ...settings } = input;
    const options = resolveEvictOptions(settings);
    const evicts = plan.copies.some((copy) => copy.action === 'evict');
    const done = options.dryRun || !evicts ? undefined : await runEviction(ctx, plan,
      { confFile: input.cluster.confFile, user: input.cluster.user, pool: usage.pool, snapshot: COPY_SNAPSHOT }, options);
    return buildEvictReport(plan, usage, done, { budget: input.budget, dryRun: options.dryRun, run: options.run, graceMs: options.graceMs, ignoredPins });
  },
});
