import { isFerryError } from '../errors/ferry-error.js';

/**
 * What a copy job knows about Glance being away. Every Glance call of the job (the request, the reads through a lost
 * answer, the waits, the task reads) reports to one of these, so an outage seen in any step counts.
 * - `away`: an answer said nobody is there: a refused connection, or a gateway's 502/503/504 (a load balancer in front
 *   of a dead glance-api), after the transport's own retries. A slow answer (a timeout) or a reset alone is not an
 *   outage: Glance may be busy copying, and a lost answer is looked up on the image.
 * - `backAtWallMs`: when Glance answered again after being away. glance-api was restarted then: an import task that has
 *   not moved since will never move again (copyState calls it stuck, cause `glance-restarted`).
 */
export interface GlanceOutage {
  away: boolean;
  backAtWallMs: number | undefined;
  /** The "Glance does not answer" warning was logged for this stretch. */
  warned: boolean;
}

export function noOutage(): GlanceOutage {
  return { away: false, backAtWallMs: undefined, warned: false };
}

/** Does this error say Glance itself is away (rather than slow, or refusing the request)? Pure. */
export function saysGlanceAway(error: unknown): boolean {
  if (!isFerryError(error)) return false;
  // A reset alone is a lost answer, not an outage: the server may well be alive (the proxy fault tests).
  if (error.code === 'FERRY_UNREACHABLE') return error.details.cause === 'ECONNREFUSED';
  return error.code === 'FERRY_HTTP' && [502, 503, 504].includes(Number(error.details.status));
}

/** Note a failed Glance call; returns true when it counts as Glance being away. */
export function noteGlanceError(outage: GlanceOutage, error: unknown): boolean {
  if (!saysGlanceAway(error)) return false;
  outage.away = true;
  return true;
}

/** Note an answer from Glance; returns true when it ends an outage (Glance is back: it was restarted). */
export function noteGlanceAnswer(outage: GlanceOutage, wallNowMs: number): boolean {
  if (!outage.away) return false;
  outage.away = false;
  outage.backAtWallMs = wallNowMs;
  outage.warned = false;
  return true;
}
