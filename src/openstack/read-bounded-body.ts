import { FerryError } from '../errors/ferry-error.js';

/** How much of an answer ferry reads, and for how long. */
export interface BodyBounds {
  /** The largest body read; past it the connection is dropped. */
  readonly maxBytes: number;
  /** From the response headers to the body's last byte: a body trickled in under the idle timeout still ends. */
  readonly deadlineMs: number;
}

/** Which answer is read, for messages: 'Glance', 'GET', the URL without its query. */
export interface BodySource {
  readonly service: string;
  readonly method: string;
  readonly url: string;
}

/**
 * Reads a response's body (its chunks, and the content-length header) as text within `bounds`. A content-length over the cap is refused before a byte is
 * read; a body that grows past the cap (whatever content-length said) or outlasts the deadline is refused as soon as
 * it does. Each refusal goes to `drop` first, which aborts the request, so the socket is closed instead of
 * draining an endless answer, and is then thrown: FERRY_BAD_RESPONSE (too large) or FERRY_TIMEOUT_BODY (too slow).
 */
export async function readBoundedBody(body: AsyncIterable<Uint8Array>, contentLength: string | undefined, bounds: BodyBounds,
  source: BodySource, drop: (reason: FerryError) => void): Promise<string> {
  const declared = declaredLength(contentLength);
  if (declared !== undefined && declared > bounds.maxBytes) {
    const error = tooLarge(source, bounds.maxBytes, { declared });
    drop(error);
    throw error;
  }
  const chunks: Uint8Array[] = [];
  let received = 0;
  const started = performance.now();
  const timer = setTimeout(() => drop(tooSlow(source, bounds.deadlineMs, received, performance.now() - started)), bounds.deadlineMs);
  try {
    for await (const chunk of body) {
      received += chunk.byteLength;
      if (received > bounds.maxBytes) {
        const error = tooLarge(source, bounds.maxBytes, { received, declared });
        drop(error);
        throw error;
      }
      chunks.push(chunk);
    }
  } finally {
    clearTimeout(timer);
  }
  // As fetch's Response.text() decodes: UTF-8, a leading BOM dropped, bad bytes as U+FFFD.
  return new TextDecoder().decode(Buffer.concat(chunks));
}

function declaredLength(header: string | undefined): number | undefined {
  if (header === undefined || !/^\d+$/.test(header.trim())) return undefined;
  return Number(header.trim());
}

/** `32 MiB`, `512 KiB`, `900 bytes`: caps are round numbers of these. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1 << 20) return `${trim(bytes / (1 << 20))} MiB`;
  if (bytes >= 1 << 10) return `${trim(bytes / (1 << 10))} KiB`;
  return `${bytes} bytes`;
}

function trim(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

function tooLarge(source: BodySource, maxBytes: number, seen: { declared?: number | undefined; received?: number }): FerryError {
  const what = seen.received === undefined
    ? `announces ${formatBytes(seen.declared ?? 0)} (content-length)`
    : `went past it after ${formatBytes(seen.received)}${seen.declared === undefined ? '' : ` although its content-length said ${formatBytes(seen.declared)}`}`;
  return new FerryError('FERRY_BAD_RESPONSE',
    `${source.service}'s answer to ${source.method} ${source.url} is larger than the ${formatBytes(maxBytes)} ferry reads from ${source.service}: it ${what}; the connection was closed`,
    `Check what answers at this endpoint (catalog entry or --*-endpoint) and what sits in front of ${source.service} (a proxy or load `
      + 'balancer sending a page or an endless stream). If the service itself sends an answer this large, report it with its size.',
    { service: source.service, method: source.method, url: source.url, maxBytes, declaredBytes: seen.declared,
      receivedBytes: seen.received, retryable: false });
}

function tooSlow(source: BodySource, deadlineMs: number, received: number, elapsedMs: number): FerryError {
  return new FerryError('FERRY_TIMEOUT_BODY',
    `${source.service} sent its answer to ${source.method} ${source.url} too slowly: ${formatBytes(received)} in `
      + `${(elapsedMs / 1000).toFixed(1)} s, and ferry allows ${deadlineMs / 1000} s for a body; the connection was closed`,
    'The connection or the service is far slower than it should be (a body trickling in). Retry; if it repeats, check the '
      + 'link and anything between ferry and the service, or raise --request-timeout.',
    { service: source.service, method: source.method, url: source.url, cause: 'body-deadline', receivedBytes: received,
      deadlineMs, retryable: true, notSent: false });
}
