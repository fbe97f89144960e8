import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { collectStandardMetrics, registerBuildInfo } from '../metrics/standard-metrics.js';

/** What `GET /metrics` exposes. One registry per agent, so tests (and two agents in one process) never share counts. */
export interface AgentMetrics {
  readonly registry: Registry;
  /** Finished ensure requests, by outcome: `ok` or the error code. */
  readonly ensures: Counter<'outcome'>;
  readonly ensureSeconds: Histogram<'outcome'>;
  /** From an ensure request's arrival to its clone target going back, by store and by how the image came to be there. */
  readonly timeToAvailable: Histogram<'store' | 'source'>;
  /** Image bytes the agent's own copies brought into each store (the image's size, once per copy). */
  readonly copiedBytes: Counter<'store'>;
  /** Distinct (image, store) waits in flight; each may serve many requests. */
  readonly waitsInFlight: Gauge;
  /** --max-waits: the ceiling of waitsInFlight, so a rule can say "saturated" without knowing the flag. */
  readonly maxWaits: Gauge;
  /** 1 when the last health check passed on every check that decides whether the agent can answer nova, else 0. */
  readonly healthy: Gauge;
  /** Each check of the last health check: 1 passing, 0 failing (`probe`: the check itself threw). */
  readonly healthChecks: Gauge<'check'>;
  /** 1 for where the last health check's fsid came from (option, cluster, ceph-conf: unconfirmed); no series while unknown. */
  readonly fsidSource: Gauge<'source'>;
  /** 1 for the state the last health check read from the Debian package's nova-integration state file (applied, failed, …). */
  readonly novaIntegration: Gauge<'state'>;
  /** 1 when nova-compute runs the code from before nova's files last changed (ferry's patch applied again), else 0. */
  readonly novaIntegrationStale: Gauge;
  /** Requests that found their (image, store) wait already running in this agent, and joined it. */
  readonly requestsJoined: Counter;
  /** Glance import requests (copy-image POSTs) the agent made, and imports started by others that it joined. */
  readonly importsRequested: Counter;
  readonly importsJoined: Counter;
  /** Every HTTP request the agent sent to a service, by service, method and status (`error`: no answer). */
  readonly serviceRequests: Counter<'service' | 'method' | 'status'>;
  /** Agent HTTP requests answered, by route and status. */
  readonly responses: Counter<'route' | 'status'>;
  /**
   * What a scrape awaits before it reads the health gauges (healthy, health_check, fsid_source, nova_integration): the
   * agent hands in its health probe, which reuses a recent check and sets them. Until one is set they keep their values.
   */
  refreshHealthOnScrape(refresh: () => Promise<unknown>): void;
}

/** Seconds: a clone target already in place answers in milliseconds; a copy takes seconds to tens of minutes. */
export const TIME_TO_AVAILABLE_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 1800] as const;

export function createAgentMetrics(options: { readonly processMetrics?: boolean } = {}): AgentMetrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectStandardMetrics(registry);
  registerBuildInfo(registry, 'ferry_agent');
  const registers = [registry];
  let refreshHealth: (() => Promise<unknown>) | undefined;
  // Every health gauge awaits the same probe (one check at a time, shared), so one scrape reads one verdict.
  const collect = async (): Promise<void> => {
    if (refreshHealth !== undefined) await refreshHealth();
  };
  return {
    registry,
    ensures: new Counter({ name: 'ferry_agent_ensures_total', help: 'Finished ensure requests by outcome (ok or the error code)',
      labelNames: ['outcome'], registers }),
    ensureSeconds: new Histogram({ name: 'ferry_agent_ensure_duration_seconds', help: 'Time from an ensure request to its answer',
      labelNames: ['outcome'], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600], registers }),
    timeToAvailable: new Histogram({ name: 'ferry_agent_time_to_available_seconds',
      help: 'From an ensure request arriving to its clone target going back, by store and source (present, copied, joined)',
      labelNames: ['store', 'source'], buckets: [...TIME_TO_AVAILABLE_BUCKETS], registers }),
    copiedBytes: new Counter({ name: 'ferry_agent_copied_bytes_total',
      help: 'Image bytes brought into each store by copies the agent made (the image size, once per copy)', labelNames: ['store'], registers }),
    waitsInFlight: new Gauge({ name: 'ferry_agent_waits_in_flight', help: 'Distinct (image, store) waits running now', registers }),
    maxWaits: new Gauge({ name: 'ferry_agent_max_waits', help: 'Distinct waits allowed at once (--max-waits); one more is refused with 429',
      registers }),
    healthy: new Gauge({ name: 'ferry_agent_healthy', help: 'Whether the agent can answer nova: its health checks pass (token, Glance, '
      + 'Ceph fsid, transfer, stores; the nova patch has ferry_agent_nova_integration): 1 or 0', registers, collect }),
    healthChecks: new Gauge({ name: 'ferry_agent_health_check', help: 'Each check of /healthz: 1 passing, 0 failing (check="probe": the '
      + 'check itself failed)', labelNames: ['check'], registers, collect }),
    fsidSource: new Gauge({ name: 'ferry_agent_fsid_source', help: 'Where the local Ceph fsid came from: 1 for option (--fsid), cluster '
      + '(the cluster answered) or ceph-conf (unconfirmed: the cluster could not be asked); no series while it is unknown', labelNames: ['source'],
    registers, collect }),
    novaIntegration: new Gauge({ name: 'ferry_agent_nova_integration',
      help: 'Whether nova carries ferry\'s patch, as the package\'s dpkg trigger last recorded it: 1 for the state (applied, failed, off, '
        + 'nova-absent, unreadable); no series where the package does not keep it', labelNames: ['state'], registers, collect }),
    novaIntegrationStale: new Gauge({ name: 'ferry_agent_nova_integration_stale',
      help: 'Whether nova-compute still runs nova\'s code from before its files last changed (the patch applied again or taken back, '
        + 'python3-nova upgraded): 1 until nova-compute is restarted, else 0 (also where nova-compute does not run or nothing records it)',
      registers, collect }),
    requestsJoined: new Counter({ name: 'ferry_agent_requests_joined_total',
      help: 'Ensure requests that joined a wait already running in the agent', registers }),
    importsRequested: new Counter({ name: 'ferry_agent_imports_requested_total', help: 'Glance copy-image requests sent', registers }),
    importsJoined: new Counter({ name: 'ferry_agent_imports_joined_total',
      help: 'Waits that joined a Glance import another client had started', registers }),
    serviceRequests: new Counter({ name: 'ferry_agent_service_requests_total',
      help: 'HTTP requests to OpenStack services by service, method and status', labelNames: ['service', 'method', 'status'], registers }),
    responses: new Counter({ name: 'ferry_agent_responses_total', help: 'Agent answers by route and HTTP status',
      labelNames: ['route', 'status'], registers }),
    refreshHealthOnScrape(refresh) {
      refreshHealth = refresh;
    },
  };
}
