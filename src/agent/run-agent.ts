import { setFlagsFromString } from 'node:v8';
import type { FerryConfig } from '../config/ferry-config.js';
import { isFerryError } from '../errors/ferry-error.js';
import { createCloudHolder, type HeldCloud } from '../host/cloud-holder.js';
import { createHostService } from '../host/host-service.js';
import type { Logger } from '../logging/logger.js';
import { formatListenAddress } from '../metrics/listen-address.js';
import { startMetricsListener, type MetricsListener } from '../metrics/metrics-listener.js';
import { createHealthProbe } from './agent-health.js';
import { createAgentMetrics } from './agent-metrics.js';
import type { ResolvedAgentOptions } from './agent-options.js';
import { createAgentServer } from './agent-server.js';
import { countingTransport } from './counting-transport.js';
import { systemdNotifier, type ServiceNotifier } from './service-notifier.js';
import { takeAgentSocketFd } from './systemd-activation.js';

/** What systemd hands the agent: the socket of ferry-agent.socket (if any) and the sd_notify channel. */
export interface SystemdHandoff {
  readonly inheritedFd: number | undefined;
  readonly notifier: ServiceNotifier;
}

export interface AgentRun {
  readonly config: FerryConfig;
  /** Re-reads the configuration on SIGHUP (clouds.yaml, nova.conf, environment); absent: the same one again. */
  readonly reloadConfig?: (() => FerryConfig) | undefined;
  readonly options: ResolvedAgentOptions;
  readonly logger: Logger;
  /** Stops the agent (SIGTERM, Ctrl-C). */
  readonly signal: AbortSignal;
  /** Default: read from this process (LISTEN_FDS/LISTEN_PID, NOTIFY_SOCKET), which it then unsets. */
  readonly systemd?: SystemdHandoff | undefined;
}

export interface AgentRunReport {
  readonly requests: number;
  readonly reloads: number;
  /** Where the metrics listener was (HOST:PORT), when --metrics-listen asked for one. */
  readonly metricsListen?: string;
}

/**
 * `ferry agent`: the host's service on a Unix socket until `signal` aborts; SIGHUP swaps the cloud, not the server.
 * Then it stops accepting, lets requests in flight end within the grace, and closes the cloud.
 */
export async function runAgent(run: AgentRun): Promise<AgentRunReport> {
  const { logger } = run;
  // The agent owns its process, which is long-lived and I/O-bound (~1 ms of JavaScript per request): without V8's
  // optimizing compiler its RSS is ~5 MiB lower at the same latency (bench/RESULTS.md, agent-local). Set before any
  // request makes code hot.
  setFlagsFromString('--no-opt');
  const systemd = run.systemd ?? { inheritedFd: takeAgentSocketFd(), notifier: systemdNotifier(logger) };
  const metrics = createAgentMetrics();
  const clouds = await createCloudHolder(run.config, logger, { observeTransport: (transport) => countingTransport(transport, metrics) });
  const service = createHostService(clouds);
  const health = createHealthProbe({ service, metrics, timeoutMs: run.options.healthTimeoutMs, allowList: run.options.allowStores });
  metrics.refreshHealthOnScrape(async () => (await health.recent()).ok);
  const server = createAgentServer({ service, metrics, logger, options: run.options, health, inheritedFd: systemd.inheritedFd });
  let metricsListener: MetricsListener | undefined;
  try {
    // Before the socket: a metrics address that cannot be bound stops the start before any caller is served.
    if (run.options.metricsListen !== undefined) {
      metricsListener = await startMetricsListener({ address: run.options.metricsListen, from: '--metrics-listen', registry: metrics.registry,
        healthTimeoutMs: run.options.healthTimeoutMs, logger,
        // Whoever reaches the port: the cached verdict, names of failing checks only; the full report stays on the socket.
        health: async () => {
          const verdict = await health.recent();
          return { ok: verdict.ok, body: verdict };
        } });
    }
    await server.listen();
  } catch (error) {
    await metricsListener?.close();
    await clouds.close();
    throw error;
  }
  // Type=notify: `systemctl start` returns, and units ordered after this one start, once the agent answers. The
  // configuration is loaded and the cloud holder made; token and fsid warm up behind it, as /healthz reports.
  await systemd.notifier.notify('READY=1', 'STATUS=answering');
  warm(clouds.acquire(), logger);
  let reloads = 0;
  const onHangup = (): void => {
    void systemd.notifier.notify('RELOADING=1').then(async () => {
      await clouds.replace(run.reloadConfig?.() ?? run.config);
      reloads += 1;
      logger.info({ reloads }, 'configuration re-read (SIGHUP)');
      warm(clouds.acquire(), logger);
    }).catch((error: unknown) => {
      logger.error({ code: isFerryError(error) ? error.code : 'FERRY_INTERNAL', message: (error as Error).message },
        'SIGHUP: the new configuration is not usable; keeping the old one');
    }).finally(() => systemd.notifier.notify('READY=1'));
  };
  process.on('SIGHUP', onHangup);
  try {
    await new Promise<void>((resolve) => {
      if (run.signal.aborted) resolve();
      run.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    const stopping = systemd.notifier.notify('STOPPING=1');
    await server.shutdown();
    await stopping;
  } finally {
    process.off('SIGHUP', onHangup);
    // The scrape port stays up through the drain, so the last counts can still be read; it goes with the process.
    await metricsListener?.close();
    await clouds.close();
  }
  const requests = (await metrics.responses.get()).values.reduce((sum, value) => sum + value.value, 0);
  return { requests, reloads, ...(metricsListener ? { metricsListen: formatListenAddress(metricsListener.address) } : {}) };
}

/** Token, catalog and fsid before the first caller needs them; a failure here is logged, /healthz reports it. */
function warm(held: HeldCloud, logger: Logger): void {
  void Promise.all([held.cloud.session.token(), held.cloud.localFsid()])
    .then(([, fsid]) => logger.info({ fsid }, 'agent warm: token and fsid ready'))
    .catch((error: unknown) => logger.warn({ code: isFerryError(error) ? error.code : 'FERRY_INTERNAL', message: (error as Error).message },
      'agent warm-up failed; /healthz reports it'))
    .finally(() => held.release());
}
