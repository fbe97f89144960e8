import { systemClock, type Clock } from '../clock/clock.js';
import type { AgentMetrics } from './agent-metrics.js';
import type { AgentHealth, AgentService, HealthCheck } from './agent-service.js';
import { judgeStoreScope } from './store-scope.js';

/** The checks of `GET /healthz`: the host's (token, Glance, fsid, transfer, nova patch) and the agent's own, its stores. */
export type AgentChecks = AgentHealth & { readonly stores: HealthCheck };

/** The body of `GET /healthz`, on the socket and on the metrics listener alike. */
export interface HealthReport {
  readonly ok: boolean;
  /** Names of the checks that failed. */
  readonly failing: readonly string[];
  readonly checks: AgentChecks;
}

export interface HealthProbe {
  /** Run the checks now (bounded by the timeout and `signal`); sets the `ferry_agent_healthy` gauge. */
  check(signal?: AbortSignal): Promise<HealthReport>;
  /**
   * For a scrape: the last result when it is younger than `maxAgeMs`, else a fresh check (one at a time, shared by
   * concurrent callers). Every scrape of a fleet would otherwise cost Glance a request per node.
   */
  recent(): Promise<boolean>;
}

export const HEALTH_PROBE_DEFAULTS = { maxAgeMs: 30_000 } as const;

export function judgeHealth(checks: AgentChecks): HealthReport {
  const failing = Object.entries(checks).filter(([, check]) => !(check as { ok: boolean }).ok).map(([name]) => name);
  return { ok: failing.length === 0, failing, checks };
}

export function createHealthProbe(input: { readonly service: AgentService; readonly metrics: AgentMetrics; readonly timeoutMs: number;
  /** --allow-store, for the `stores` check. */
  readonly allowList?: readonly string[] | undefined;
  readonly maxAgeMs?: number; readonly clock?: Clock }): HealthProbe {
  const { service, metrics, timeoutMs, allowList, clock = systemClock } = input;
  const maxAgeMs = input.maxAgeMs ?? HEALTH_PROBE_DEFAULTS.maxAgeMs;
  let last: { readonly ok: boolean; readonly at: number } | undefined;
  let running: Promise<boolean> | undefined;
  const check = async (signal?: AbortSignal): Promise<HealthReport> => {
    const bounded = signal === undefined ? AbortSignal.timeout(timeoutMs) : AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
    const host = await service.health(bounded);
    const report = judgeHealth({ ...host, stores: judgeStoreScope({ defaultStore: service.defaultStore(), allowList }) });
    last = { ok: report.ok, at: clock.now() };
    metrics.healthy.set(report.ok ? 1 : 0);
    metrics.novaIntegration.reset();
    if (report.checks.nova_integration !== undefined) metrics.novaIntegration.set({ state: report.checks.nova_integration.state }, 1);
    return report;
  };
  return {
    check,
    async recent() {
      if (last !== undefined && clock.now() - last.at < maxAgeMs) return last.ok;
      // A check that throws (not a failed check: those are data) counts as unhealthy; the scrape itself still answers.
      running ??= check().then((report) => report.ok, () => {
        metrics.healthy.set(0);
        return false;
      }).finally(() => {
        running = undefined;
      });
      return running;
    },
  };
}
