import type { FerryConfig } from '../config/ferry-config.js';
import type { CopyContext } from '../copy/copy-context.js';
import type { Session } from '../openstack/keystone-session.js';
import type { HttpTransport } from '../openstack/http-transport.js';
import type { ServiceClient } from '../openstack/service-client.js';
import type { ResolvedLocalCluster } from '../rbd/resolve-local-cluster.js';

/**
 * A connected cloud: one transport (one keep-alive pool), one Keystone session, the service clients, and the
 * per-process state that makes concurrent work share requests. Build it with connectCloud; close it when done.
 */
export interface Cloud extends CopyContext {
  readonly config: FerryConfig;
  readonly session: Session;
  readonly transport: HttpTransport;
  /** Placement, with the microversion header set per request by the placement client. */
  readonly placementHttp: ServiceClient;
  /** The local cluster: its fsid, where that came from (--fsid, the cluster, or only ceph.conf) and any warnings. */
  localCluster(signal?: AbortSignal): Promise<ResolvedLocalCluster>;
  close(): Promise<void>;
}
