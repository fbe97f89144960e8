import type { IncomingMessage, ServerResponse } from 'node:http';
import { FerryError } from '../errors/ferry-error.js';
import type { HealthProbe } from './agent-health.js';
import type { AgentMetrics } from './agent-metrics.js';
import { assertImageRef } from './agent-request.js';
import { sendJson } from './agent-response.js';
import type { HostService } from '../host/host-service.js';

/** One method of a route: it answers, or throws (dispatch answers the error). `params`: the pattern's groups. */
export type RouteHandler = (request: IncomingMessage, response: ServerResponse, signal: AbortSignal, params: readonly string[]) => Promise<void>;

export interface Route {
  /** The `route` label of ferry_agent_responses_total. */
  readonly name: string;
  readonly pattern: RegExp;
  readonly methods: Readonly<Record<string, RouteHandler>>;
}

export const ROUTES_HINT = 'Routes: POST /v1/ensure, GET /v1/images/{id}, GET /healthz, GET /metrics (docs/agent.md).';

/** The agent's routes on its socket (docs/agent.md): ensure (handed in), status, the full health report, metrics. */
export function agentRoutes({ ensure, service, health, metrics }: { readonly ensure: RouteHandler; readonly service: HostService;
  readonly health: HealthProbe; readonly metrics: AgentMetrics }): readonly Route[] {
  return [
    { name: 'ensure', pattern: /^\/v1\/ensure$/, methods: { POST: ensure } },
    {
      name: 'image', pattern: /^\/v1\/images\/([^/]+)$/, methods: {
        GET: async (_request, response, signal, [encoded]) => {
          const imageRef = decodePathSegment(encoded ?? '');
          assertImageRef(imageRef);
          sendJson(response, 200, await service.status(imageRef, signal));
        },
      },
    },
    {
      // The socket is for the nova group: it gets every check with its details, checked now. The TCP listener gets
      // the cached verdict only (run-agent.ts).
      name: 'healthz', pattern: /^\/healthz$/, methods: {
        GET: async (_request, response, signal) => {
          const report = await health.check(signal);
          sendJson(response, report.ok ? 200 : 503, report);
        },
      },
    },
    {
      name: 'metrics', pattern: /^\/metrics$/, methods: {
        GET: async (_request, response) => {
          const text = await metrics.registry.metrics();
          response.writeHead(200, { 'content-type': metrics.registry.contentType });
          response.end(text);
        },
      },
    },
  ];
}

function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new FerryError('FERRY_AGENT_BAD_REQUEST', 'the image in the path is not valid percent-encoding', 'Percent-encode the image ID or name.');
  }
}
