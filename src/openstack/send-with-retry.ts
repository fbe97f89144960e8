import pRetry from 'p-retry';
import { isFerryError } from '../errors/ferry-error.js';
import type { HttpRequest, HttpResponse, HttpTransport } from './http-transport.js';
import { RETRYABLE_STATUSES } from './http-status-error.js';

export interface RetryPolicy {
  /** Retries after the first attempt; nova's `[glance] num_retries` maps here. */
  readonly retries: number;
  readonly minDelayMs: number;
  readonly maxDelayMs: number;
}

export const RETRY_DEFAULTS: RetryPolicy = { retries: 3, minDelayMs: 200, maxDelayMs: 2_000 };

export interface RetryOptions {
  /** GET/PUT/DELETE are; the import POST is not: it is retried only when it surely never reached the server. */
  readonly idempotent: boolean;
  readonly policy?: RetryPolicy;
  readonly onRetry?: (info: { attempt: number; reason: string }) => void;
}

/** A retryable status seen on an attempt: carries the response so the last one can be returned as is. */
class RetryableStatus extends Error {
  constructor(readonly response: HttpResponse) {
    super(`status ${response.status}`);
  }
}

/**
 * Send with p-retry's exponential backoff and jitter. Connection errors and 502/503/504 are retried for idempotent
 * requests; for the others only errors that prove the request was never sent (refused, connect timeout).
 * After the last attempt a retryable status is returned to the caller, which maps it to an error with its message.
 */
export async function sendWithRetry(transport: HttpTransport, request: HttpRequest, options: RetryOptions): Promise<HttpResponse> {
  const policy = options.policy ?? RETRY_DEFAULTS;
  try {
    return await pRetry(
      async () => {
        const response = await transport.send(request);
        if (options.idempotent && RETRYABLE_STATUSES.has(response.status)) throw new RetryableStatus(response);
        return response;
      },
      {
        retries: policy.retries,
        minTimeout: policy.minDelayMs,
        maxTimeout: policy.maxDelayMs,
        factor: 2,
        randomize: true,
        ...(request.signal ? { signal: request.signal } : {}),
        shouldRetry: ({ error }) => isRetryable(error, options.idempotent),
        onFailedAttempt: ({ error, attemptNumber, retriesLeft }) => {
          if (retriesLeft > 0 && isRetryable(error, options.idempotent)) {
            options.onRetry?.({ attempt: attemptNumber, reason: error.message });
          }
        },
      },
    );
  } catch (error) {
    if (error instanceof RetryableStatus) return error.response;
    throw error;
  }
}

function isRetryable(error: unknown, idempotent: boolean): boolean {
  if (error instanceof RetryableStatus) return true;
  if (!isFerryError(error) || error.code === 'FERRY_ABORTED') return false;
  if (error.details.retryable !== true) return false;
  return idempotent || error.details.notSent === true;
}
