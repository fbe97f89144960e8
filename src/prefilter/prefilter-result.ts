import { z } from 'zod';

/**
 * The trait part of an allocation-candidates request. Names follow Placement's parameters: `root_*` apply to the
 * compute node (root provider), the unsuffixed `required`/`forbidden` to the providers of the unsuffixed resources
 * (nova puts flavor and image `trait:` properties there). Lists are sorted and free of duplicates.
 */
export interface TraitRequest {
  readonly root_required: readonly string[];
  readonly root_forbidden: readonly string[];
  readonly required?: readonly string[];
  readonly forbidden?: readonly string[];
}

/**
 * Why a property gave no trait. `invalid-value`: nova's image-property type rejects the value. `unknown-trait`: the
 * trait name nova's rule gives is not in the catalogue Placement runs with. `not-expressible`: Placement has no trait
 * for it at all (hypervisor_type, vm_mode, granular flavor groups); left to nova's host filters.
 */
export type UnmappedKind = 'invalid-value' | 'unknown-trait' | 'not-expressible';

export interface UnmappedProperty {
  readonly property: string;
  readonly value: string;
  readonly kind: UnmappedKind;
  /** The trait name the rule produced, when it got that far. */
  readonly trait?: string;
  readonly reason: string;
}

/** applied: the filter ran; disabled: switched off by option; skipped: not applicable (boot from volume). */
export type FilterState = 'applied' | 'disabled' | 'skipped';

/** What `ferry prefilter --json` prints; the library's answer for one image (and flavor). */
export interface PrefilterResult extends TraitRequest {
  readonly required: readonly string[];
  readonly forbidden: readonly string[];
  /** The trait parameters for the microversion; a complete query when `resources` was given. */
  readonly query: string;
  readonly microversion: string;
  /** Each trait in the request → the properties or rules that put it there. */
  readonly reasons: Readonly<Record<string, readonly string[]>>;
  readonly unmapped: readonly UnmappedProperty[];
  readonly filters: {
    readonly image_type: FilterState;
    readonly image_metadata: FilterState;
    readonly compute_status: FilterState;
  };
  /** Caveats about the query (for example: no root_required before 1.35). */
  readonly notes: readonly string[];
}

const traitList = z.array(z.string().regex(/^[A-Z0-9_]+$/));
const filterState = z.enum(['applied', 'disabled', 'skipped']);

/** The JSON contract of PrefilterResult; docs/prefilter.md examples are checked against it. */
export const prefilterResultSchema = z.strictObject({
  root_required: traitList,
  root_forbidden: traitList,
  required: traitList,
  forbidden: traitList,
  query: z.string(),
  microversion: z.string().regex(/^1\.\d+$/),
  reasons: z.record(z.string(), z.array(z.string())),
  unmapped: z.array(z.strictObject({
    property: z.string(),
    value: z.string(),
    kind: z.enum(['invalid-value', 'unknown-trait', 'not-expressible']),
    trait: z.string().optional(),
    reason: z.string(),
  })),
  filters: z.strictObject({ image_type: filterState, image_metadata: filterState, compute_status: filterState }),
  notes: z.array(z.string()),
});
