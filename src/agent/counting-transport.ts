import type { HttpTransport } from '../openstack/http-transport.js';
import type { AgentMetrics } from './agent-metrics.js';

/** Counts every request the agent sends, by service (guessed from the API path), method and status. */
export function countingTransport(inner: HttpTransport, metrics: AgentMetrics): HttpTransport {
  return {
    async send(request) {
      const service = serviceOf(request.url);
      try {
        const response = await inner.send(request);
        metrics.serviceRequests.inc({ service, method: request.method, status: String(response.status) });
        return response;
      } catch (error) {
        metrics.serviceRequests.inc({ service, method: request.method, status: 'error' });
        throw error;
      }
    },
    close: () => inner.close(),
  };
}

function serviceOf(url: string): string {
  const path = URL.canParse(url) ? new URL(url).pathname : url;
  if (/\/v3(\/|$)/.test(path)) return 'identity';
  if (/\/v2(\.\d+)?\/(images|info|schemas|tasks)/.test(path)) return 'image';
  if (/\/(resource_providers|traits|allocation_candidates)/.test(path)) return 'placement';
  return 'other';
}
