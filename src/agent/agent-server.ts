import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { systemClock, type Clock } from '../clock/clock.js';
import type { Logger } from '../logging/logger.js';
import { createDispatcher } from './agent-dispatch.js';
import { createHealthProbe, type HealthProbe } from './agent-health.js';
import type { AgentMetrics } from './agent-metrics.js';
import { AGENT_DEFAULTS, type ResolvedAgentOptions } from './agent-options.js';
import { agentRoutes } from './agent-routes.js';
import type { HostService } from '../host/host-service.js';
import { drainAgent } from './agent-shutdown.js';
import { trackConnections } from './connection-drain.js';
import { createEnsureRoute } from './ensure-route.js';
import { createEnsureWaits } from './ensure-waits.js';
import { listenOnInheritedSocket, listenOnSocket, type BoundSocket } from './listen-on-socket.js';

export interface AgentServerOptions {
  readonly service: HostService;
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
 * ensure-route.ts) behind one dispatcher, on a server whose connections and request times are bounded, drained on
 * shutdown (agent-shutdown.ts).
 */
export function createAgentServer({ service, metrics, logger, options, clock = systemClock, inheritedFd, health: healthProbe }: AgentServerOptions): AgentServer {
  const health = healthProbe ?? createHealthProbe({ service, metrics, timeoutMs: options.healthTimeoutMs, allowList: options.allowStores, clock });
  const ensure = createEnsureRoute({ service, metrics, clock, waits: createEnsureWaits(options.maxWaits, metrics),
    maxBodyBytes: options.maxBodyBytes, allowStores: options.allowStores });
  const state = { draining: false, refusing: false };
  const dispatcher = createDispatcher({ routes: agentRoutes({ ensure, service, health, metrics }), metrics, logger, state });
  // requestTimeout bounds receiving a request (headers and body), not answering it: a copy may take many minutes.
  // Node checks those two timeouts every connectionsCheckingInterval (default 30 s): often enough to keep them.
  const server = createServer({ requestTimeout: options.requestTimeoutMs, headersTimeout: options.headersTimeoutMs,
    connectionsCheckingInterval: Math.min(1_000, Math.ceil(options.headersTimeoutMs / 2)),
    keepAliveTimeout: AGENT_DEFAULTS.keepAliveTimeoutMs }, (request, response) => {
    void dispatcher.handle(request, response);
  });
  const connections = trackConnections(server);
  // Past the cap Node closes a new connection at once (nova's client counts that as the agent away). A connection
  // that sends nothing is bounded by no request timeout: it is closed once idle, unless a request on it is running
  // (a copy's answer may be silent for minutes).
  server.maxConnections = options.maxConnections;
  server.setTimeout(options.idleTimeoutMs);
  server.on('timeout', (socket: Socket) => {
    if (!connections.busy(socket)) socket.destroy();
  });
  server.on('drop', () => logger.warn({ maxConnections: options.maxConnections }, 'a connection over the cap was closed'));
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
    if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
    else socket.destroy();
  });
  let bound: BoundSocket | undefined;

  return {
    server,
    get inFlight() {
      return dispatcher.inFlight;
    },
    async listen() {
      const limits = { maxWaits: options.maxWaits, maxConnections: options.maxConnections, stores: options.allowStores ?? service.defaultStore() ?? null };
      if (inheritedFd === undefined) {
        bound = await listenOnSocket(server, options.socketPath, { mode: 0o660, group: options.socketGroup });
        logger.info({ socket: options.socketPath, group: options.socketGroup ?? null, ...limits }, 'ferry agent listening');
        return;
      }
      bound = await listenOnInheritedSocket(server, inheritedFd);
      // systemd's socket unit decides the path, mode and group; --socket and --socket-group only name what is expected.
      if (bound.path !== options.socketPath) {
        logger.warn({ socket: bound.path, expected: options.socketPath }, 'systemd passed a socket on another path than --socket; clients must use that path');
      }
      logger.info({ socket: bound.path, fd: inheritedFd, ...limits }, 'ferry agent listening on the socket systemd passed');
    },
    async shutdown() {
      if (state.draining) return;
      await drainAgent({ server, connections, dispatcher, state, graceMs: options.shutdownGraceMs, clock, logger });
      bound?.remove();
      logger.info('ferry agent stopped');
    },
  };
}
