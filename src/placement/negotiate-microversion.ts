import { z } from 'zod';
import { FerryError } from '../errors/ferry-error.js';
import { validateResponse } from '../openstack/validate-response.js';

/** A Placement microversion: always `1.N` so far, compared numerically (1.10 > 1.9). */
export interface Microversion {
  readonly major: number;
  readonly minor: number;
}

/** What `GET /` announces. */
export interface PlacementRoot {
  readonly minVersion: Microversion;
  readonly maxVersion: Microversion;
  readonly status: string;
}

/**
 * The newest microversion ferry speaks (Placement 8.0.0, Zed), and the oldest each verb needs
 * (placement-and-traits.md §3): traits API 1.6; trait lists in allocation-candidate summaries 1.17.
 */
export const PLACEMENT_VERB_MICROVERSIONS = {
  wanted: '1.39',
  providers: '1.0',
  traits: '1.6',
  allocationCandidates: '1.17',
} as const;

const VERSION = /^(\d+)\.(\d+)$/;

/** `1.39` → {1, 39}; undefined when it is not of that form. */
export function parseMicroversion(text: string): Microversion | undefined {
  const match = VERSION.exec(text.trim());
  if (match?.[1] === undefined || match[2] === undefined) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]) };
}

export function formatMicroversion(version: Microversion): string {
  return `${version.major}.${version.minor}`;
}

export function compareMicroversions(a: Microversion, b: Microversion): number {
  return a.major === b.major ? a.minor - b.minor : a.major - b.major;
}

const rootSchema = z.object({
  versions: z.array(z.object({
    id: z.string(),
    // A Placement without microversions (never shipped, but the schema allows it) announces '' for both.
    max_version: z.string(),
    min_version: z.string(),
    status: z.string(),
  })).min(1),
});

/** Parse `GET /`: the v1.0 entry (the only one Placement has ever had). */
export function parsePlacementRoot(body: unknown, endpoint: string): PlacementRoot {
  const root = validateResponse(rootSchema, body, endpoint);
  const entry = root.versions.find((v) => v.id === 'v1.0') ?? root.versions[0];
  const version = (text: string, field: string): Microversion => {
    if (text === '') return { major: 1, minor: 0 };
    const parsed = parseMicroversion(text);
    if (parsed !== undefined) return parsed;
    throw new FerryError('FERRY_BAD_RESPONSE', `unexpected answer from ${endpoint}: field 'versions.${field}' is '${text}', not a microversion`,
      'The service speaks a version ferry does not understand; check that the Placement endpoint is right.', { endpoint, field, value: text });
  };
  return Object.freeze({
    minVersion: version(entry?.min_version ?? '', 'min_version'),
    maxVersion: version(entry?.max_version ?? '', 'max_version'),
    status: entry?.status ?? '',
  });
}

/** The microversion to send: the newest both sides speak, min(wanted, server max). */
export function negotiateMicroversion(root: PlacementRoot, wanted: string = PLACEMENT_VERB_MICROVERSIONS.wanted): Microversion {
  const mine = parseMicroversion(wanted);
  if (mine === undefined) {
    throw new FerryError('FERRY_INVALID_OPTION', `the Placement microversion must be like 1.39, got '${wanted}'`,
      'Leave it out to use the newest one both ferry and the server speak.', { option: 'microversion', value: wanted });
  }
  return compareMicroversions(mine, root.maxVersion) <= 0 ? mine : root.maxVersion;
}

/** Throws a clear error when the negotiated version is too old for `what`, before any request is made for it. */
export function requireMicroversion(negotiated: Microversion, needed: string, what: string, endpoint: string): void {
  const need = parseMicroversion(needed);
  if (need === undefined) {
    throw new FerryError('FERRY_INVALID_OPTION', `the Placement microversion ${what} needs must be like 1.39, got '${needed}'`,
      'Give the microversion as MAJOR.MINOR.', { option: 'minMicroversion', value: needed });
  }
  if (compareMicroversions(negotiated, need) >= 0) return;
  const have = formatMicroversion(negotiated);
  throw new FerryError('FERRY_HTTP',
    `Placement at ${endpoint} speaks microversions up to ${have} (as far as ferry asks), but ${what} needs ${needed} or later`,
    'Upgrade Placement (ferry is built against Placement 8.0.0, microversion 1.39), or point ferry at the right endpoint.',
    { endpoint, microversion: have, needed, what });
}
