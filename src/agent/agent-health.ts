import { systemClock, type Clock } from '../clock/clock.js';
import type { AgentMetrics } from './agent-metrics.js';
import type { AgentHealth, AgentService } from './agent-service.js';

/** The body of `GET /healthz`, on the socket and on the metrics listener alike. */
export interface HealthReport {
  readonly ok: boolean;
  /** Names of the checks that failed. */
  readonly failing: readonly string[];
  readonly checks: AgentHealth;
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

export function judgeHealth(checks: AgentHealth): HealthReport {
  const failing = Object.entries(checks).filter(([, check]) => !(check as { ok: boolean }).ok).map(([name]) => name);
  return { ok: failing.length === 0, failing, checks };
}

export function createHealthProbe(input: { readonly service: AgentService; readonly metrics: AgentMetrics; readonly timeoutMs: number;
  readonly maxAgeMs?: number; readonly clock?: Clock }): HealthProbe {
  const { service, metrics, timeoutMs, clock = systemClock } = input;
  const maxAgeMs = input.maxAgeMs ?? HEALTH_PROBE_DEFAULTS.maxAgeMs;
  let last: { readonly ok: boolean; readonly at: number } | undefined;
  let running: Promise<boolean> | undefined;
  const check = async (signal?: AbortSignal): Promise<HealthReport> => {
    const bounded = signal === undefined ? AbortSignal.timeout(timeoutMs) : AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
    const report = judgeHealth(await service.health(bounded));
    last = { ok: report.ok, at: clock.now() };
    metrics.healthy.set(report.ok ? 1 : 0);
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
