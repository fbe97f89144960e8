import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** What `GET /metrics` exposes. One registry per agent, so tests (and two agents in one process) never share counts. */
export interface AgentMetrics {
  readonly registry: Registry;
  /** Finished ensure requests, by outcome: `ok` or the error code. */
  readonly ensures: Counter<'outcome'>;
  readonly ensureSeconds: Histogram<'outcome'>;
  /** Distinct (image, store) waits in flight; each may serve many requests. */
  readonly waitsInFlight: Gauge;
  /** Requests that found their (image, store) wait already running in this agent, and joined it. */
  readonly requestsJoined: Counter;
  /** Glance import requests (copy-image POSTs) the agent made, and imports started by others that it joined. */
  readonly importsRequested: Counter;
  readonly importsJoined: Counter;
  /** Every HTTP request the agent sent to a service, by service, method and status (`error`: no answer). */
  readonly serviceRequests: Counter<'service' | 'method' | 'status'>;
  /** Agent HTTP requests answered, by route and status. */
  readonly responses: Counter<'route' | 'status'>;
}

export function createAgentMetrics(options: { readonly processMetrics?: boolean } = {}): AgentMetrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'ferry_agent_' });
  const registers = [registry];
  return {
    registry,
    ensures: new Counter({ name: 'ferry_agent_ensures_total', help: 'Finished ensure requests by outcome (ok or the error code)',
      labelNames: ['outcome'], registers }),
    ensureSeconds: new Histogram({ name: 'ferry_agent_ensure_duration_seconds', help: 'Time from an ensure request to its answer',
      labelNames: ['outcome'], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600], registers }),
    waitsInFlight: new Gauge({ name: 'ferry_agent_waits_in_flight', help: 'Distinct (image, store) waits running now', registers }),
    requestsJoined: new Counter({ name: 'ferry_agent_requests_joined_total',
      help: 'Ensure requests that joined a wait already running in the agent', registers }),
    importsRequested: new Counter({ name: 'ferry_agent_imports_requested_total', help: 'Glance copy-image requests sent', registers }),
    importsJoined: new Counter({ name: 'ferry_agent_imports_joined_total',
      help: 'Waits that joined a Glance import another client had started', registers }),
    serviceRequests: new Counter({ name: 'ferry_agent_service_requests_total',
      help: 'HTTP requests to OpenStack services by service, method and status', labelNames: ['service', 'method', 'status'], registers }),
    responses: new Counter({ name: 'ferry_agent_responses_total', help: 'Agent answers by route and HTTP status',
      labelNames: ['route', 'status'], registers }),
  };
}
