import { systemClock, type Clock } from '../clock/clock.js';
import { abortable } from '../concurrency/abortable.js';
import type { AgentMetrics } from './agent-metrics.js';
import type { HostHealth, HostService, HealthCheck } from '../host/host-service.js';
import { judgeStoreScope } from './store-scope.js';

/** The checks of `GET /healthz`: the host's (token, Glance, fsid, transfer, nova patch) and the agent's own, its stores. */
export type AgentChecks = HostHealth & { readonly stores: HealthCheck };

/** Whether the checks pass, and the names of those that fail: all the TCP listener tells (names only, never a message). */
export interface HealthVerdict {
  readonly ok: boolean;
  readonly failing: readonly string[];
}

/** The body of `GET /healthz` on the socket: the verdict and every check with its details (fsid, messages). */
export interface HealthReport extends HealthVerdict {
  readonly checks: AgentChecks;
}

export interface HealthProbe {
  /** Run the checks now (bounded by the timeout and `signal`); sets the `ferry_agent_healthy` gauge and the cached verdict. */
  check(signal?: AbortSignal): Promise<HealthReport>;
  /**
   * The verdict of the last check when it is younger than `maxAgeMs`, else of a fresh one (one at a time, shared by
   * concurrent callers). What a scrape and the TCP /healthz answer: however often they ask, the checks (a Glance
   * request, a ceph process while the fsid is unknown) run at most once per `maxAgeMs`.
   */
  recent(): Promise<HealthVerdict>;
}

export const HEALTH_PROBE_DEFAULTS = { maxAgeMs: 30_000 } as const;

/** A check that threw (not one that failed: those are data) is reported under this name. */
export const PROBE_FAILED = 'probe';

/**
 * Checks `/healthz` reports that do not decide whether this agent can answer nova: they have their own metric and alert
 * (ferry_agent_nova_integration), so one fleet-wide nova upgrade does not read as every agent down.
 */
export const NOT_AGENT_HEALTH: readonly string[] = ['nova_integration'];

/** `ferry_agent_healthy`: the verdict without the checks that are not the agent's own. Pure. */
export function agentAnswers(verdict: HealthVerdict): boolean {
  return verdict.failing.every((name) => NOT_AGENT_HEALTH.includes(name));
}

export function judgeHealth(checks: AgentChecks): HealthReport {
  const failing = Object.entries(checks).filter(([, check]) => !(check as { ok: boolean }).ok).map(([name]) => name);
  return { ok: failing.length === 0, failing, checks };
}

export function createHealthProbe(input: { readonly service: HostService; readonly metrics: AgentMetrics; readonly timeoutMs: number;
  /** --allow-store, for the `stores` check. */
  readonly allowList?: readonly string[] | undefined;
  readonly maxAgeMs?: number; readonly clock?: Clock }): HealthProbe {
  const { service, metrics, timeoutMs, allowList, clock = systemClock } = input;
  const maxAgeMs = input.maxAgeMs ?? HEALTH_PROBE_DEFAULTS.maxAgeMs;
  let last: { readonly verdict: HealthVerdict; readonly at: number } | undefined;
  let running: Promise<HealthVerdict> | undefined;
  const remember = (verdict: HealthVerdict, checks?: AgentChecks): HealthVerdict => {
    last = { verdict: Object.freeze({ ok: verdict.ok, failing: Object.freeze([...verdict.failing]) }), at: clock.now() };
    showVerdict(metrics, verdict, checks);
    return last.verdict;
  };
  const check = async (signal?: AbortSignal): Promise<HealthReport> => {
    const bounded = signal === undefined ? AbortSignal.timeout(timeoutMs) : AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
    // Bounded here too, not only by the checks taking the signal: one that ignored it left this promise pending, every
    // later recent() waiting on it, and each /metrics scrape and /healthz with it (the soak: every agent's /metrics
    // went silent 30 minutes after its start, until it was restarted).
    const host = await abortable(service.health(bounded), bounded);
    const report = judgeHealth({ ...host, stores: judgeStoreScope({ defaultStore: service.defaultStore(), allowList }) });
    remember(report, report.checks);
    return report;
  };
  return {
    check,
    async recent() {
      if (last !== undefined && clock.now() - last.at < maxAgeMs) return last.verdict;
      // A check that throws counts as unhealthy, and is remembered like any verdict: the next caller does not retry it at once.
      running ??= check().then(({ ok, failing }): HealthVerdict => ({ ok, failing }), () => remember({ ok: false, failing: [PROBE_FAILED] }))
        .finally(() => {
          running = undefined;
        });
      return running;
    },
  };
}

/**
 * The health gauges of one verdict. Without the checks (the probe threw) only what is known changes: healthy 0 and
 * check="probe" 0; where the fsid came from and the nova patch's state keep their last values.
 */
function showVerdict(metrics: AgentMetrics, verdict: HealthVerdict, checks: AgentChecks | undefined): void {
  metrics.healthy.set(agentAnswers(verdict) ? 1 : 0);
  metrics.healthChecks.reset();
  for (const [name, entry] of Object.entries(checks ?? {})) metrics.healthChecks.set({ check: name }, (entry as { ok: boolean }).ok ? 1 : 0);
  for (const name of verdict.failing.filter((failing) => checks === undefined || !(failing in checks))) metrics.healthChecks.set({ check: name }, 0);
  if (checks === undefined) return;
  metrics.fsidSource.reset();
  if (checks.fsid.ok && checks.fsid.source !== undefined) metrics.fsidSource.set({ source: checks.fsid.source }, 1);
  metrics.novaIntegration.reset();
  metrics.novaIntegrationStale.reset();
  const nova = checks.nova_integration;
  if (nova !== undefined) metrics.novaIntegration.set({ state: nova.state }, 1);
  if (nova?.nova_compute !== undefined) metrics.novaIntegrationStale.set(nova.nova_compute.stale ? 1 : 0);
}
