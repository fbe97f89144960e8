import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../clock/clock.js';
import { errorJson } from '../contract/error-document.js';
import { progressDocument } from '../contract/progress-document.js';
import type { CopyProgressEvent } from '../copy/copy-progress.js';
import type { AgentMetrics } from './agent-metrics.js';
import { parseEnsureRequest, parseUserToken } from './agent-request.js';
import { asFerryError, sendJson } from './agent-response.js';
import type { HostService } from '../host/host-service.js';
import type { EnsureWaits } from './ensure-waits.js';
import { readJsonBody } from './read-json-body.js';
import { decideStore, storeRefusal } from './store-scope.js';

export const NDJSON = 'application/x-ndjson';

export interface EnsureRouteOptions {
  readonly service: HostService;
  readonly metrics: AgentMetrics;
  readonly waits: EnsureWaits;
  readonly clock: Clock;
  readonly maxBodyBytes: number;
  /** --allow-store; undefined: the agent's own store only. */
  readonly allowStores: readonly string[] | undefined;
}

/**
 * `POST /v1/ensure`: read and check the request, decide its store, then ensure through the host's service on the
 * (image, store) wait it shares. Everything refused is refused before the service is asked, so before any Glance
 * call. With `Accept: application/x-ndjson` the answer streams progress lines, then the document or the error.
 */
export function createEnsureRoute({ service, metrics, waits, clock, maxBodyBytes, allowStores }: EnsureRouteOptions) {
  return async (request: IncomingMessage, response: ServerResponse, signal: AbortSignal): Promise<void> => {
    const started = clock.now();
    const parsed = parseEnsureRequest(await readJsonBody(request, maxBodyBytes));
    // The booting user's token, when nova sent it: held by this request only, passed down, never logged.
    // headersDistinct: Node joins a repeated header into one 'a, b' string in request.headers.
    const userToken = parseUserToken(request.headersDistinct['x-auth-token']);
    const decision = decideStore(parsed.store, { defaultStore: service.defaultStore(), allowList: allowStores });
    if (decision.kind !== 'serve') throw storeRefusal(decision);
    const { store } = decision;
    const stream = (request.headers.accept ?? '').includes(NDJSON);
    const write = (line: unknown): void => {
      if (!response.writableEnded) response.write(`${JSON.stringify(line)}\n`);
    };
    const listener = stream ? (event: CopyProgressEvent) => write(progressDocument(event)) : undefined;
    // Acting for a user, this request hears the shared copy's progress only once that user's own look at the image
    // passed: a user who may not see it learns nothing of another's copy (not even that one runs).
    const ticket = waits.enter(`${parsed.image}\u0000${store}`, userToken === undefined ? listener : undefined);
    const onVisible = userToken === undefined || listener === undefined ? undefined : () => ticket.listen(listener);
    let outcome = 'ok';
    try {
      if (stream) response.writeHead(200, { 'content-type': NDJSON, 'cache-control': 'no-store' });
      const answer = await service.ensure({ imageRef: parsed.image, store, timeoutMs: parsed.timeout === undefined ? undefined
        : Math.round(parsed.timeout * 1000), failedClone: parsed.retry_after_failed_clone, signal, onProgress: ticket.publish, userToken, onVisible });
      if (ticket.leader) {
        metrics.importsRequested.inc(answer.importRequests);
        if (answer.joined) metrics.importsJoined.inc();
        if (answer.available !== undefined && answer.available.copiedBytes > 0) metrics.copiedBytes.inc({ store }, answer.available.copiedBytes);
      }
      if (stream) {
        write(answer.document);
        response.end();
      } else {
        sendJson(response, 200, answer.document);
      }
      if (answer.available !== undefined) {
        metrics.timeToAvailable.observe({ store, source: answer.available.source }, (clock.now() - started) / 1000);
      }
    } catch (error) {
      const failure = asFerryError(error, signal);
      outcome = failure.code;
      if (!stream) throw failure;
      write(errorJson(failure));
      response.end();
    } finally {
      ticket.leave();
      metrics.ensures.inc({ outcome });
      metrics.ensureSeconds.observe({ outcome }, (clock.now() - started) / 1000);
    }
  };
}
