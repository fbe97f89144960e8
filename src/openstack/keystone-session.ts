import { z } from 'zod';
import type { Clock } from '../clock/clock.js';
import { systemClock } from '../clock/clock.js';
import { FerryError, isFerryError } from '../errors/ferry-error.js';
import { silentLogger, type Logger } from '../logging/logger.js';
import type { AuthConfig } from './auth-config.js';
import { httpStatusError } from './http-status-error.js';
import type { HttpTransport } from './http-transport.js';
import { describeAuth, keystoneTokenRequest, keystoneV3Url } from './keystone-token-request.js';
import { sendWithRetry, type RetryPolicy } from './send-with-retry.js';
import { SERVICE_BODY_LIMITS } from './service-body-limits.js';
import { catalogSchema, selectEndpoint, type EndpointSelection, type ServiceCatalog } from './service-catalog.js';
import { validateResponse } from './validate-response.js';
import { abortable } from '../concurrency/abortable.js';

/** Where ferry's calls go and with which token. One per cloud; shared by every service client. */
export interface Session {
  token(signal?: AbortSignal): Promise<string>;
  endpointFor(serviceType: string, signal?: AbortSignal): Promise<string>;
  /** Forget the token after a 401. Returns false when no fresh one can be had (a fixed token). */
  invalidate(): boolean;
  /**
   * The project the token is scoped to (Keystone's token.project.id), or undefined for a plain token (ferry never sees
   * its body). Glance decides what this project's listings show by it (its own community images, for one).
   */
  projectId(signal?: AbortSignal): Promise<string | undefined>;
  /** How many times a token was requested from Keystone (benchmarks and tests count these). */
  readonly tokenRequests: number;
  readonly description: string;
}

export interface SessionOptions {
  readonly auth: AuthConfig;
  /** Per service type: an explicit URL, or which catalog entry to pick. */
  readonly endpoints: Readonly<Record<string, EndpointSelection & { readonly url?: string | undefined }>>;
  readonly transport: HttpTransport;
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly retry?: RetryPolicy;
}

const tokenBodySchema = z.object({
  token: z.object({
    expires_at: z.string(),
    catalog: catalogSchema.optional(),
    project: z.object({ id: z.string() }).optional(),
  }),
});

/** keystoneauth treats a token with less than this left as expired (MIN_TOKEN_LIFE_SECONDS). */
const REFRESH_MARGIN_MS = 120_000;

interface CachedToken {
  readonly value: string;
  /** Wall-clock epoch ms after which it must not be used. */
  readonly refreshAfter: number;
  readonly catalog: ServiceCatalog | undefined;
  readonly projectId: string | undefined;
}

export function createSession(options: SessionOptions): Session {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const { auth, transport } = options;
  let cached: CachedToken | undefined;
  let pending: Promise<CachedToken> | undefined;
  let tokenRequests = 0;

  async function authenticate(signal?: AbortSignal): Promise<CachedToken> {
    if (auth.method === 'token') {
      return { value: auth.token, refreshAfter: Number.POSITIVE_INFINITY, catalog: undefined, projectId: undefined };
    }
    const url = `${keystoneV3Url(auth.authUrl)}/auth/tokens`;
    tokenRequests += 1;
    const response = await sendWithRetry(transport,
      { method: 'POST', url, body: keystoneTokenRequest(auth), service: 'Keystone', maxBodyBytes: SERVICE_BODY_LIMITS.keystone,
        ...(signal ? { signal } : {}) },
      // a token request changes nothing: safe to retry like a GET
      { idempotent: true, ...(options.retry ? { policy: options.retry } : {}) },
    ).catch((error: unknown) => {
      if (isFerryError(error, 'FERRY_UNREACHABLE') || isFerryError(error, 'FERRY_TIMEOUT_CONNECT')) {
        throw new FerryError(error.code, `Keystone is unreachable at ${keystoneV3Url(auth.authUrl)}: ${error.message}`,
          'Check the auth URL (--os-auth-url, OS_AUTH_URL, auth_url in clouds.yaml) and that Keystone is running.',
          error.details, { cause: error });
      }
      throw error;
    });
    if (response.status === 401) {
      throw new FerryError('FERRY_AUTH_FAILED', `Keystone refused the credentials of ${describeAuth(auth)}`,
        'Check the user name, password or application-credential secret, the domains and the project name.',
        { url, status: 401, requestId: response.requestId });
    }
    if (response.status !== 201 && response.status !== 200) {
      throw httpStatusError(response, { method: 'POST', url, service: 'Keystone' });
    }
    const token = response.headers['x-subject-token'];
    if (!token) {
      throw new FerryError('FERRY_BAD_RESPONSE', `Keystone answered ${response.status} to POST ${url} without an X-Subject-Token header`,
        'Check that the auth URL points at Keystone v3.', { url, field: 'X-Subject-Token' });
    }
    const body = validateResponse(tokenBodySchema, response.body, `POST ${url}`);
    const expiresAt = Date.parse(body.token.expires_at);
    const issuedAt = clock.wallNow();
    const lifetime = Number.isFinite(expiresAt) ? expiresAt - issuedAt : 3_600_000;
    // Refresh early, but never so early that a short-lived token is refreshed on every call.
    const margin = Math.min(REFRESH_MARGIN_MS, Math.max(0, lifetime / 2));
    logger.debug({ auth: describeAuth(auth), expiresAt: body.token.expires_at }, 'keystone token issued');
    return { value: token, refreshAfter: issuedAt + lifetime - margin, catalog: body.token.catalog, projectId: body.token.project?.id };
  }

  async function current(signal?: AbortSignal): Promise<CachedToken> {
    if (cached && clock.wallNow() < cached.refreshAfter) return cached;
    // Single flight: concurrent callers share one token request. It carries no caller's signal (one caller's abort
    // must not fail the others); the transport's timeouts bound it, and each caller stops waiting on its own abort.
    pending ??= authenticate().then(
      (fresh) => { cached = fresh; pending = undefined; return fresh; },
      (error: unknown) => { pending = undefined; throw error; },
    );
    return signal ? abortable(pending, signal) : pending;
  }

  return {
    token: async (signal) => (await current(signal)).value,
    async endpointFor(serviceType, signal) {
      const selection = options.endpoints[serviceType] ?? { interfaces: ['public'] };
      if (selection.url) return selection.url.replace(/\/+$/, '');
      if (auth.method === 'token') {
        throw new FerryError('FERRY_ENDPOINT_NOT_FOUND',
          `no ${serviceType} endpoint: a plain token carries no service catalog`,
          serviceType === 'image'
            ? 'Give the Glance endpoint with --glance-endpoint URL (or FERRY_GLANCE_ENDPOINT).'
            : `Give the ${serviceType} endpoint with --${serviceType}-endpoint URL (or FERRY_${serviceType.toUpperCase()}_ENDPOINT).`,
          { serviceType });
      }
      const { catalog } = await current(signal);
      return selectEndpoint(catalog ?? [], serviceType, selection);
    },
    projectId: async (signal) => (await current(signal)).projectId,
    invalidate() {
      if (auth.method === 'token') return false;
      cached = undefined;
      return true;
    },
    get tokenRequests() {
      return tokenRequests;
    },
    description: describeAuth(auth),
  };
}
