import { systemClock, type Clock } from '../clock/clock.js';
import { buildCephCluster } from '../config/build-ceph-cluster.js';
import { requireAuth } from '../config/require-auth.js';
import type { FerryConfig } from '../config/ferry-config.js';
import { createGlanceClient, glanceEndpointRoot, GLANCE_OWN_TOKEN_CHECK_PATH } from '../glance/glance-client.js';
import { silentLogger, type Logger } from '../logging/logger.js';
import { createHttpTransport, type HttpTransport } from '../openstack/http-transport.js';
import { createSession } from '../openstack/keystone-session.js';
import { RETRY_DEFAULTS } from '../openstack/send-with-retry.js';
import { SERVICE_BODY_LIMITS } from '../openstack/service-body-limits.js';
import { createServiceClient } from '../openstack/service-client.js';
import { resolveLocalCluster, type ResolvedLocalCluster } from '../rbd/resolve-local-cluster.js';
import { parseRbdLocation } from '../rbd/parse-rbd-location.js';
import { readRbdNameHolder } from '../rbd/rbd-image-commands.js';
import type { Cloud } from './cloud.js';

export interface ConnectOptions {
  readonly clock?: Clock;
  /** Share one transport between clouds (benchmarks); closed by its owner, not by the cloud. */
  readonly transport?: HttpTransport;
  /** Wrap the cloud's own transport (the agent counts requests per service and status). Closed with the cloud. */
  readonly observeTransport?: (transport: HttpTransport) => HttpTransport;
}

/** Build a Cloud from a resolved config. Nothing is sent until the first call; credentials are required now. */
export function connectCloud(config: FerryConfig, logger: Logger = silentLogger, options: ConnectOptions = {}): Promise<Cloud> {
  const auth = requireAuth(config);
  const clock = options.clock ?? systemClock;
  const own = options.transport === undefined;
  const built = options.transport ?? createHttpTransport({
    connectTimeoutMs: config.http.connectTimeoutMs,
    responseTimeoutMs: config.http.requestTimeoutMs,
    bodyTimeoutMs: config.http.requestTimeoutMs,
    // A body trickled in under the idle timeout still ends. Twice the idle time, so that a body that stops is reported as
    // stalled (the idle timer), not as slow: one attempt is bounded by connect + 3 × --request-timeout.
    bodyDeadlineMs: 2 * config.http.requestTimeoutMs,
    verifyTls: config.tls.verify,
    ...(config.tls.caFile ? { caFile: config.tls.caFile } : {}),
    ...(config.tls.certFile ? { certFile: config.tls.certFile } : {}),
    ...(config.tls.keyFile ? { keyFile: config.tls.keyFile } : {}),
    logger,
  });
  const transport = own && options.observeTransport ? options.observeTransport(built) : built;
  const retry = { ...RETRY_DEFAULTS, retries: config.http.retries };
  const session = createSession({
    auth,
    endpoints: {
      image: config.endpoints.image,
      placement: config.endpoints.placement,
    },
    transport, clock, logger, retry,
  });
  // Acting for a user (the agent's requests with the booting user's token): the same client, the user's token first.
  const glanceHttp = (userToken?: () => string, nextUserToken?: () => boolean) => createServiceClient({ serviceType: 'image',
    serviceName: 'Glance', session, transport, retry, logger, normalizeEndpoint: glanceEndpointRoot, maxBodyBytes: SERVICE_BODY_LIMITS.glance,
    ...(userToken === undefined ? {} : { actingFor: { userToken, ownTokenCheckPath: GLANCE_OWN_TOKEN_CHECK_PATH,
      ...(nextUserToken ? { nextUserToken } : {}) } }) });
  const placementHttp = createServiceClient({ serviceType: 'placement', serviceName: 'Placement', session, transport, retry, logger,
    maxBodyBytes: SERVICE_BODY_LIMITS.placement });
  let cluster: Promise<ResolvedLocalCluster> | undefined;
  const cloud: Cloud = {
    config, session, transport, clock, logger, placementHttp,
    glance: createGlanceClient(glanceHttp()),
    glanceActingFor: (userToken, nextUserToken) => createGlanceClient(glanceHttp(userToken, nextUserToken)),
    localCluster(signal) {
      // Resolved once per cloud (the agent: again on SIGHUP, with a new cloud); a failure is not kept.
      cluster ??= resolveLocalCluster({ fsid: config.ceph.fsid, ...buildCephCluster(config.ceph), ...(signal ? { cli: { signal } } : {}) }).then((resolved) => {
        for (const warning of resolved.warnings) logger.warn({ fsid: resolved.fsid }, warning);
        return resolved;
      }).catch((error: unknown) => {
        cluster = undefined;
        throw error;
      });
      return cluster;
    },
    projectId: (signal) => session.projectId(signal),
    async localFsid(signal) {
      return (await cloud.localCluster(signal)).fsid;
    },
    async findLeftover(store, image, signal) {
      // Only the local store's cluster is reachable with our ceph.conf.
      const local = buildCephCluster(config.ceph);
      if (local === undefined || store !== config.copy.store) return undefined;
      const pool = glancePoolOf(image.locations ?? []);
      const holder = await readRbdNameHolder({ ...local, signal }, { pool, image: image.id });
      return holder.kind === 'none' ? undefined : { pool, image: image.id, cephConf: local.confFile, user: local.user, halfCreated: holder.kind === 'half-created' };
    },
    async close() {
      if (own) await transport.close();
    },
  };
  return Promise.resolve(cloud);
}

/**
 * The pool Glance writes rbd copies to: the pool of the image's rbd locations in other clusters (sites are set up
 * alike), else glance_store's default `images`.
 */
function glancePoolOf(locations: readonly { readonly url: string }[]): string {
  for (const location of locations) {
    const parsed = parseRbdLocation(location.url);
    if (parsed.ok) return parsed.location.pool;
  }
  return 'images';
}
