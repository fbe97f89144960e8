import { setFlagsFromString } from 'node:v8';
import { z } from 'zod';
import { AGENT_DEFAULTS, AGENT_SOCKET_ENV, resolveAgentOptions, type AgentOptions } from '../../agent/agent-options.js';
import { createAgentMetrics, type AgentMetrics } from '../../agent/agent-metrics.js';
import { createAgentServer } from '../../agent/agent-server.js';
import type { AgentHealth, AgentService, HealthCheck } from '../../agent/agent-service.js';
import { countingTransport } from '../../agent/counting-transport.js';
import type { Cloud } from '../../cloud/cloud.js';
import { connectCloud } from '../../cloud/connect-cloud.js';
import type { FerryConfig } from '../../config/ferry-config.js';
import { copyStatus } from '../../copy/copy-status.js';
import { FerryError, isFerryError } from '../../errors/ferry-error.js';
import type { Logger } from '../../logging/logger.js';
import type { ResolvedLocalCluster } from '../../rbd/resolve-local-cluster.js';
import type { CommandContext, CommandSpec } from '../command-spec.js';
import { configFlag, HOST_STORAGE_FLAGS } from '../global-options.js';
import { ensureCommand, ensureWithConfig } from './ensure.js';
import { statusCommand } from './status.js';

export const agentJsonSchema = z.object({
  socket: z.string(),
  requests: z.number().int(),
  reloads: z.number().int(),
});

export type AgentReport = z.infer<typeof agentJsonSchema>;

export const agentCommand: CommandSpec<AgentReport> = {
  name: 'agent',
  summary: 'Serve ensure/status to the host\'s callers (nova\'s image backend) on a Unix socket, with host-wide single flight',
  description: 'Runs until SIGTERM (or Ctrl-C): then it stops accepting, lets in-flight requests end within --shutdown-grace, '
    + 'answers the rest FERRY_AGENT_SHUTTING_DOWN and removes the socket. SIGHUP re-reads the configuration (clouds.yaml, '
    + 'nova.conf, environment) and the Ceph fsid. The copy flags (--store, --timeout, --fsid, …) are the defaults of its '
    + 'requests. HTTP API: docs/agent.md.',
  examples: [
    'ferry agent --nova-conf /etc/nova/nova.conf --socket-group nova',
    'ferry agent --store site-b --ceph-conf /etc/ceph/ceph.conf --socket /run/ferry/agent.sock',
  ],
  arguments: [],
  options: [
    { name: 'socket', value: 'PATH', description: `Unix socket to listen on (env ${AGENT_SOCKET_ENV}; default ${AGENT_DEFAULTS.socketPath})` },
    { name: 'socket-group', value: 'GROUP', description: 'group that may connect (socket mode 0660), e.g. nova' },
    { name: 'shutdown-grace', value: 'SECONDS', description: `on SIGTERM, how long in-flight requests may finish (default ${AGENT_DEFAULTS.shutdownGraceMs / 1000})` },
    { name: 'max-waits', value: 'N', description: `distinct (image, store) waits at once; more get 429 FERRY_AGENT_BUSY (default ${AGENT_DEFAULTS.maxWaits})` },
    ...['store', 'timeout', 'poll-interval', 'stale-lock-after', 'fsid', 'ceph-conf', 'rbd-user', ...HOST_STORAGE_FLAGS].map(configFlag),
  ],
  jsonSchema: agentJsonSchema,
  async run(ctx) {
    // `ferry agent` owns its process, which is long-lived and I/O-bound (~1 ms of JavaScript per request): without V8's
    // optimizing compiler its RSS is ~5 MiB lower at the same latency (bench/RESULTS.md, agent-local). Set here, where
    // the command is known whatever flags precede it, before any request makes code hot.
    setFlagsFromString('--no-opt');
    const options = resolveAgentOptions(agentOptionsFrom(ctx), { socketPath: ctx.flags.socket !== undefined ? '--socket' : AGENT_SOCKET_ENV,
      shutdownGraceMs: '--shutdown-grace', maxWaits: '--max-waits', socketGroup: '--socket-group' });
    const metrics = createAgentMetrics();
    const clouds = await createCloudHolder(ctx.config, ctx.logger, metrics);
    const service = createCloudAgentService(clouds);
    const server = createAgentServer({ service, metrics, logger: ctx.logger, options });
    await server.listen();
    warm(clouds.acquire(), ctx.logger);
    let reloads = 0;
    const onHangup = (): void => {
      void Promise.resolve().then(async () => {
        await clouds.replace(ctx.reloadConfig?.() ?? ctx.config);
        reloads += 1;
        ctx.logger.info({ reloads }, 'configuration re-read (SIGHUP)');
        warm(clouds.acquire(), ctx.logger);
      }).catch((error: unknown) => {
        ctx.logger.error({ code: isFerryError(error) ? error.code : 'FERRY_INTERNAL', message: (error as Error).message },
          'SIGHUP: the new configuration is not usable; keeping the old one');
      });
    };
    process.on('SIGHUP', onHangup);
    try {
      await new Promise<void>((resolve) => {
        if (ctx.signal.aborted) resolve();
        ctx.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      await server.shutdown();
    } finally {
      process.off('SIGHUP', onHangup);
      await clouds.close();
    }
    const requests = (await metrics.responses.get()).values.reduce((sum, value) => sum + value.value, 0);
    return { socket: options.socketPath, requests, reloads };
  },
  // Stopped by a signal on purpose: not an interruption.
  toJson: (report) => report,
  render: (report) => `ferry agent on ${report.socket} stopped after ${report.requests} requests (${report.reloads} reloads)`,
};

function agentOptionsFrom(ctx: CommandContext): AgentOptions {
  const text = (name: string): string | undefined => (typeof ctx.flags[name] === 'string' ? ctx.flags[name] : undefined);
  const number = (name: string, scale: number): number | undefined => {
    const value = text(name);
    if (value === undefined) return undefined;
    const parsed = Number(value);
    if (value.trim() === '' || !Number.isFinite(parsed)) {
      throw new FerryError('FERRY_INVALID_OPTION', `--${name} must be a number, got ${JSON.stringify(value)}`, `Fix --${name}.`, { option: name });
    }
    return Math.round(parsed * scale);
  };
  const socketPath = text('socket') ?? ctx.env?.[AGENT_SOCKET_ENV];
  const socketGroup = text('socket-group');
  const shutdownGraceMs = number('shutdown-grace', 1000);
  const maxWaits = number('max-waits', 1);
  return {
    ...(socketPath ? { socketPath } : {}), ...(socketGroup ? { socketGroup } : {}),
    ...(shutdownGraceMs === undefined ? {} : { shutdownGraceMs }), ...(maxWaits === undefined ? {} : { maxWaits }),
  };
}

/** A connected cloud and the requests using it: SIGHUP swaps in a new one; the old one closes when its last request ends. */
/** Where the agent's service takes its cloud from, per request. */
export interface CloudSource {
  acquire(): HeldCloud;
}

interface CloudHolder extends CloudSource {
  replace(config: FerryConfig): Promise<void>;
  close(): Promise<void>;
}

export interface HeldCloud {
  readonly cloud: Cloud;
  readonly config: FerryConfig;
  release(): void;
}

interface Generation {
  readonly cloud: Cloud;
  readonly config: FerryConfig;
  users: number;
  retired: boolean;
}

async function createCloudHolder(initial: FerryConfig, logger: Logger, metrics: AgentMetrics): Promise<CloudHolder> {
  const connect = async (config: FerryConfig): Promise<Generation> => ({
    config, users: 0, retired: false,
    cloud: await connectCloud(config, logger, { observeTransport: (transport) => countingTransport(transport, metrics) }),
  });
  const closeIfIdle = (generation: Generation): void => {
    if (generation.retired && generation.users === 0) void generation.cloud.close();
  };
  let current = await connect(initial);
  return {
    acquire() {
      const generation = current;
      generation.users += 1;
      let released = false;
      return {
        cloud: generation.cloud, config: generation.config,
        release: () => {
          if (released) return;
          released = true;
          generation.users -= 1;
          closeIfIdle(generation);
        },
      };
    },
    async replace(config) {
      const next = await connect(config);
      const previous = current;
      current = next;
      previous.retired = true;
      closeIfIdle(previous);
    },
    async close() {
      current.retired = true;
      await current.cloud.close();
    },
  };
}

/** The agent's service over a cloud: the same ensure and status code, and JSON mappings, as `ferry ensure` / `ferry status`. */
export function createCloudAgentService(clouds: CloudSource): AgentService {
  const withCloud = async <T>(work: (held: HeldCloud) => Promise<T>): Promise<T> => {
    const held = clouds.acquire();
    try {
      return await work(held);
    } finally {
      held.release();
    }
  };
  const check = async (probe: () => Promise<unknown>): Promise<HealthCheck> => {
    try {
      await probe();
      return { ok: true };
    } catch (error) {
      return isFerryError(error) ? { ok: false, code: error.code, message: error.message }
        : { ok: false, code: 'FERRY_INTERNAL', message: 'the check failed unexpectedly (see the agent log)' };
    }
  };
  return {
    defaultStore: () => withCloudSync(clouds, (held) => held.config.copy.store),
    ensure: (call) => withCloud(async ({ cloud, config }) => {
      const outcome = await ensureWithConfig(cloud, config, call.imageRef, { store: call.store, signal: call.signal,
        onProgress: call.onProgress, ...(call.timeoutMs === undefined ? {} : { timeoutMs: call.timeoutMs }) });
      return { document: ensureCommand.toJson(outcome), importRequests: outcome.needed ? outcome.importRequests : 0,
        joined: outcome.needed && outcome.joined };
    }),
    status: (imageRef, signal) => withCloud(async ({ cloud }) =>
      statusCommand.toJson({ kind: 'image', status: await copyStatus(cloud, imageRef, { signal }) })),
    health: (signal) => withCloud(async ({ cloud }): Promise<AgentHealth> => {
      let cluster: ResolvedLocalCluster | undefined;
      const [token, glance, fsidCheck] = await Promise.all([
        check(() => cloud.session.token(signal)),
        check(() => cloud.glance.getStoresInfo({ signal })),
        check(async () => { cluster = await cloud.localCluster(signal); }),
      ]);
      return { token, glance, fsid: cluster === undefined ? fsidCheck
        : { ...fsidCheck, fsid: cluster.fsid, source: cluster.source, ...(cluster.warnings.length > 0 ? { warnings: cluster.warnings } : {}) } };
    }),
  };
}

function withCloudSync<T>(clouds: CloudSource, work: (held: HeldCloud) => T): T {
  const held = clouds.acquire();
  try {
    return work(held);
  } finally {
    held.release();
  }
}

/** Token, catalog and fsid before the first caller needs them; a failure here is logged, /healthz reports it. */
function warm(held: HeldCloud, logger: Logger): void {
  void Promise.all([held.cloud.session.token(), held.cloud.localFsid()])
    .then(([, fsid]) => logger.info({ fsid }, 'agent warm: token and fsid ready'))
    .catch((error: unknown) => logger.warn({ code: isFerryError(error) ? error.code : 'FERRY_INTERNAL', message: (error as Error).message },
      'agent warm-up failed; /healthz reports it'))
    .finally(() => held.release());
}
