import type { PrewarmVerb } from '../fleet/fleet-verb.js';
import { planPrewarm } from './plan-prewarm.js';
import { resolvePrewarmOptions } from './prewarm-options.js';
import { runPrewarmPlan } from './run-prewarm-plan.js';

/** Prewarm as a sync pass composes it (fleet/fleet-verb.ts): plan, then run with the options resolved as for `ferry prewarm`. */
export const prewarmVerb = Object.freeze<PrewarmVerb>({
  plan: planPrewarm,
  run: (ctx, plan, catalogue, options) => runPrewarmPlan(ctx, plan, catalogue, resolvePrewarmOptions(options)),
});
