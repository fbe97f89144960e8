import type { FerryErrorCode } from '../errors/error-table.js';

const BY_STATUS: Readonly<Record<number, readonly FerryErrorCode[]>> = {
  400: ['FERRY_AGENT_BAD_REQUEST', 'FERRY_INVALID_OPTION', 'FERRY_INVALID_IMAGE_REF'],
  403: ['FERRY_STORE_NOT_ALLOWED'],
  404: ['FERRY_IMAGE_NOT_FOUND', 'FERRY_STORE_NOT_FOUND'],
  422: ['FERRY_IMAGE_AMBIGUOUS', 'FERRY_IMAGE_NOT_ACTIVE', 'FERRY_NOT_CLONABLE', 'FERRY_LOCATIONS_HIDDEN', 'FERRY_NOT_LOCAL',
    'FERRY_COPY_FAILED', 'FERRY_COPY_STUCK', 'FERRY_COPY_TARGET_EXISTS', 'FERRY_INVALID_MAPPING'],
  429: ['FERRY_AGENT_BUSY'],
  502: ['FERRY_AUTH_FAILED', 'FERRY_FORBIDDEN', 'FERRY_ENDPOINT_NOT_FOUND', 'FERRY_UNREACHABLE', 'FERRY_HTTP', 'FERRY_BAD_RESPONSE',
    'FERRY_TLS', 'FERRY_CEPH', 'FERRY_COPY_UNCONFIRMED'],
  503: ['FERRY_AGENT_SHUTTING_DOWN', 'FERRY_AGENT_UNAVAILABLE', 'FERRY_HAND_OUT_TIMEOUT'],
  504: ['FERRY_COPY_TIMEOUT', 'FERRY_TIMEOUT_CONNECT', 'FERRY_TIMEOUT_RESPONSE', 'FERRY_TIMEOUT_BODY'],
};

const STATUS_OF = new Map<FerryErrorCode, number>(Object.entries(BY_STATUS).flatMap(([status, codes]) =>
  codes.map((code) => [code, Number(status)] as const)));

/**
 * The HTTP status the agent answers a FerryError with. The body's `code` is what callers match on; the status only
 * sorts faults: 4xx the request's or the image's, 5xx the agent's or a service's behind it. Anything else: 500.
 */
export function httpStatusFor(code: FerryErrorCode): number {
  return STATUS_OF.get(code) ?? 500;
}
