import type { FerryConfig } from '../config/ferry-config.js';
import type { Clock } from '../clock/clock.js';
import type { GlanceClient } from '../glance/glance-client.js';
import type { GlanceImage } from '../glance/image.js';
import type { Logger } from '../logging/logger.js';
import type { Session } from '../openstack/keystone-session.js';
import type { HttpTransport } from '../openstack/http-transport.js';
import type { ServiceClient } from '../openstack/service-client.js';
import type { LeftoverImage } from '../rbd/leftover-image.js';
import type { ResolvedLocalCluster } from '../rbd/resolve-local-cluster.js';

/**
 * A connected cloud: one transport (one keep-alive pool), one Keystone session, the service clients, and the
 * per-process state that makes concurrent work share requests. Build it with connectCloud; close it when done.
 */
export interface Cloud {
  readonly config: FerryConfig;
  readonly glance: GlanceClient;
  /** Glance acting for a user: `userToken()` as X-Auth-Token, the session's own as X-Service-Token (CopyContext). */
  glanceActingFor(userToken: () => string, nextUserToken?: () => boolean): GlanceClient;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The local Ceph cluster's fsid (from --fsid, or asked from the cluster once). */
  localFsid(signal?: AbortSignal): Promise<string>;
  /** After Glance failed a copy to the local store: the leftover RBD image taking its target, if any. */
  findLeftover(store: string, image: GlanceImage, signal: AbortSignal): Promise<LeftoverImage | undefined>;
  readonly session: Session;
  /** The project the token is scoped to (session.projectId). */
  projectId(signal?: AbortSignal): Promise<string | undefined>;
  readonly transport: HttpTransport;
  /** Placement, with the microversion header set per request by the placement client. */
  readonly placementHttp: ServiceClient;
  /** The local cluster: its fsid, where that came from (--fsid, the cluster, or only ceph.conf) and any warnings. */
  localCluster(signal?: AbortSignal): Promise<ResolvedLocalCluster>;
  close(): Promise<void>;
}
