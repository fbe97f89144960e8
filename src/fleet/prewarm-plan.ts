import type { GlanceImage } from '../glance/image.js';
import type { NotCopyableReason, PlanState } from './classify-placement.js';
import type { UnresolvedCode, UnresolvedImage } from './select-images.js';
import type { StoreCatalogue } from './store-catalogue.js';

// What a prewarm plan is (prewarm/plan-prewarm.ts makes one): the vocabulary prewarm, sync and the reports share.

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
