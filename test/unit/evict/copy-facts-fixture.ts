import type { CopyFacts } from '../../../src/fleet/copy-facts.js';

/** Now, for every eviction table: 2026-11-27 12:00 UTC. */
export const NOW = Date.UTC(2026, 10, 27, 12, 0, 0);
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const MIB = 2 ** 20;

/** The project of ferry's credential in the tables: the owner of every copy unless a row says otherwise. */
export const OPS = 'ops-project';

/** A copy that is a candidate as it stands: active, in the pool, no clone, two locations, idle for 3 days, 100 MiB. */
export function facts(overrides: Partial<CopyFacts> & { readonly imageId: string }): CopyFacts {
  return {
    imageName: null, owner: OPS, store: 'site-b', status: 'active', rbdImage: overrides.imageId, inPool: 'yes', bytes: 100 * MIB,
    clones: 0, trashedClones: 0, newestCloneMs: undefined, cloneTimesMs: [], copiedMs: NOW - 3 * DAY, accessedMs: NOW - 3 * DAY, lastUsedMs: NOW - 3 * DAY,
    locations: 2, importing: false, pin: undefined, fence: undefined,
    ...overrides,
  };
}
