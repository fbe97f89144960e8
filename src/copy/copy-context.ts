import type { Clock } from '../clock/clock.js';
import type { GlanceClient } from '../glance/glance-client.js';
import type { Logger } from '../logging/logger.js';
import type { GlanceImage } from '../glance/image.js';
import { createActingTokens, type ActingTokens } from './acting-tokens.js';
import type { Leftover } from './copy-errors.js';
import { createCopyDurationEstimator, type CopyDurationEstimator } from './copy-duration-estimator.js';
import type { EnsureOutcome } from './ensure-result.js';
import { createSingleFlight, type SingleFlight } from './single-flight.js';
import { createKeyedLimiter, type KeyedLimiter } from '../concurrency/keyed-limiter.js';
import { DIRECT_COPIES_PER_CLUSTER } from './transfer/rbd-direct-plan.js';

/**
 * What the copy engine needs from a connected cloud. A `Cloud` (cloud/) is one as it is, without knowing the engine;
 * tests build their own.
 */
export interface CopyContext {
  readonly glance: GlanceClient;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The local Ceph cluster's fsid (from --fsid, or asked from the cluster once). */
  localFsid(signal?: AbortSignal): Promise<string>;
  /**
   * After Glance failed a copy to `store`: is the target taken by a leftover RBD image of the image's name? Only a
   * context that knows the local cluster's ceph.conf can tell (and only for the local store); others leave it out.
   */
  readonly findLeftover?: (store: string, image: GlanceImage, signal: AbortSignal) => Promise<Leftover | undefined>;
  /**
   * The project the Glance token is scoped to (Session.projectId), when known: a listing of every image is read as
   * Glance shows it to this project (sync with budgets resolves names as findImage does). Without it, no community image
   * counts for a name.
   */
  readonly projectId?: (signal?: AbortSignal) => Promise<string | undefined>;
  /**
   * A Glance client whose every call acts for a user: `userToken()` as X-Auth-Token, this context's own token as
   * X-Service-Token (the agent's requests that carry the booting user's token). Absent: no request may carry one.
   */
  readonly glanceActingFor?: (userToken: () => string, nextUserToken?: () => boolean) => GlanceClient;
  /** Given only by tests; otherwise the engine keeps them per Glance client (copyShared). */
  readonly copyFlights?: SingleFlight<EnsureOutcome>;
  readonly copyDurations?: CopyDurationEstimator;
}

/** The engine's state shared by everything that copies through one Glance client (one cloud, one process). */
export interface CopyShared {
  /** Concurrent ensure() of one (image, store) make one request and one wait. */
  readonly copyFlights: SingleFlight<EnsureOutcome>;
  /** Copy durations learnt per store, for the first read after a request. */
  readonly copyDurations: CopyDurationEstimator;
  /**
   * The direct RBD transfer's slots per source cluster and target store, across every ensure() of this process (the
   * agent's concurrent requests): each running copy is a librbd process of its own, in the agent's cgroup.
   */
  readonly rbdCopySlots: KeyedLimiter;
  /** The user tokens of the callers of each shared copy that acts for users (ensure with a userToken). */
  readonly actingTokens: ActingTokens;
}

// Keyed by the Glance client, so the state lives exactly as long as the cloud that owns it (a SIGHUP makes a new one).
const sharedByClient = new WeakMap<GlanceClient, CopyShared>();

export function copyShared(ctx: CopyContext): CopyShared {
  let shared = sharedByClient.get(ctx.glance);
  if (shared === undefined) {
    shared = { copyFlights: createSingleFlight<EnsureOutcome>(), copyDurations: createCopyDurationEstimator(),
      rbdCopySlots: createKeyedLimiter(DIRECT_COPIES_PER_CLUSTER), actingTokens: createActingTokens() };
    sharedByClient.set(ctx.glance, shared);
  }
  return { copyFlights: ctx.copyFlights ?? shared.copyFlights, copyDurations: ctx.copyDurations ?? shared.copyDurations,
    rbdCopySlots: shared.rbdCopySlots, actingTokens: shared.actingTokens };
}
