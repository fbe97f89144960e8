import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { errorJson } from '../contract/error-document.js';
import { systemClock, type Clock } from '../clock/clock.js';
import type { CopyProgressEvent } from '../copy/copy-progress.js';
import { FerryError, isFerryError } from '../errors/ferry-error.js';
import type { Logger } from '../logging/logger.js';
import { createHealthProbe, type HealthProbe } from './agent-health.js';
import type { AgentMetrics } from './agent-metrics.js';
import type { ResolvedAgentOptions } from './agent-options.js';
import { assertImageRef, parseEnsureRequest } from './agent-request.js';
import type { AgentService } from './agent-service.js';
import { createEnsureWaits } from './ensure-waits.js';
import { httpStatusFor } from './http-status.js';
import { trackConnections } from './connection-drain.js';
import { listenOnInheritedSocket, listenOnSocket, type BoundSocket } from './listen-on-socket.js';
import { readJsonBody } from './read-json-body.js';

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

/** While draining, how long a connection accepted before the agent stopped accepting may take to send its request. */
const FRESH_CONNECTION_GRACE_MS = 1_000;

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

type RouteHandler = (request: IncomingMessage, response: ServerResponse, signal: AbortSignal, params: readonly string[]) => Promise<void>;

interface Route {
  readonly name: string;
  readonly pattern: RegExp;
  readonly methods: Readonly<Record<string, RouteHandler>>;
}

const NDJSON = 'application/x-ndjson';

/** The agent's HTTP/1.1 + JSON API on a Unix socket (docs/agent.md). */
export function createAgentServer({ service, metrics, logger, options, clock = systemClock, inheritedFd, health: healthProbe }: AgentServerOptions): AgentServer {
  const health = healthProbe ?? createHealthProbe({ service, metrics, timeoutMs: options.healthTimeoutMs, clock });
  const waits = createEnsureWaits(options.maxWaits, metrics);
  const inFlight = new Set<AbortController>();
  let shuttingDown = false;
  /** Set once the grace is over: what still arrives is refused. */
  let refusing = false;
  let bound: BoundSocket | undefined;

  const ensureRoute: RouteHandler = async (request, response, signal) => {
    const started = clock.now();
    const body = await readJsonBody(request, options.maxBodyBytes);
    const parsed = parseEnsureRequest(body);
    const store = parsed.store ?? service.defaultStore();
    if (store === undefined) {
      throw new FerryError('FERRY_INVALID_OPTION', 'no store in the request and none configured on the agent',
        'Send "store" in the request, or start the agent with --store / --nova-conf ([libvirt] images_rbd_glance_store_name).');
    }
    const stream = acceptsNdjson(request);
    const write = (line: unknown): void => {
      if (!response.writableEnded) response.write(`${JSON.stringify(line)}\n`);
    };
    const listener = stream ? (event: CopyProgressEvent) => write({ progress: progressJson(event) }) : undefined;
    const ticket = waits.enter(`${parsed.image}\u0000${store}`, listener);
    let outcome = 'ok';
    try {
      if (stream) response.writeHead(200, { 'content-type': NDJSON, 'cache-control': 'no-store' });
      const answer = await service.ensure({ imageRef: parsed.image, store, timeoutMs: parsed.timeout === undefined ? undefined
        : Math.round(parsed.timeout * 1000), signal, onProgress: ticket.publish });
      if (ticket.leader) {
        metrics.importsRequested.inc(answer.importRequests);
        if (answer.joined) metrics.importsJoined.inc();
        if (answer.available !== undefined && answer.available.copiedBytes > 0) metrics.copiedBytes.inc({ store }, answer.available.copiedBytes);
      }
      if (stream) {
        write(answer.document);
        response.end();
      } else {
        sendJson(response, 200, answer.document);
      }
      if (answer.available !== undefined) {
        metrics.timeToAvailable.observe({ store, source: answer.available.source }, (clock.now() - started) / 1000);
      }
    } catch (error) {
      const failure = asFerryError(error, signal);
      outcome = failure.code;
      if (!stream) throw failure;
      write(errorJson(failure));
      response.end();
    } finally {
      ticket.leave();
      metrics.ensures.inc({ outcome });
      metrics.ensureSeconds.observe({ outcome }, (clock.now() - started) / 1000);
    }
  };

  const routes: readonly Route[] = [
    { name: 'ensure', pattern: /^\/v1\/ensure$/, methods: { POST: ensureRoute } },
    {
      name: 'image', pattern: /^\/v1\/images\/([^/]+)$/, methods: {
        GET: async (_request, response, signal, [encoded]) => {
          const imageRef = decodePathSegment(encoded ?? '');
          assertImageRef(imageRef);
          sendJson(response, 200, await service.status(imageRef, signal));
        },
      },
    },
    {
      name: 'healthz', pattern: /^\/healthz$/, methods: {
        GET: async (_request, response, signal) => {
          const report = await health.check(signal);
          sendJson(response, report.ok ? 200 : 503, report);
        },
      },
    },
    {
      name: 'metrics', pattern: /^\/metrics$/, methods: {
        GET: async (_request, response) => {
          const text = await metrics.registry.metrics();
          response.writeHead(200, { 'content-type': metrics.registry.contentType });
          response.end(text);
        },
      },
    },
  ];

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const route = routes.find((candidate) => candidate.pattern.test(path));
    const routeName = route?.name ?? 'unknown';
    response.on('finish', () => metrics.responses.inc({ route: routeName, status: String(response.statusCode) }));
    // Draining: a request on a connection accepted before the agent stopped accepting is still answered, then the
    // connection closes. Only after the grace are requests refused.
    if (shuttingDown) response.shouldKeepAlive = false;
    if (refusing) {
      sendError(response, new FerryError('FERRY_AGENT_SHUTTING_DOWN', 'the ferry agent is shutting down',
        'Retry in a moment: systemd restarts it, or run ferry in-process (ferry ensure --no-agent).'));
      request.resume();
      return;
    }
    if (route === undefined) {
      request.resume();
      sendError(response, new FerryError('FERRY_AGENT_BAD_REQUEST', `no route ${request.method ?? ''} ${path.slice(0, 200)}`,
        'Routes: POST /v1/ensure, GET /v1/images/{id}, GET /healthz, GET /metrics (docs/agent.md).'), 404);
      return;
    }
    const handler = route.methods[request.method ?? ''];
    if (handler === undefined) {
      request.resume();
      response.setHeader('allow', Object.keys(route.methods).join(', '));
      sendError(response, new FerryError('FERRY_AGENT_BAD_REQUEST', `${request.method ?? ''} is not allowed on ${path}`,
        `Use ${Object.keys(route.methods).join(' or ')}.`), 405);
      return;
    }
    const controller = new AbortController();
    inFlight.add(controller);
    // A caller that goes away releases its place on the wait; the copy goes on for the others.
    const onClose = (): void => {
      if (!response.writableFinished) controller.abort(new FerryError('FERRY_ABORTED', 'the client disconnected', 'Nothing to do.'));
    };
    response.on('close', onClose);
    try {
      await handler(request, response, controller.signal, route.pattern.exec(path)?.slice(1) ?? []);
    } catch (error) {
      const failure = asFerryError(error, controller.signal);
      if (failure.code === 'FERRY_INTERNAL') logger.error({ err: error, route: routeName }, 'agent request failed unexpectedly');
      else logger.info({ route: routeName, code: failure.code }, failure.message);
      if (!response.headersSent && !response.destroyed) {
        if (isBodyError(failure)) response.shouldKeepAlive = false;
        sendError(response, failure);
      } else if (!response.writableEnded) {
        response.end();
      }
    } finally {
      inFlight.delete(controller);
      response.off('close', onClose);
    }
  };

  const server = createServer({ requestTimeout: 0, headersTimeout: 10_000, keepAliveTimeout: 5_000 }, (request, response) => {
    void handle(request, response);
  });
  const connections = trackConnections(server);
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  });

  return {
    server,
    get inFlight() {
      return inFlight.size;
    },
    async listen() {
      if (inheritedFd === undefined) {
        bound = await listenOnSocket(server, options.socketPath, { mode: 0o660, group: options.socketGroup });
        logger.info({ socket: options.socketPath, group: options.socketGroup ?? null, maxWaits: options.maxWaits }, 'ferry agent listening');
        return;
      }
      bound = await listenOnInheritedSocket(server, inheritedFd);
      // systemd's socket unit decides the path, mode and group; --socket and --socket-group only name what is expected.
      if (bound.path !== options.socketPath) {
        logger.warn({ socket: bound.path, expected: options.socketPath }, 'systemd passed a socket on another path than --socket; clients must use that path');
      }
      logger.info({ socket: bound.path, fd: inheritedFd, maxWaits: options.maxWaits }, 'ferry agent listening on the socket systemd passed');
    },
    async shutdown() {
      if (shuttingDown) return;
      shuttingDown = true;
      // New connections wait in the listen backlog: systemd's outlives this process, so the next agent answers them.
      const closed = connections.stopAccepting();
      const drainStarted = clock.now();
      const graceEnds = drainStarted + options.shutdownGraceMs;
      logger.info({ inFlight: inFlight.size, connections: connections.open, graceMs: options.shutdownGraceMs }, 'ferry agent shutting down');
      connections.closeQuiet(0, FRESH_CONNECTION_GRACE_MS);
      while ((inFlight.size > 0 || connections.open > 0) && clock.now() < graceEnds) {
        await clock.sleep(Math.min(25, graceEnds - clock.now()));
        connections.closeQuiet(clock.now() - drainStarted, FRESH_CONNECTION_GRACE_MS);
      }
      refusing = true;
      for (const controller of inFlight) {
        controller.abort(new FerryError('FERRY_AGENT_SHUTTING_DOWN', 'the ferry agent shut down before the request finished',
          'Retry: the copy goes on in Glance, and the next agent (or ferry ensure --no-agent) picks it up.'));
      }
      // Aborted handlers answer at once; give them a moment to write before the connections go.
      for (let i = 0; i < 40 && inFlight.size > 0; i += 1) await clock.sleep(25);
      server.closeAllConnections();
      await closed;
      bound?.remove();
      logger.info('ferry agent stopped');
    },
  };
}

function acceptsNdjson(request: IncomingMessage): boolean {
  return (request.headers.accept ?? '').includes(NDJSON);
}

function progressJson(event: CopyProgressEvent): Record<string, unknown> {
  return { image: event.imageId, store: event.store, phase: event.phase, elapsed_seconds: Math.round(event.elapsedMs) / 1000,
    polls: event.polls, ...(event.note ? { note: event.note } : {}), ...(event.taskMessage ? { task_message: event.taskMessage } : {}) };
}

function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new FerryError('FERRY_AGENT_BAD_REQUEST', 'the image in the path is not valid percent-encoding', 'Percent-encode the image ID or name.');
  }
}


function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = `${JSON.stringify(body)}\n`;
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  response.end(text);
}

function sendError(response: ServerResponse, error: FerryError, status = httpStatusFor(error.code)): void {
  sendJson(response, status, errorJson(error));
}

/** Errors raised while the body was only partly read: the connection cannot be reused. */
function isBodyError(error: FerryError): boolean {
  return error.code === 'FERRY_AGENT_BAD_REQUEST' && error.message.startsWith('request body over');
}

/** Never a raw error to the caller: its message could carry anything. */
function asFerryError(error: unknown, signal: AbortSignal): FerryError {
  if (signal.aborted && isFerryError(signal.reason)) return signal.reason;
  if (isFerryError(error)) return error;
  return new FerryError('FERRY_INTERNAL', 'the agent failed unexpectedly (details in its log)',
    'This is a bug in ferry: please report it with the agent log.', {}, { cause: error });
}
