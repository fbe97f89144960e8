import { z } from 'zod';
import type { TraitRequest } from './prefilter-result.js';

export type TraitParameter = 'root_required' | 'required' | 'root_forbidden' | 'forbidden';

/** One trait constraint a host fails, with the parameter it is in and why the request has it. */
export interface TraitGap {
  readonly trait: string;
  readonly parameter: TraitParameter;
  readonly reasons: readonly string[];
}

export interface CandidateExplanation {
  /** The host meets every trait constraint (resources and capacity are not judged here). */
  readonly satisfied: boolean;
  /** Required traits the host lacks, sorted. */
  readonly lacks: readonly TraitGap[];
  /** Forbidden traits the host has, sorted. */
  readonly has: readonly TraitGap[];
  readonly summary: string;
}

const traitGapSchema = z.strictObject({
  trait: z.string(),
  parameter: z.enum(['root_required', 'required', 'root_forbidden', 'forbidden']),
  reasons: z.array(z.string()),
});

/** The JSON contract of CandidateExplanation; the docs/prefilter.md example is checked against it. */
export const candidateExplanationSchema = z.strictObject({
  satisfied: z.boolean(),
  lacks: z.array(traitGapSchema),
  has: z.array(traitGapSchema),
  summary: z.string(),
});

/**
 * Why a host is or is not a candidate as far as traits go. `providerTraits` are the host's (root provider's)
 * traits, in any order (Placement does not sort them). The unsuffixed `required`/`forbidden` are judged on the same
 * traits: exact for a compute node without child providers; in a tree Placement checks them on the providers that
 * supply the resources, which this function does not see.
 */
export function explainCandidate(providerTraits: Iterable<string>, request: TraitRequest & { readonly reasons?: Readonly<Record<string, readonly string[]>> }): CandidateExplanation {
  const traits = new Set(providerTraits);
  const reasons = request.reasons ?? {};
  const gaps = (parameters: readonly [TraitParameter, readonly string[]][], fails: (t: string) => boolean): TraitGap[] => {
    const seen = new Map<string, TraitGap>();
    for (const [parameter, names] of parameters) {
      for (const trait of names) {
        if (fails(trait) && !seen.has(trait)) seen.set(trait, { trait, parameter, reasons: reasons[trait] ?? [] });
      }
    }
    return [...seen.values()].sort((a, b) => (a.trait < b.trait ? -1 : a.trait > b.trait ? 1 : 0));
  };
  const lacks = gaps([['root_required', request.root_required], ['required', request.required ?? []]], (t) => !traits.has(t));
  const has = gaps([['root_forbidden', request.root_forbidden], ['forbidden', request.forbidden ?? []]], (t) => traits.has(t));
  const satisfied = lacks.length === 0 && has.length === 0;
  return { satisfied, lacks, has, summary: summarize(request, lacks, has) };
}

function summarize(request: TraitRequest, lacks: readonly TraitGap[], has: readonly TraitGap[]): string {
  if (lacks.length === 0 && has.length === 0) {
    const count = new Set([...request.root_required, ...request.root_forbidden, ...(request.required ?? []), ...(request.forbidden ?? [])]).size;
    return `meets all ${count} trait constraint${count === 1 ? '' : 's'}`;
  }
  const describe = (gap: TraitGap): string => (gap.reasons.length === 0 ? gap.trait : `${gap.trait} (${gap.reasons.join('; ')})`);
  return [
    lacks.length === 0 ? undefined : `lacks required ${lacks.map(describe).join(', ')}`,
    has.length === 0 ? undefined : `has forbidden ${has.map(describe).join(', ')}`,
  ].filter((part): part is string => part !== undefined).join('; ');
}
