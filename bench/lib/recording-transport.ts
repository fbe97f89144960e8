import { createHttpTransport, type HttpMethod, type HttpTransport } from '../../src/openstack/http-transport.js';

/** One request as the code under test sent it, with monotonic (performance.now) times. */
export interface RecordedRequest {
  readonly method: HttpMethod;
  readonly path: string;
  readonly sentAt: number;
  doneAt: number | undefined;
  status: number | undefined;
}

export interface RecordingTransport extends HttpTransport {
  readonly sent: readonly RecordedRequest[];
  /** Requests matching method and path pattern, optionally only those sent in [fromMs, toMs]. */
  matching(method: HttpMethod, pathPattern: RegExp, fromMs?: number, toMs?: number): RecordedRequest[];
}

export const IMAGE_GET = /^\/v2\/images\/[0-9a-f-]{36}$/;
export const IMAGE_TASKS_GET = /^\/v2\/images\/[0-9a-f-]{36}\/tasks$/;
export const IMPORT_POST = /^\/v2\/images\/[0-9a-f-]{36}\/import$/;
export const TOKEN_POST = /\/v3\/auth\/tokens$/;

/** ferry's own transport, wrapped to record every request it sends: what the benchmarks count. */
export function createRecordingTransport(): RecordingTransport {
  const inner = createHttpTransport();
  const sent: RecordedRequest[] = [];
  return {
    sent,
    async send(request) {
      const record: RecordedRequest = { method: request.method, path: new URL(request.url).pathname, sentAt: performance.now(),
        doneAt: undefined, status: undefined };
      sent.push(record);
      const response = await inner.send(request);
      record.doneAt = performance.now();
      record.status = response.status;
      return response;
    },
    matching: (method, pattern, fromMs = Number.NEGATIVE_INFINITY, toMs = Number.POSITIVE_INFINITY) =>
      sent.filter((r) => r.method === method && pattern.test(r.path) && r.sentAt >= fromMs && r.sentAt <= toMs),
    close: () => inner.close(),
  };
}
