import { createServer, type Server } from 'node:http';
import { systemClock, type Clock } from '../clock/clock.js';
import type { Logger } from '../logging/logger.js';
import { createDispatcher } from './agent-dispatch.js';
import { createHealthProbe, type HealthProbe } from './agent-health.js';
import type { AgentMetrics } from './agent-metrics.js';
import type { ResolvedAgentOptions } from './agent-options.js';
import { agentRoutes } from './agent-routes.js';
import type { AgentService } from './agent-service.js';
import { drainAgent } from './agent-shutdown.js';
import { trackConnections } from './connection-drain.js';
import { createEnsureRoute } from './ensure-route.js';
import { createEnsureWaits } from './ensure-waits.js';
import { listenOnInheritedSocket, listenOnSocket, type BoundSocket } from './listen-on-socket.js';

export interface AgentServerOptions {
  readonly service: AgentService;
  readonly metrics: AgentMetrics;
  readonly logger: Logger;
  readonly options: ResolvedAgentOptions;
  readonly clock?: Clock;
  /** A socket systemd passed (ferry-agent.socket, fd 3): listened on instead of binding options.socketPath. */
  readonly inheritedFd?: number | undefined;
  /** Shared with the metrics listener, so both /healthz answers and the health gauge agree. Default: one of its own. */
  readonly health?: HealthProbe;
}

export interface AgentServer {
  /** Listen on systemd's socket, or bind our own (replacing a stale one); start answering. */
  listen(): Promise<void>;
  /**
   * Stop accepting; answer the requests on connections already open within the grace (then
   * FERRY_AGENT_SHUTTING_DOWN); remove our own socket (never systemd's).
   */
  shutdown(): Promise<void>;
  /** Requests being answered now. */
  readonly inFlight: number;
  readonly server: Server;
}

/**
 * The agent's HTTP/1.1 + JSON API on a Unix socket (docs/agent.md): the routes (agent-routes.ts, the ensure route in
 * ensure-route.ts) behind one dispatcher, drained on shutdown (agent-shutdown.ts).
 */
export function createAgentServer({ service, metrics, logger, options, clock = systemClock, inheritedFd, health: healthProbe }: AgentServerOptions): AgentServer {
  const health = healthProbe ?? createHealthProbe({ service, metrics, timeoutMs: options.healthTimeoutMs, allowList: options.allowStores, clock });
  const ensure = createEnsureRoute({ service, metrics, clock, waits: createEnsureWaits(options.maxWaits, metrics),
    maxBodyBytes: options.maxBodyBytes, allowStores: options.allowStores });
  const state = { draining: false, refusing: false };
  const dispatcher = createDispatcher({ routes: agentRoutes({ ensure, service, health, metrics }), metrics, logger, state });
  const server = createServer({ requestTimeout: 0, headersTimeout: 10_000, keepAliveTimeout: 5_000 }, (request, response) => {
    void dispatcher.handle(request, response);
  });
  const connections = trackConnections(server);
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  });
  let bound: BoundSocket | undefined;

  return {
    server,
    get inFlight() {
      return dispatcher.inFlight;
    },
    async listen() {
      if (inheritedFd === undefined) {
        bound = await listenOnSocket(server, options.socketPath, { mode: 0o660, group: options.socketGroup });
        logger.info({ socket: options.socketPath, group: options.socketGroup ?? null, maxWaits: options.maxWaits,
          stores: options.allowStores ?? service.defaultStore() ?? null }, 'ferry agent listening');
        return;
      }
      bound = await listenOnInheritedSocket(server, inheritedFd);
      // systemd's socket unit decides the path, mode and group; --socket and --socket-group only name what is expected.
      if (bound.path !== options.socketPath) {
        logger.warn({ socket: bound.path, expected: options.socketPath }, 'systemd passed a socket on another path than --socket; clients must use that path');
      }
      logger.info({ socket: bound.path, fd: inheritedFd, maxWaits: options.maxWaits, stores: options.allowStores ?? service.defaultStore() ?? null },
        'ferry agent listening on the socket systemd passed');
    },
    async shutdown() {
      if (state.draining) return;
      await drainAgent({ server, connections, dispatcher, state, graceMs: options.shutdownGraceMs, clock, logger });
      bound?.remove();
      logger.info('ferry agent stopped');
    },
  };
}
