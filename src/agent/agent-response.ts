import type { ServerResponse } from 'node:http';
import { errorJson } from '../contract/error-document.js';
import { FerryError, isFerryError } from '../errors/ferry-error.js';
import { httpStatusFor } from './http-status.js';

/** How the agent answers: one JSON document, never cached; an error as ferry's error document with its status. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = `${JSON.stringify(body)}\n`;
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  response.end(text);
}

export function sendError(response: ServerResponse, error: FerryError, status = httpStatusFor(error.code)): void {
  sendJson(response, status, errorJson(error));
}

/** Never a raw error to the caller: its message could carry anything. An abort answers with why it was aborted. */
export function asFerryError(error: unknown, signal: AbortSignal): FerryError {
  if (signal.aborted && isFerryError(signal.reason)) return signal.reason;
  if (isFerryError(error)) return error;
  return new FerryError('FERRY_INTERNAL', 'the agent failed unexpectedly (details in its log)',
    'This is a bug in ferry: please report it with the agent log.', {}, { cause: error });
}
