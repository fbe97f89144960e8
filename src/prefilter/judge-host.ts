import { formatAmount, type ResourceFit } from './check-resource-fit.js';
import type { CandidateExplanation } from './explain-candidate.js';

/**
 * `candidate`: Placement returned it. `traits`: it lacks a required trait or has a forbidden one. `resources`: its
 * traits match but its own inventory cannot hold the request (the shortfall is in `fit`). `not-returned`: its traits
 * match and ferry did not find the shortfall (not looked up, or its own inventory has room): not enough resources, or
 * not a root. `traits-match`: no resources were given, so only the traits were judged, and they match.
 */
export type HostVerdictKind = 'candidate' | 'traits' | 'resources' | 'not-returned' | 'traits-match';

export interface HostVerdict {
  readonly candidate: boolean;
  readonly verdict: HostVerdictKind;
  readonly reason: string;
}

export interface HostFacts {
  readonly explanation: CandidateExplanation;
  /** Placement returned it; undefined when no resources were given (allocation candidates were not asked). */
  readonly returned: boolean | undefined;
  /** Its own inventory against the request; undefined when not looked up. */
  readonly fit: readonly ResourceFit[] | undefined;
  /** The resources asked for (`VCPU:1,MEMORY_MB:512`). */
  readonly resources: string | undefined;
  /** The root provider's UUID when this provider is a child; undefined for a root (a compute node). */
  readonly parent: string | undefined;
}

/** One host's verdict and the sentence that says why. Pure; Placement's answer wins over ferry's own reading. */
export function judgeHost(facts: HostFacts): HostVerdict {
  const { explanation, returned, fit, resources } = facts;
  const childNote = facts.parent === undefined ? ''
    : `; note: a child provider of ${facts.parent}: root_required traits are judged on the root, not on it`;
  if (returned === true) {
    const viaTree = explanation.satisfied ? '' : ` although its own traits do not meet them all (${explanation.summary}): another provider of its tree supplies those`;
    return verdict(true, 'candidate', `Placement returns it: the traits match and there is room for ${resources ?? 'the resources'}${viaTree}${childNote}`);
  }
  if (!explanation.satisfied) return verdict(false, 'traits', `${explanation.summary}${childNote}`);
  if (returned === undefined) {
    return verdict(true, 'traits-match', `${explanation.summary}; resources not checked (none given)${childNote}`);
  }
  const short = fit?.filter((entry) => !entry.fits) ?? [];
  if (short.length > 0) {
    const listed = short.map((entry) => `${entry.resourceClass} ${entry.why ?? 'does not fit'}`).join('; ');
    return verdict(false, 'resources', `traits match, but not enough resources: ${listed}${childNote}`);
  }
  if (fit === undefined) {
    return verdict(false, 'not-returned',
      `traits match, but Placement did not return it: not enough resources or not a root (capacity not looked up)${childNote}`);
  }
  const room = fit.map((entry) => `${entry.resourceClass} ${formatAmount(entry.free)} free`).join(', ');
  return verdict(false, 'not-returned',
    `traits match and its own inventory has room (${room}), yet Placement did not return it: not enough resources or not a root ` +
      `(resources held by child or sharing providers, or usage changed since)${childNote}`);
}

function verdict(candidate: boolean, kind: HostVerdictKind, reason: string): HostVerdict {
  return Object.freeze({ candidate, verdict: kind, reason });
}
