import { classifyPlacement, type ClassifyOptions, type PlanState } from '../fleet/classify-placement.js';
import type { PlanAction, PlanInput, PlanItem, PlannedJob, PrewarmPlan } from '../fleet/prewarm-plan.js';
import type { StoreFacts } from '../fleet/store-catalogue.js';

export type { PlanAction, PlanInput, PlanItem, PlannedJob, PrewarmPlan } from '../fleet/prewarm-plan.js';

const ACTIONS: Readonly<Record<PlanState, PlanAction>> = {
  present: 'none', copying: 'join', 'failed-earlier': 'copy', missing: 'copy', 'not-copyable': 'skip',
};

/** Pure: what to do for every (image, store), from image snapshots and the store list. */
export function planPrewarm(input: PlanInput, options: ClassifyOptions = {}): PrewarmPlan {
  const items: PlanItem[] = [];
  const jobs: PlannedJob[] = [];
  const counts: Record<PlanState, number> = { present: 0, copying: 0, 'failed-earlier': 0, missing: 0, 'not-copyable': 0 };
  // By id, made once: a fleet's plan asks for a store per (image, store) pair, a scan of 200 stores each time.
  const storeFacts = new Map<string, StoreFacts>();
  for (const facts of input.catalogue.stores) if (!storeFacts.has(facts.id)) storeFacts.set(facts.id, facts);
  for (const { image, stores } of input.targets) {
    const todo: string[] = [];
    const planned: Record<string, PlanState> = {};
    for (const store of new Set(stores)) {
      const verdict = classifyPlacement(image, store, storeFacts.get(store), options);
      const action = ACTIONS[verdict.state];
      counts[verdict.state] += 1;
      items.push(Object.freeze({ imageId: image.id, imageName: image.name, store, state: verdict.state, action,
        ...(verdict.reason ? { reason: verdict.reason } : {}), detail: verdict.detail, sizeBytes: image.size }));
      if (action === 'copy' || action === 'join') {
        todo.push(store);
        planned[store] = verdict.state;
      }
    }
    if (todo.length > 0) {
      jobs.push(Object.freeze({ imageId: image.id, imageName: image.name, sizeBytes: image.size, stores: Object.freeze(todo),
        planned: Object.freeze(planned), image }));
    }
  }
  for (const { image, stores } of input.unresolved ?? []) {
    for (const store of new Set(stores)) {
      counts['not-copyable'] += 1;
      items.push(Object.freeze({ imageId: image.ref, imageName: null, store, state: 'not-copyable', action: 'skip',
        reason: 'unresolved', unresolvedCode: image.code, detail: image.reason, sizeBytes: null }));
    }
  }
  return Object.freeze({ items: Object.freeze(items), jobs: Object.freeze(jobs), counts: Object.freeze(counts),
    storeTypesKnown: input.catalogue.typesKnown });
}
