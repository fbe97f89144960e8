import { evictVerb } from '../../src/evict/evict-verb.js';
import type { FleetVerbs } from '../../src/fleet/fleet-verb.js';
import { prewarmVerb } from '../../src/prewarm/prewarm-verb.js';

/** The verbs a sync pass is made of, as `ferry sync` composes them (cli/commands/sync.ts). */
export const FLEET_VERBS: FleetVerbs = { prewarm: prewarmVerb, evict: evictVerb };
