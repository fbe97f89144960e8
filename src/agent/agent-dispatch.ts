import type { IncomingMessage, ServerResponse } from 'node:http';
import { FerryError } from '../errors/ferry-error.js';
import type { Logger } from '../logging/logger.js';
import type { AgentMetrics } from './agent-metrics.js';
import { asFerryError, sendError } from './agent-response.js';
import { ROUTES_HINT, type Route } from './agent-routes.js';

/** Where the agent stands in its shutdown, as dispatch needs it. */
export interface DispatchState {
  /** Stopped accepting: answers close their connection. */
  readonly draining: boolean;
  /** The grace is over: what still arrives is refused FERRY_AGENT_SHUTTING_DOWN. */
  readonly refusing: boolean;
}

export interface Dispatcher {
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
  /** Requests being answered now. */
  readonly inFlight: number;
  /** Abort every request still being answered (the drain's grace is over). */
  abortAll(reason: FerryError): void;
}

/**
 * Route a request to its handler and answer what it throws; count every answer; track the requests in flight, each
 * with an abort that fires when its caller goes away (its place on a shared wait is released; the copy goes on).
 */
export function createDispatcher({ routes, metrics, logger, state }: { readonly routes: readonly Route[]; readonly metrics: AgentMetrics;
  readonly logger: Logger; readonly state: DispatchState }): Dispatcher {
  const inFlight = new Set<AbortController>();

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const route = routes.find((candidate) => candidate.pattern.test(path));
    const routeName = route?.name ?? 'unknown';
    response.on('finish', () => metrics.responses.inc({ route: routeName, status: String(response.statusCode) }));
    // Draining: a request on a connection accepted before the agent stopped accepting is still answered, then the
    // connection closes. Only after the grace are requests refused.
    if (state.draining) response.shouldKeepAlive = false;
    if (state.refusing) {
      sendError(response, new FerryError('FERRY_AGENT_SHUTTING_DOWN', 'the ferry agent is shutting down',
        'Retry in a moment: systemd restarts it, or run ferry in-process (ferry ensure --no-agent).'));
      request.resume();
      return;
    }
    if (route === undefined) {
      request.resume();
      sendError(response, new FerryError('FERRY_AGENT_BAD_REQUEST', `no route ${request.method ?? ''} ${path.slice(0, 200)}`, ROUTES_HINT), 404);
      return;
    }
    const handler = route.methods[request.method ?? ''];
    if (handler === undefined) {
      request.resume();
      response.setHeader('allow', Object.keys(route.methods).join(', '));
      sendError(response, new FerryError('FERRY_AGENT_BAD_REQUEST', `${request.method ?? ''} is not allowed on ${path}`,
        `Use ${Object.keys(route.methods).join(' or ')}.`), 405);
      return;
    }
    const controller = new AbortController();
    inFlight.add(controller);
    const onClose = (): void => {
      if (!response.writableFinished) controller.abort(new FerryError('FERRY_ABORTED', 'the client disconnected', 'Nothing to do.'));
    };
    response.on('close', onClose);
    try {
      await handler(request, response, controller.signal, route.pattern.exec(path)?.slice(1) ?? []);
    } catch (error) {
      const failure = asFerryError(error, controller.signal);
      if (failure.code === 'FERRY_INTERNAL') logger.error({ err: error, route: routeName }, 'agent request failed unexpectedly');
      else logger.info({ route: routeName, code: failure.code }, failure.message);
      if (!response.headersSent && !response.destroyed) {
        if (isBodyError(failure)) response.shouldKeepAlive = false;
        sendError(response, failure);
      } else if (!response.writableEnded) {
        response.end();
      }
    } finally {
      inFlight.delete(controller);
      response.off('close', onClose);
    }
  };

  return {
    handle,
    get inFlight() {
      return inFlight.size;
    },
    abortAll(reason) {
      for (const controller of inFlight) controller.abort(reason);
    },
  };
}

/** Errors raised while the body was only partly read: the connection cannot be reused. */
function isBodyError(error: FerryError): boolean {
  return error.code === 'FERRY_AGENT_BAD_REQUEST' && error.message.startsWith('request body over');
}
