import { FerryError } from '../errors/ferry-error.js';

interface RequestContext {
  readonly method: string;
  readonly url: string;
  readonly signal?: AbortSignal | undefined;
}

/** undici error codes for the three timeout phases, and the socket errors that mean "nobody answered". */
const TIMEOUT_CODES = {
  UND_ERR_CONNECT_TIMEOUT: 'FERRY_TIMEOUT_CONNECT',
  UND_ERR_HEADERS_TIMEOUT: 'FERRY_TIMEOUT_RESPONSE',
  UND_ERR_BODY_TIMEOUT: 'FERRY_TIMEOUT_BODY',
} as const;

/** Errors where the request surely never reached the server: safe to retry even a non-idempotent POST. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * Turn whatever fetch threw into a coded FerryError. `details.retryable` says an idempotent request may be retried;
 * `details.notSent` says the request never left, so even an import POST may be retried.
 */
export function networkError(error: unknown, context: RequestContext): FerryError {
  const base = { method: context.method, url: context.url };
  if (context.signal?.aborted === true || (error as { name?: string }).name === 'AbortError') {
    return new FerryError('FERRY_ABORTED', `${context.method} ${context.url} was aborted`, 'Nothing to do: the caller cancelled it.',
      base, { cause: error });
  }
  const code = causeCode(error);
  const host = safeHost(context.url);
  if (code !== undefined && code in TIMEOUT_CODES) {
    const ferryCode = TIMEOUT_CODES[code as keyof typeof TIMEOUT_CODES];
    const what = {
      FERRY_TIMEOUT_CONNECT: `could not connect to ${host} in time`,
      FERRY_TIMEOUT_RESPONSE: `${host} accepted ${context.method} ${context.url} but sent no answer in time`,
      FERRY_TIMEOUT_BODY: `${host} stalled in the middle of its answer to ${context.method} ${context.url}`,
    }[ferryCode];
    const hint = {
      FERRY_TIMEOUT_CONNECT: 'Check that the service is running and reachable from here (firewall, address, port).',
      FERRY_TIMEOUT_RESPONSE: 'The service is overloaded or blocked (e.g. a single-process glance-api staging a large image). Retry, or raise the request timeout.',
      FERRY_TIMEOUT_BODY: 'The connection or the service stalled mid-transfer. Retry; if it repeats, check the service logs.',
    }[ferryCode];
    return new FerryError(ferryCode, what, hint, { ...base, cause: code, retryable: true, notSent: NOT_SENT_CODES.has(code) },
      { cause: error });
  }
  const detail = causeMessage(error);
  return new FerryError('FERRY_UNREACHABLE', `cannot reach ${host} (${context.method} ${context.url}): ${detail}`,
    'Check that the service is running and that the endpoint (catalog entry or --*-endpoint) points to it.',
    { ...base, cause: code ?? detail, retryable: true, notSent: code !== undefined && NOT_SENT_CODES.has(code) }, { cause: error });
}

function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function causeMessage(error: unknown): string {
  const cause = (error as { cause?: { message?: unknown } }).cause;
  if (cause && typeof cause.message === 'string' && cause.message !== '') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
