import type { Clock } from '../clock/clock.js';
import type { GlanceClient } from '../glance/glance-client.js';
import type { Logger } from '../logging/logger.js';
import type { GlanceImage } from '../glance/image.js';
import type { Leftover } from './copy-errors.js';
import type { CopyDurationEstimator } from './copy-duration-estimator.js';
import type { EnsureOutcome } from './ensure-result.js';
import type { SingleFlight } from './single-flight.js';

/** What ensure() needs from a connected cloud. `connectCloud` builds one; tests build their own. */
export interface CopyContext {
  readonly glance: GlanceClient;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The local Ceph cluster's fsid (from --fsid, or asked from the cluster once). */
  localFsid(signal?: AbortSignal): Promise<string>;
  /** Shared per cloud: concurrent ensure() of one (image, store) make one request and one wait. */
  readonly copyFlights: SingleFlight<EnsureOutcome>;
  readonly copyDurations: CopyDurationEstimator;
  /**
   * After Glance failed a copy to `store`: is the target taken by a leftover RBD image of the image's name? Only a
   * context that knows the local cluster's ceph.conf can tell (and only for the local store); others leave it out.
   */
  readonly findLeftover?: (store: string, image: GlanceImage, signal: AbortSignal) => Promise<Leftover | undefined>;
}
