import { FerryError } from '../errors/ferry-error.js';
import { silentLogger, type Logger } from '../logging/logger.js';
import { httpErrorDetails, httpStatusError } from './http-status-error.js';
import { stripQuery, type HttpMethod, type HttpResponse, type HttpTransport } from './http-transport.js';
import type { Session } from './keystone-session.js';
import { sendWithRetry, type RetryPolicy } from './send-with-retry.js';

export interface ServiceRequest {
  readonly method: HttpMethod;
  /** Path below the service endpoint, starting with '/'. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** Statuses the caller handles itself; any other becomes a coded error. Default: any 2xx. */
  readonly accept?: readonly number[];
  /** Default: true for GET, HEAD, PUT and DELETE. */
  readonly idempotent?: boolean;
  readonly signal?: AbortSignal | undefined;
  /** See HttpRequest.connection. Default: pooled. */
  readonly connection?: 'pooled' | 'fresh';
}

export interface ServiceResponse extends HttpResponse {
  /** `METHOD url-without-query`, for messages about this answer. */
  readonly endpoint: string;
}

/** Authenticated requests to one OpenStack service. One request per call: no loops, no decisions beyond auth. */
export interface ServiceClient {
  readonly serviceType: string;
  request(request: ServiceRequest): Promise<ServiceResponse>;
}

export interface ServiceClientOptions {
  readonly serviceType: string;
  /** Name used in messages: 'Glance', 'Placement'. */
  readonly serviceName: string;
  readonly session: Session;
  readonly transport: HttpTransport;
  readonly retry?: RetryPolicy;
  readonly defaultHeaders?: Readonly<Record<string, string>>;
  /** Catalog URLs sometimes carry a version suffix (`…/v2`); the client's paths include it already. */
  readonly normalizeEndpoint?: (url: string) => string;
  /** The largest answer read from this service (SERVICE_BODY_LIMITS). Default: the transport's own. */
  readonly maxBodyBytes?: number;
  readonly logger?: Logger;
  /** Every request acts for a user (docs/security.md, "Acting for the booting user"): see ActingFor. */
  readonly actingFor?: ActingFor;
}

/**
 * OpenStack's way for a service to act for a user: the user's token as `X-Auth-Token`, the session's own (ferry's) as
 * `X-Service-Token`. The service judges what the user may see; its policy grants what ferry adds through the service
 * token's roles (`service_roles:ferry`).
 */
export interface ActingFor {
  /** The user's token for the next request: read per request, since the waiter it comes from may change (acting-token.ts). */
  userToken(): string;
  /**
   * A GET every valid token of ferry's may make (`/v2/info/stores` for Glance): sent with ferry's own token alone after
   * a 401 the re-authentication did not cure, to tell a refused user token from a refused credential of ferry's.
   */
  readonly ownTokenCheckPath: string;
  /**
   * Glance refused the user token `userToken()` gave while ferry's own is accepted: move to another user's (another
   * caller waiting on the same shared copy). True when there is one to try; absent or false, the refusal is the answer.
   */
  nextUserToken?(): boolean;
}

/** Acting for users: at most this many user tokens are tried for one request (each waiting caller's once). */
const MAX_USER_TOKENS_PER_REQUEST = 16;

export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  const logger = options.logger ?? silentLogger;
  const { session, transport } = options;

  async function sendOnce(request: ServiceRequest, as: 'request' | 'own' = 'request'): Promise<ServiceResponse> {
    const endpoint = await session.endpointFor(options.serviceType, request.signal);
    const base = options.normalizeEndpoint ? options.normalizeEndpoint(endpoint) : endpoint;
    const url = `${base}${request.path}${queryString(request.query)}`;
    const token = await session.token(request.signal);
    const auth: Record<string, string> = options.actingFor === undefined || as === 'own' ? { 'x-auth-token': token }
      : { 'x-auth-token': options.actingFor.userToken(), 'x-service-token': token };
    const idempotent = request.idempotent ?? ['GET', 'HEAD', 'PUT', 'DELETE'].includes(request.method);
    const response = await sendWithRetry(transport, {
      method: request.method,
      url,
      headers: { ...options.defaultHeaders, ...request.headers, ...auth },
      ...(request.body !== undefined ? { body: request.body } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
      ...(request.connection ? { connection: request.connection } : {}),
      service: options.serviceName,
      ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
    }, {
      idempotent,
      ...(options.retry ? { policy: options.retry } : {}),
      onRetry: ({ attempt, reason }) => logger.info({ service: options.serviceName, method: request.method,
        url: stripQuery(url), attempt, reason }, 'retrying'),
    });
    return { ...response, endpoint: `${request.method} ${stripQuery(url)}` };
  }

  /**
   * A 401 acting for a user: ferry's own token alone, on a path any valid token may read, tells whose token was refused.
   * Both are FERRY_AUTH_FAILED (nova's patch takes its own path on it, where a bad user token fails as it would without
   * ferry); `details.refused` (`user` or `ferry`) and the message say whose it was. Returns undefined when ferry's own
   * token is the one refused, so the caller may re-authenticate once.
   */
  async function userTokenRefused(refused: ServiceResponse, request: ServiceRequest, checkPath: string): Promise<FerryError | undefined> {
    const check = await sendOnce({ method: 'GET', path: checkPath, signal: request.signal }, 'own');
    if (check.status === 401) return undefined;
    const url = refused.endpoint.slice(request.method.length + 1);
    const details = httpErrorDetails(refused, { method: request.method, url, service: options.serviceName });
    return new FerryError('FERRY_AUTH_FAILED',
      `${options.serviceName} refused the token of the user ferry acts for (401 to ${request.method} ${url}); ferry's own token is accepted`,
      'The booting request\'s token is invalid or revoked (or expired past Keystone\'s allow_expired_window): the user must '
      + 'authenticate again. Nothing is wrong with ferry\'s own credential.', { ...details, refused: 'user' });
  }

  function ferryTokenRefused(refused: ServiceResponse, request: ServiceRequest): FerryError {
    const url = refused.endpoint.slice(request.method.length + 1);
    const details = httpErrorDetails(refused, { method: request.method, url, service: options.serviceName });
    const own = httpStatusError(refused, { method: request.method, url, service: options.serviceName });
    return new FerryError(own.code, `${own.message} (ferry's own token alone is refused too)`, own.hint, { ...details, refused: 'ferry' });
  }

  /**
   * Acting for a user, a 401 is first asked whose token it was, before ferry's cached token is dropped: a bad user token
   * must not cost a Keystone login (whoever may write the agent's socket could otherwise force one per request). A
   * refused user token moves to another waiting user's when there is one (nextUserToken); only when ferry's own token
   * is refused too is it renewed, once, and the request repeated. Bounded: a user token at most
   * MAX_USER_TOKENS_PER_REQUEST times, ferry's renewal once.
   */
  async function requestActingFor(request: ServiceRequest, actingFor: ActingFor): Promise<ServiceResponse> {
    let response = await sendOnce(request);
    let renewed = false;
    for (let userTokens = 1; ; userTokens += 1) {
      if (response.status !== 401 || (request.accept ?? []).includes(401)) return response;
      const userRefused = await userTokenRefused(response, request, actingFor.ownTokenCheckPath);
      const again = userRefused
        ? userTokens < MAX_USER_TOKENS_PER_REQUEST && actingFor.nextUserToken?.() === true
        : !renewed && session.invalidate();
      if (!again) throw userRefused ?? ferryTokenRefused(response, request);
      logger.info({ service: options.serviceName }, userRefused ? 'the user\'s token was refused, acting for the next waiting user'
        : 'ferry\'s own token refused, re-authenticating once');
      renewed ||= userRefused === undefined;
      response = await sendOnce(request);
    }
  }

  async function requestOwn(request: ServiceRequest): Promise<ServiceResponse> {
    const response = await sendOnce(request);
    // An expired or revoked token: re-authenticate once and repeat. A second 401 is a real refusal.
    if (response.status === 401 && !(request.accept ?? []).includes(401) && session.invalidate()) {
      logger.info({ service: options.serviceName }, 'token refused, re-authenticating once');
      return sendOnce(request);
    }
    return response;
  }

  return {
    serviceType: options.serviceType,
    async request(request) {
      const response = options.actingFor === undefined ? await requestOwn(request) : await requestActingFor(request, options.actingFor);
      const accepted = request.accept ? request.accept.includes(response.status) : response.status >= 200 && response.status < 300;
      if (!accepted) {
        const [method, url] = [request.method, response.endpoint.slice(request.method.length + 1)];
        throw httpStatusError(response, { method, url, service: options.serviceName });
      }
      return response;
    },
  };
}

function queryString(query: ServiceRequest['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.append(key, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}
