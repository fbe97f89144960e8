import { createHash } from 'node:crypto';
import type { Clock } from '../clock/clock.js';
import type { EnsureOutcome } from '../copy/ensure-result.js';
import type { SingleFlight } from '../copy/single-flight.js';
import { FerryError } from '../errors/ferry-error.js';
import { HAND_OUT_DEFAULTS } from './hand-out-copy.js';

export interface SharedHandOutCall {
  /** The image as asked for and the store: concurrent retries of one (image, store) share one wait. */
  readonly imageRef: string;
  readonly store: string;
  /**
   * The user token the wait's ensures act for (each one looks at the image with it first). Retries share a wait only
   * with the same token's: a wait never runs on a token whose request has gone, nor hands a joiner what it did not look at.
   */
  readonly actingFor?: string | undefined;
  /** The request's own deadline (its `timeout`); undefined when it sent none. */
  readonly requestTimeoutMs: number | undefined;
  /** The agent's own deadline for a copy (--timeout, nova's images_rbd_glance_copy_timeout). */
  readonly agentTimeoutMs: number;
  /** The copy engine's single flights (copyShared(ctx).copyFlights): the mechanism that already shares ensures. */
  readonly flights: SingleFlight<EnsureOutcome>;
  readonly clock: Clock;
  /** This caller's: aborts when nova goes away. */
  readonly signal: AbortSignal;
  /** The wait itself (ensureToHandOut), on the flight's signal: aborted once every caller has gone. */
  readonly wait: (signal: AbortSignal) => Promise<EnsureOutcome>;
}

/** The key's part for a user token: a digest (the key is no place for the token itself). */
function tokenTag(token: string | undefined): string {
  return token === undefined ? '' : `\u0000${createHash('sha256').update(token).digest('hex').slice(0, 32)}`;
}

/**
 * Pure: how long a retry's caller may be kept. The sooner of its request's deadline and the agent's own, less a margin
 * (half of it at most): nova's client waits its timeout and 30 s more, so an answer within this reaches a caller that
 * is still listening, never a socket it already abandoned.
 */
export function answerBudgetMs(requestTimeoutMs: number | undefined, agentTimeoutMs: number): number {
  const limitMs = Math.min(requestTimeoutMs ?? agentTimeoutMs, agentTimeoutMs);
  return Math.round(Math.max(limitMs / 2, limitMs - HAND_OUT_DEFAULTS.answerMarginMs));
}

/**
 * A retry after a failed clone, on the wait it shares with every concurrent retry of the same (image, store): one
 * loop of ensures and looks however many nova workers ask. Each caller is answered by its own deadline
 * (answerBudgetMs): with the copy when the wait ends in time, else FERRY_HAND_OUT_TIMEOUT, on which nova's patch takes
 * its own path at once. The wait goes on for the callers still there, and stops when the last one has gone.
 */
export async function shareHandOut(call: SharedHandOutCall): Promise<EnsureOutcome> {
  const budgetMs = answerBudgetMs(call.requestTimeoutMs, call.agentTimeoutMs);
  const deadline = call.clock.timer(budgetMs);
  try {
    return await call.flights.run(`${call.imageRef}\u0000${call.store}\u0000hand-out${tokenTag(call.actingFor)}`, AbortSignal.any([call.signal, deadline.signal]), call.wait);
  } catch (error) {
    if (!deadline.signal.aborted || call.signal.aborted) throw error;
    throw new FerryError('FERRY_HAND_OUT_TIMEOUT',
      `no copy of ${call.imageRef} in store ${call.store} could be handed out within ${Math.round(budgetMs / 1000)} s: `
        + 'the copy nova failed to clone is still gone or being removed (an eviction), and no new one is in place yet',
      'Nothing to do: nova\'s patch takes nova\'s own path (its copy through Glance). If it recurs, see the agent log and docs/evict.md, "Boot safety".',
      { image: call.imageRef, store: call.store, budgetMs });
  } finally {
    deadline.clear();
  }
}
