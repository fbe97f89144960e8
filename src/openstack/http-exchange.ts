import http, { type Agent as HttpAgent, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { CLOSED_AFTER_HANDSHAKE } from './tls-files.js';

/** The three waits of one request, each with its own limit (ms). */
export interface PhaseLimits {
  /** From asking for a new connection to its TCP (and TLS) handshake done. Not counted on a pooled connection. */
  readonly connectMs: number;
  /** From the connection ready to the response headers. */
  readonly responseMs: number;
  /** The longest silence while the body streams in. */
  readonly bodyIdleMs: number;
}

/** The error codes a request is destroyed with when a phase outlasts its limit (network-error.ts names them). */
export const PHASE_TIMEOUT = {
  connect: 'FERRY_HTTP_CONNECT_TIMEOUT',
  response: 'FERRY_HTTP_RESPONSE_TIMEOUT',
  bodyIdle: 'FERRY_HTTP_BODY_TIMEOUT',
} as const;

export interface ExchangeRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: OutgoingHttpHeaders;
  readonly body: string | undefined;
  /** The pool for the URL's protocol (node:http's or node:https's Agent, with the TLS options). */
  readonly agent: HttpAgent;
  readonly signal: AbortSignal;
  readonly limits: PhaseLimits;
}

export interface Exchange {
  /** The status and headers, once they are in. */
  readonly response: Promise<IncomingMessage>;
  /** The response's body, chunk by chunk, under the idle limit. */
  body(response: IncomingMessage): AsyncIterable<Uint8Array>;
  /**
   * For an error of this exchange: the TLS alert (`ERR_SSL_…`) its connection received after the handshake, or
   * CLOSED_AFTER_HANDSHAKE (closed before a byte of answer, on a connection this request opened), or undefined.
   */
  tlsAlertOf(this: void, error: unknown): string | undefined;
}

/**
 * One request over node:http(s), with a limit per phase: connect, response headers, body silence. A phase over its
 * limit destroys the request with an error coded PHASE_TIMEOUT's, so the connection is closed, never reused.
 */
export function startExchange(request: ExchangeRequest): Exchange {
  const secure = request.url.protocol === 'https:';
  // Looked up at each call, not bound at import: whoever intercepts node:http (nock in unit tests) is seen, and its end.
  const req = (secure ? https : http).request(request.url, { method: request.method, headers: request.headers, agent: request.agent, signal: request.signal });
  let timer: NodeJS.Timeout | undefined;
  /** The phase error a timer destroyed the request with: what the caller sees, whatever the socket said after it. */
  let failure: Error | undefined;
  const arm = (ms: number, code: string, message: string, stream: { destroy(error: Error): void } = req): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      failure = Object.assign(new Error(message), { code });
      stream.destroy(failure);
      req.destroy(failure);
    }, ms);
  };
  const { limits } = request;
  const armResponse = (): void => arm(limits.responseMs, PHASE_TIMEOUT.response, `no response headers within ${limits.responseMs} ms`);

  let responded = false;
  let opened = false;
  let handshakeDone = false;
  req.on('socket', (assigned: Socket) => {
    if (!assigned.connecting) {
      handshakeDone = true;
      armResponse();
      return;
    }
    opened = true;
    arm(limits.connectMs, PHASE_TIMEOUT.connect, `not connected within ${limits.connectMs} ms`);
    assigned.once(secure ? 'secureConnect' : 'connect', () => {
      handshakeDone = true;
      armResponse();
    });
  });

  const response = new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', (res: IncomingMessage) => {
      responded = true;
      arm(limits.bodyIdleMs, PHASE_TIMEOUT.bodyIdle, `body silent for ${limits.bodyIdleMs} ms`, res);
      resolve(res);
    });
    // `on`, not `once`: a request destroyed mid-write may report a second error (ECANCELED) after its first.
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(failure ?? error);
    });
  });
  req.end(request.body);

  return {
    response,
    async *body(res) {
      try {
        for await (const chunk of res as AsyncIterable<Uint8Array>) {
          request.signal.throwIfAborted();
          timer?.refresh();
          yield chunk;
        }
        // An aborted request's body may just end (nock's socket does): it is still aborted, not a complete answer.
        request.signal.throwIfAborted();
      } catch (error) {
        throw failure ?? error;
      } finally {
        clearTimeout(timer);
      }
    },
    tlsAlertOf: (error) => {
      if (!secure || !handshakeDone || error === failure) return undefined;
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && code.startsWith('ERR_SSL_')) return code;
      return code === 'ECONNRESET' && opened && !responded ? CLOSED_AFTER_HANDSHAKE : undefined;
    },
  };
}
