import { FerryError } from '../errors/ferry-error.js';
import type { HttpResponse } from './http-transport.js';
import { serverMessage } from './server-message.js';

export interface StatusErrorContext {
  readonly method: string;
  /** The URL without its query. */
  readonly url: string;
  /** 'Glance', 'Placement', 'Keystone': named in messages. */
  readonly service: string;
}

/** Statuses worth retrying for an idempotent request: the gateway or the service is briefly unavailable. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/**
 * The details every HTTP error records (style.md): method, URL without query, status, request id, the server's own
 * message and whose fault it looks like. Never headers or tokens.
 */
export function httpErrorDetails(response: HttpResponse, context: StatusErrorContext): Record<string, unknown> {
  return {
    method: context.method,
    url: context.url,
    status: response.status,
    requestId: response.requestId,
    serverMessage: serverMessage(response.body),
    fault: response.status >= 500 ? 'service' : 'client',
    retryable: RETRYABLE_STATUSES.has(response.status),
  };
}

/** The generic mapping for a status the caller did not handle itself. */
export function httpStatusError(response: HttpResponse, context: StatusErrorContext): FerryError {
  const details = httpErrorDetails(response, context);
  const message = serverMessage(response.body);
  const said = message === undefined ? '' : `: ${message}`;
  const where = `${context.service} answered ${response.status} to ${context.method} ${context.url}${said}`;
  if (response.status === 401) {
    return new FerryError('FERRY_AUTH_FAILED', where,
      'The token was refused. Check the credentials; if Keystone itself is down, Glance answers 401 too.', details);
  }
  if (response.status === 403) {
    return new FerryError('FERRY_FORBIDDEN', where,
      `Your role does not allow this call under ${context.service}'s policy; use an account with the needed role, or ask the operator to relax the policy named above.`,
      details);
  }
  const hint = response.status >= 500
    ? `${context.service} failed internally; check its log for request id ${response.requestId ?? '(none)'} and retry.`
    : 'The request was refused as sent; the message above says why.';
  return new FerryError('FERRY_HTTP', where, hint, details);
}
