import { FerryError } from '../errors/ferry-error.js';
import { PHASE_TIMEOUT } from './http-exchange.js';
import { CLOSED_AFTER_HANDSHAKE } from './tls-files.js';

interface RequestContext {
  readonly method: string;
  readonly url: string;
  readonly signal?: AbortSignal | undefined;
  /** The TLS alert the request's connection received after its handshake (`ERR_SSL_…`), or CLOSED_AFTER_HANDSHAKE. */
  readonly tlsAlert?: string | undefined;
  /** Whether a client certificate was configured. */
  readonly clientCertificate?: boolean;
}

/** The transport's error codes for the three timeout phases (http-exchange), and the ferry code each one becomes. */
const TIMEOUT_CODES = {
  [PHASE_TIMEOUT.connect]: 'FERRY_TIMEOUT_CONNECT',
  [PHASE_TIMEOUT.response]: 'FERRY_TIMEOUT_RESPONSE',
  [PHASE_TIMEOUT.bodyIdle]: 'FERRY_TIMEOUT_BODY',
} as const;

/** Errors where the request surely never reached the server: safe to retry even a non-idempotent POST. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', PHASE_TIMEOUT.connect]);

/**
 * Turn whatever the request failed with into a coded FerryError. `details.retryable` says an idempotent request may be retried;
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
  const tls = tlsFailure(context.tlsAlert ?? code, context.clientCertificate === true);
  if (tls !== undefined) {
    const why = context.tlsAlert === undefined ? causeMessage(error)
      : context.tlsAlert === CLOSED_AFTER_HANDSHAKE ? 'it closed the connection right after the TLS handshake, without an answer'
        : `the server sent the TLS alert ${context.tlsAlert}`;
    return new FerryError('FERRY_TLS', `TLS with ${host} failed (${context.method} ${context.url}): ${tls.what}: ${why}`, tls.hint,
      // The server's certificate is judged before the request is written; a client-certificate alert may come after.
      { ...base, cause: context.tlsAlert ?? code, tls: tls.kind, retryable: false, notSent: context.tlsAlert === undefined },
      { cause: error });
  }
  const detail = causeMessage(error);
  // Closed right after the handshake, no client certificate given: perhaps a service that wants one and says nothing.
  const mutualHint = context.tlsAlert === CLOSED_AFTER_HANDSHAKE
    ? ` If the service requires a client certificate, give it: ${CERT_WAYS}.` : '';
  return new FerryError('FERRY_UNREACHABLE', `cannot reach ${host} (${context.method} ${context.url}): ${detail}`,
    `Check that the service is running and that the endpoint (catalog entry or --*-endpoint) points to it.${mutualHint}`,
    { ...base, cause: code ?? detail, retryable: true, notSent: code !== undefined && NOT_SENT_CODES.has(code) }, { cause: error });
}

/** OpenSSL's verdicts on the server's certificate (Node error codes). */
const SERVER_CERTIFICATE_CODES = new Set(['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_UNTRUSTED', 'CERT_REJECTED', 'CERT_SIGNATURE_FAILURE',
  'INVALID_CA', 'CERT_REVOKED', 'CERT_CHAIN_TOO_LONG', 'PATH_LENGTH_EXCEEDED', 'INVALID_PURPOSE']);
const CERTIFICATE_DATE_CODES = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);
const NAME_MISMATCH_CODES = new Set(['ERR_TLS_CERT_ALTNAME_INVALID', 'HOSTNAME_MISMATCH']);
/** TLS alerts a server sends when it wants a client certificate, or refuses the one it got. */
const CLIENT_CERTIFICATE_ALERTS = new Set(['ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE',
  'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA', 'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE', 'ERR_SSL_SSLV3_ALERT_CERTIFICATE_UNKNOWN',
  'ERR_SSL_SSLV3_ALERT_CERTIFICATE_EXPIRED', 'ERR_SSL_SSLV3_ALERT_CERTIFICATE_REVOKED', 'ERR_SSL_TLSV1_ALERT_ACCESS_DENIED']);

const CA_WAYS = '--os-cacert FILE (or OS_CACERT, `cacert` in clouds.yaml, nova.conf [glance] cafile)';
const CERT_WAYS = '--os-cert FILE and --os-key FILE (or OS_CERT / OS_KEY, `cert` / `key` in clouds.yaml, nova.conf [glance] certfile / keyfile)';

interface TlsFailure {
  readonly kind: 'server-certificate' | 'certificate-dates' | 'certificate-name' | 'client-certificate' | 'handshake';
  readonly what: string;
  readonly hint: string;
}

/** A certificate or handshake failure, told apart from "nobody answered" so the hint names the right option. */
function tlsFailure(code: string | undefined, clientCertificate: boolean): TlsFailure | undefined {
  if (code === undefined) return undefined;
  if (SERVER_CERTIFICATE_CODES.has(code)) {
    return { kind: 'server-certificate', what: 'its certificate is not signed by a CA ferry trusts',
      hint: `Give the CA bundle that signed the service's certificate: ${CA_WAYS}. Only for a test cloud: --insecure.` };
  }
  if (CERTIFICATE_DATE_CODES.has(code)) {
    return { kind: 'certificate-dates', what: 'its certificate is expired or not yet valid',
      hint: `Renew the service's certificate, or check this host's clock. The CA bundle is set with ${CA_WAYS}.` };
  }
  if (NAME_MISMATCH_CODES.has(code)) {
    return { kind: 'certificate-name', what: 'its certificate is not for this host name',
      hint: 'Use the host name the certificate names (catalog entry or --*-endpoint), or reissue the certificate with it.' };
  }
  if (code === CLOSED_AFTER_HANDSHAKE && !clientCertificate) return undefined;
  if (CLIENT_CERTIFICATE_ALERTS.has(code) || code === CLOSED_AFTER_HANDSHAKE) {
    return clientCertificate
      ? { kind: 'client-certificate', what: 'the service refused the client certificate',
        hint: `Give a client certificate the service trusts (signed by its client CA, not expired): ${CERT_WAYS}.` }
      : { kind: 'client-certificate', what: 'the service requires a client certificate, and none was given',
        hint: `Give the client certificate and its key: ${CERT_WAYS}.` };
  }
  if (code.startsWith('ERR_SSL_')) {
    return { kind: 'handshake', what: 'the TLS handshake failed',
      hint: `Check that the endpoint speaks https on this port (not plain http), and its certificate (${CA_WAYS}).` };
  }
  return undefined;
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
