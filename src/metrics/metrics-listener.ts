import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { FerryError } from '../errors/ferry-error.js';
import type { Logger } from '../logging/logger.js';
import { formatListenAddress, type ListenAddress } from './listen-address.js';

/** What `GET /healthz` answers: 200 when `ok`, else 503; `body` is sent as JSON. */
export interface HealthAnswer {
  readonly ok: boolean;
  readonly body: unknown;
}

export interface MetricsListenerOptions {
  readonly address: ListenAddress;
  /** The option the address came from, for an error message (`--metrics-listen`). */
  readonly from: string;
  readonly registry: Registry;
  /**
   * The /healthz answer. Anyone who reaches the port gets it: the agent hands in its cached verdict (ok and the names
   * of failing checks), which costs no request per call and shows no path, user, URL, fsid or version.
   */
  readonly health: (signal: AbortSignal) => Promise<HealthAnswer>;
  /** Bound on one /healthz answer. */
  readonly healthTimeoutMs: number;
  readonly logger: Logger;
  /** Default METRICS_LISTENER_DEFAULTS. */
  readonly limits?: Partial<MetricsListenerLimits>;
}

/** What one scraper, or anyone else who reaches the port, can hold of the listener. */
export interface MetricsListenerLimits {
  /** Connections open at once; one more is closed before anything is read from it. */
  readonly maxConnections: number;
  /** Bound on receiving a request's headers, and the whole request (a scrape sends no body). */
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  /** A connection on which nothing moves for this long is closed (also one that never sends a request). */
  readonly idleTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
}

/** A scraper keeps one connection per target; a few more leave room for a health probe and a curl. */
export const METRICS_LISTENER_DEFAULTS: MetricsListenerLimits = Object.freeze({
  maxConnections: 8,
  headersTimeoutMs: 5_000,
  requestTimeoutMs: 5_000,
  idleTimeoutMs: 15_000,
  keepAliveTimeoutMs: 5_000,
});

export interface MetricsListener {
  /** Where it listens: with port 0, the port the kernel gave. */
  readonly address: ListenAddress;
  close(): Promise<void>;
}

const NOT_FOUND = 'not found: this listener serves only GET /metrics and GET /healthz\n';

/**
 * A TCP listener for a scraper: `GET /metrics` (the registry, Prometheus text format) and `GET /healthz`, nothing
 * else (every other path or method is 404). It is apart from the agent's Unix socket on purpose: whoever can scrape
 * must not thereby be able to ask for copies.
 */
export async function startMetricsListener(options: MetricsListenerOptions): Promise<MetricsListener> {
  const { registry, logger } = options;
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    request.resume();
    const path = (request.url ?? '/').split('?')[0];
    if (request.method === 'GET' && path === '/metrics') {
      const text = await registry.metrics();
      send(response, 200, registry.contentType, text);
    } else if (request.method === 'GET' && path === '/healthz') {
      const answer = await options.health(AbortSignal.timeout(options.healthTimeoutMs));
      send(response, answer.ok ? 200 : 503, 'application/json', `${JSON.stringify(answer.body)}\n`);
    } else {
      send(response, 404, 'text/plain; charset=utf-8', NOT_FOUND);
    }
  };
  const limits = { ...METRICS_LISTENER_DEFAULTS, ...options.limits };
  const server = createServer({ requestTimeout: limits.requestTimeoutMs, headersTimeout: limits.headersTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs }, (request, response) => {
    handle(request, response).catch((error: unknown) => {
      logger.error({ err: error, url: request.url?.slice(0, 200) }, 'metrics listener: the answer failed');
      if (!response.headersSent) send(response, 500, 'text/plain; charset=utf-8', 'internal error (see the log)\n');
      else response.destroy();
    });
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  // Past the cap Node closes a new connection before reading from it; and a connection that never sends a request
  // (which neither the headers nor the request timeout covers) is closed when idle.
  server.maxConnections = limits.maxConnections;
  server.setTimeout(limits.idleTimeoutMs);
  server.on('drop', () => logger.debug({ maxConnections: limits.maxConnections }, 'metrics listener: a connection over the cap closed'));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, options)));
    server.listen({ host: options.address.host, port: options.address.port }, () => resolve());
  });
  const bound = server.address() as AddressInfo;
  const address = Object.freeze({ host: options.address.host, port: bound.port });
  logger.info({ listen: formatListenAddress(address) }, 'metrics listening (GET /metrics, GET /healthz)');
  return {
    address,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

function send(response: ServerResponse, status: number, contentType: string, body: string): void {
  response.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
  response.end(body);
}

const LISTEN_FAILURES: Readonly<Record<string, string>> = {
  EADDRINUSE: 'the address is in use (another process listens there)',
  EADDRNOTAVAIL: 'no interface of this host has that address',
  EACCES: 'no permission to bind it (a port below 1024 needs privileges)',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve (the resolver did not answer)',
};

function listenError(error: NodeJS.ErrnoException, options: MetricsListenerOptions): FerryError {
  const why = LISTEN_FAILURES[error.code ?? ''] ?? `${error.code ?? 'error'}: ${error.message}`;
  return new FerryError('FERRY_INVALID_OPTION', `${options.from} ${formatListenAddress(options.address)}: cannot listen: ${why}`,
    `Pass another address or port to ${options.from}, or stop what holds it.`, { option: options.from, errno: error.code ?? null },
    { cause: error });
}
