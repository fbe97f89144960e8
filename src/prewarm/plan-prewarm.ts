import type { GlanceImage } from '../glance/image.js';
import { classifyPlacement, type ClassifyOptions, type NotCopyableReason, type PlanState } from './classify-placement.js';
import type { UnresolvedCode, UnresolvedImage } from '../fleet/select-images.js';
import type { StoreCatalogue, StoreFacts } from '../fleet/store-catalogue.js';

/** What the run does with one (image, store): nothing, copy it, wait for someone else's copy, or skip it. */
export type PlanAction = 'none' | 'copy' | 'join' | 'skip';

export interface PlanItem {
  /** The image ID; for an unresolved name, the reference as given. */
  readonly imageId: string;
  readonly imageName: string | null;
  readonly store: string;
  readonly state: PlanState;
  readonly action: PlanAction;
  readonly reason?: NotCopyableReason;
  /** An unresolved name: why (not found, ambiguous, malformed), the code its failure is reported with. */
  readonly unresolvedCode?: UnresolvedCode;
  readonly detail: string;
  readonly sizeBytes: number | null;
}

/** One image's work: its stores to bring it into (copy or join), in the order Glance should write them. */
export interface PlannedJob {
  readonly imageId: string;
  readonly imageName: string | null;
  readonly sizeBytes: number | null;
  readonly stores: readonly string[];
  /** The plan state of each of those stores (copying, failed-earlier or missing). */
  readonly planned: Readonly<Record<string, PlanState>>;
  /** The snapshot the plan was made from: the job acts on it without reading the image again (Glance's answers correct a stale one). */
  readonly image: GlanceImage;
}

export interface PrewarmPlan {
  /** Every (image, store), image by image in selection order, stores in request order. */
  readonly items: readonly PlanItem[];
  readonly jobs: readonly PlannedJob[];
  readonly counts: Readonly<Record<PlanState, number>>;
  /** False when Glance would not tell store types (non-admin): non-raw images were not held back from rbd stores. */
  readonly storeTypesKnown: boolean;
}

/** The images to place and where: each image with its own stores (a sync policy may want different ones). */
export interface PlanInput {
  readonly targets: readonly { readonly image: GlanceImage; readonly stores: readonly string[] }[];
  readonly unresolved?: readonly { readonly image: UnresolvedImage; readonly stores: readonly string[] }[];
  readonly catalogue: StoreCatalogue;
}

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
