import { FerryError } from '../errors/ferry-error.js';
import type { TraitRequest } from './prefilter-result.js';

/**
 * A trait both required and forbidden, in any pair of groups, leaves no host: Placement answers 400 within one
 * parameter and an empty 200 across parameters. Either way it is a mistake in the request, so say so before asking.
 */
export function assertNoTraitConflict(request: TraitRequest, reasons: Readonly<Record<string, readonly string[]>> = {}): void {
  const forbidden = [...request.root_forbidden, ...(request.forbidden ?? [])];
  if (forbidden.length === 0) return;
  const required = [...request.root_required, ...(request.required ?? [])];
  const clashes = [...new Set(required.filter((t) => forbidden.includes(t)))].sort();
  if (clashes.length === 0) return;
  const why = (trait: string): string => {
    const listed = reasons[trait];
    return listed === undefined || listed.length === 0 ? '' : ` (${listed.join('; ')})`;
  };
  const described = clashes.map((t) => `${t}${why(t)}`).join(', ');
  throw new FerryError('FERRY_TRAIT_CONFLICT',
    `the request both requires and forbids ${described}, so no host can match`,
    'Remove the trait from one side: drop the flavor extra spec or image property that requires it, or the one that forbids it.',
    { traits: clashes });
}
