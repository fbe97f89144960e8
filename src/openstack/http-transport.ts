import { Agent as HttpAgent, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { FerryError } from '../errors/ferry-error.js';
import { silentLogger, type Logger } from '../logging/logger.js';
import { startExchange, type PhaseLimits } from './http-exchange.js';
import { networkError } from './network-error.js';
import { readBoundedBody } from './read-bounded-body.js';
import { readTlsFiles } from './tls-files.js';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpRequest {
  readonly method: HttpMethod;
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** JSON-encoded when defined. */
  readonly body?: unknown;
  readonly signal?: AbortSignal;
  /**
   * 'fresh': send on a new connection, closed after the answer, instead of a pooled keep-alive one. For a request
   * whose work stays in the server process that accepts it (a Glance import runs in that worker): a pooled connection
   * would pin all such work to whichever worker, or load-balancer backend, accepted the pool's first connections.
   */
  readonly connection?: 'pooled' | 'fresh';
  /** Who answers, named in messages ('Glance', 'Keystone'). Default: the URL's host. */
  readonly service?: string;
  /** The largest body read (a larger one is FERRY_BAD_RESPONSE, its connection closed). Default: the transport's. */
  readonly maxBodyBytes?: number;
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON when the server said JSON (or the text parses as JSON), else the text; undefined when empty. */
  readonly body: unknown;
  readonly requestId: string | undefined;
}

export interface HttpTransport {
  send(request: HttpRequest): Promise<HttpResponse>;
  close(): Promise<void>;
}

export interface HttpTransportOptions {
  readonly connectTimeoutMs?: number;
  /** Time allowed from sending the request to the response headers. */
  readonly responseTimeoutMs?: number;
  /** Longest silence allowed while the body streams in. */
  readonly bodyTimeoutMs?: number;
  /** Longest time from the response headers to the body's last byte, however steadily it trickles in. */
  readonly bodyDeadlineMs?: number;
  /** The largest body read for a request that names no cap of its own (HttpRequest.maxBodyBytes). */
  readonly maxBodyBytes?: number;
  readonly caFile?: string;
  /** Client certificate (PEM) for services that demand one; may hold the key too. */
  readonly certFile?: string;
  /** Its private key (PEM), when not in certFile. */
  readonly keyFile?: string;
  readonly verifyTls?: boolean;
  readonly userAgent?: string;
  readonly logger?: Logger;
}

export const HTTP_DEFAULTS = {
  connectTimeoutMs: 10_000,
  responseTimeoutMs: 60_000,
  bodyTimeoutMs: 60_000,
  bodyDeadlineMs: 120_000,
  /** The per-service caps are SERVICE_BODY_LIMITS (service-body-limits.ts); this one serves requests that name none. */
  maxBodyBytes: 32 << 20,
  verifyTls: true,
  userAgent: 'ferry',
} as const;

/** How long an idle pooled connection is kept (a server's shorter `Keep-Alive: timeout=` hint wins). */
const KEEP_ALIVE_MS = 30_000;

/**
 * One keep-alive connection pool for every service, over node:http and node:https: per-phase limits (http-exchange),
 * the TLS files on the https pool, and nock intercepts it in unit tests. No undici and no global fetch (docs/architecture.md).
 */
export function createHttpTransport(options: HttpTransportOptions = {}): HttpTransport {
  const logger = options.logger ?? silentLogger;
  const tls = readTlsFiles({
    verifyTls: options.verifyTls ?? HTTP_DEFAULTS.verifyTls,
    caFile: options.caFile, certFile: options.certFile, keyFile: options.keyFile,
  });
  const limits: PhaseLimits = {
    connectMs: options.connectTimeoutMs ?? HTTP_DEFAULTS.connectTimeoutMs,
    responseMs: options.responseTimeoutMs ?? HTTP_DEFAULTS.responseTimeoutMs,
    bodyIdleMs: options.bodyTimeoutMs ?? HTTP_DEFAULTS.bodyTimeoutMs,
  };
  const pooled = { keepAlive: true, timeout: KEEP_ALIVE_MS, scheduling: 'lifo' } as const;
  // The fresh pools keep nothing alive, so a fresh request never rides an idle pooled socket; `connection: close` says so.
  const agents = {
    pooled: { 'http:': new HttpAgent(pooled), 'https:': new HttpsAgent({ ...pooled, ...tls }) },
    fresh: { 'http:': new HttpAgent({ keepAlive: false }), 'https:': new HttpsAgent({ keepAlive: false, ...tls }) },
  };
  const userAgent = options.userAgent ?? HTTP_DEFAULTS.userAgent;
  const bodyDeadlineMs = options.bodyDeadlineMs ?? HTTP_DEFAULTS.bodyDeadlineMs;
  const defaultMaxBodyBytes = options.maxBodyBytes ?? HTTP_DEFAULTS.maxBodyBytes;

  return {
    async send(request) {
      const started = performance.now();
      const fresh = request.connection === 'fresh';
      const headers: Record<string, string> = { accept: 'application/json', 'user-agent': userAgent, ...request.headers,
        ...(fresh ? { connection: 'close' } : {}) };
      let bodyText: string | undefined;
      if (request.body !== undefined) {
        bodyText = JSON.stringify(request.body);
        headers['content-type'] ??= 'application/json';
        headers['content-length'] = String(Buffer.byteLength(bodyText));
      }
      // Ours to abort: a body past its cap or its deadline ends the request, and with it the socket. The caller's signal
      // is passed on by a listener removed after the call (AbortSignal.any would tie every request to a long-lived one).
      const guard = new AbortController();
      const passOn = (): void => guard.abort(request.signal?.reason);
      if (request.signal?.aborted === true) passOn();
      request.signal?.addEventListener('abort', passOn, { once: true });
      const url = stripQuery(request.url);
      let tlsAlertOf: (error: unknown) => string | undefined = () => undefined;
      try {
        const target = new URL(request.url);
        const agent = (fresh ? agents.fresh : agents.pooled)[target.protocol === 'https:' ? 'https:' : 'http:'];
        const exchange = startExchange({ method: request.method, url: target, headers, body: bodyText, agent,
          signal: guard.signal, limits });
        tlsAlertOf = exchange.tlsAlertOf;
        const response = await exchange.response;
        const text = await readBoundedBody(exchange.body(response), response.headers['content-length'],
          { maxBytes: request.maxBodyBytes ?? defaultMaxBodyBytes, deadlineMs: bodyDeadlineMs },
          { service: request.service ?? target.host, method: request.method, url },
          (reason) => guard.abort(reason));
        const responseHeaders = headerRecord(response.headers);
        const result: HttpResponse = {
          status: response.statusCode ?? 0,
          headers: responseHeaders,
          body: parseBody(text, responseHeaders['content-type']),
          requestId: responseHeaders['x-openstack-request-id'] ?? responseHeaders['x-compute-request-id'],
        };
        logger.debug({ method: request.method, url: stripQuery(request.url), status: result.status,
          requestId: result.requestId, ms: Math.round(performance.now() - started) }, 'http');
        return result;
      } catch (error) {
        if (error instanceof FerryError) throw error;
        if (guard.signal.aborted && guard.signal.reason instanceof FerryError) throw guard.signal.reason;
        throw networkError(error, { method: request.method, url, signal: request.signal,
          tlsAlert: tlsAlertOf(error), clientCertificate: options.certFile !== undefined });
      } finally {
        request.signal?.removeEventListener('abort', passOn);
      }
    },
    close: async () => {
      for (const pool of [agents.pooled, agents.fresh]) {
        pool['http:'].destroy();
        pool['https:'].destroy();
      }
      await Promise.resolve();
    },
  };
}

/** node:http's headers as fetch showed them: lower-case names, a repeated header's values joined with ', '. */
function headerRecord(headers: IncomingHttpHeaders): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) record[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return record;
}

function parseBody(text: string, contentType: string | undefined): unknown {
  if (text === '') return undefined;
  const looksJson = contentType?.includes('json') === true || /^\s*[[{]/.test(text);
  if (!looksJson) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A URL without its query string: what errors and logs may show. */
export function stripQuery(url: string): string {
  const index = url.indexOf('?');
  return index === -1 ? url : url.slice(0, index);
}
