import { AGENT_DEFAULTS, AGENT_METRICS_LISTEN_ENV, AGENT_SOCKET_ENV, resolveAgentOptions, type AgentOptions } from '../../agent/agent-options.js';
import { runAgent } from '../../agent/run-agent.js';
import { agentDocument, agentJsonSchema, type AgentRunReport } from '../../contract/agent-document.js';
import { FerryError } from '../../errors/ferry-error.js';
import { parseListenAddress } from '../../metrics/listen-address.js';
import type { CommandContext, CommandSpec } from '../command-spec.js';
import { configFlag, HOST_STORAGE_FLAGS, TRANSFER_FLAGS } from '../global-options.js';

export const agentCommand: CommandSpec<AgentRunReport> = {
  name: 'agent',
  description: 'Runs until SIGTERM (or Ctrl-C): then it stops accepting, lets in-flight requests end within --shutdown-grace, '
    + 'answers the rest FERRY_AGENT_SHUTTING_DOWN and removes the socket. SIGHUP re-reads the configuration (clouds.yaml, '
    + 'nova.conf, environment) and the Ceph fsid. The copy flags (--store, --timeout, --fsid, …) are the defaults of its '
    + 'requests. It serves its own store only (--store, or the stores of --allow-store): a request for any other is refused. '
    + 'HTTP API: docs/agent.md.',
  examples: [
    'ferry agent --nova-conf /etc/nova/nova.conf --socket-group nova',
    'ferry agent --store site-b --ceph-conf /etc/ceph/ceph.conf --socket /run/ferry/agent.sock',
    'ferry agent --nova-conf /etc/nova/nova.conf --socket-group nova --metrics-listen 127.0.0.1:9464',
    'ferry agent --store site-b --allow-store site-b --allow-store site-c --ceph-conf /etc/ceph/ceph.conf',
  ],
  arguments: [],
  options: [
    { name: 'socket', value: 'PATH', description: `Unix socket to listen on (env ${AGENT_SOCKET_ENV}; default ${AGENT_DEFAULTS.socketPath})` },
    { name: 'socket-group', value: 'GROUP', description: 'group that may connect (socket mode 0660), e.g. nova' },
    { name: 'shutdown-grace', value: 'DURATION', duration: true,
      description: `on SIGTERM, how long in-flight requests may finish (30s, 1m; a number is seconds; default ${AGENT_DEFAULTS.shutdownGraceMs / 1000}s)` },
    { name: 'max-waits', value: 'N', description: `distinct (image, store) waits at once; more get 429 FERRY_AGENT_BUSY (default ${AGENT_DEFAULTS.maxWaits})` },
    { name: 'allow-store', value: 'STORE', repeatable: true,
      description: 'a store requests may name (repeatable; comma-separated works too); default: only --store / nova.conf images_rbd_glance_store_name. '
        + 'Any other is refused 403 FERRY_STORE_NOT_ALLOWED before any Glance call' },
    { name: 'metrics-listen', value: 'HOST:PORT',
      description: `serve GET /metrics and GET /healthz over TCP here, nothing else; IPv6 in brackets (env ${AGENT_METRICS_LISTEN_ENV}; default off)` },
    ...['store', 'timeout', 'poll-interval', 'stale-lock-after', 'fsid', 'ceph-conf', 'rbd-user', ...TRANSFER_FLAGS, ...HOST_STORAGE_FLAGS].map(configFlag),
  ],
  jsonSchema: agentJsonSchema,
  async run(ctx) {
    const options = resolveAgentOptions(agentOptionsFrom(ctx), { socketPath: ctx.flags.socket !== undefined ? '--socket' : AGENT_SOCKET_ENV,
      shutdownGraceMs: '--shutdown-grace', maxWaits: '--max-waits', socketGroup: '--socket-group', allowStores: '--allow-store' });
    const { requests, reloads, metricsListen } = await runAgent({ config: ctx.config, reloadConfig: ctx.reloadConfig, options,
      logger: ctx.logger, signal: ctx.signal });
    return { socketPath: options.socketPath, requests, reloads, metricsListen };
  },
  // Stopped by a signal on purpose: not an interruption.
  toJson: agentDocument,
  render: (report) => `ferry agent on ${report.socketPath} stopped after ${report.requests} requests (${report.reloads} reloads)`
    + (report.metricsListen === undefined ? '' : `; metrics were on ${report.metricsListen}`),
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
  const allowed = ctx.flags['allow-store'];
  const allowStores = Array.isArray(allowed) ? (allowed as readonly string[]).flatMap((value) => value.split(',')).map((store) => store.trim()) : undefined;
  const metricsListen = text('metrics-listen');
  const metricsListenEnv = ctx.env?.[AGENT_METRICS_LISTEN_ENV];
  const metricsAddress = metricsListen !== undefined ? parseListenAddress(metricsListen, '--metrics-listen')
    : metricsListenEnv ? parseListenAddress(metricsListenEnv, AGENT_METRICS_LISTEN_ENV) : undefined;
  return {
    ...(socketPath ? { socketPath } : {}), ...(socketGroup ? { socketGroup } : {}),
    ...(shutdownGraceMs === undefined ? {} : { shutdownGraceMs }), ...(maxWaits === undefined ? {} : { maxWaits }),
    ...(metricsAddress === undefined ? {} : { metricsListen: metricsAddress }),
    ...(allowStores === undefined ? {} : { allowStores }),
  };
}
