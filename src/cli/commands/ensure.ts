import { z } from 'zod';
import { ensure, ensureOnHost } from '../../copy/ensure.js';
import type { EnsureOutcome } from '../../copy/ensure-result.js';
import { resolveBackendConfig } from '../../backend/resolve-backend-config.js';
import { FerryError } from '../../errors/ferry-error.js';
import { existsSync } from 'node:fs';
import { agentDocument, callAgent } from '../../agent/agent-client.js';
import { AGENT_DEFAULTS, AGENT_SOCKET_ENV } from '../../agent/agent-options.js';
import { answers } from '../../agent/listen-on-socket.js';
import type { CommandContext, CommandSpec } from '../command-spec.js';
import { configFlag, HOST_STORAGE_FLAGS } from '../global-options.js';
import { renderEnsure, type EnsureView } from '../render/ensure.js';
import { describeCopyProgress } from '../render/copy-progress-line.js';
import type { CopyProgressEvent } from '../../copy/copy-progress.js';
import type { CopyContext } from '../../copy/copy-context.js';
import type { FerryConfig } from '../../config/ferry-config.js';

export const ensureJsonSchema = z.object({
  image: z.string(),
  store: z.string(),
  /** false: the image's backend on this host is not rbd (images_type_mapping), so no copy is needed and target is null. */
  needed: z.boolean(),
  copied: z.boolean(),
  joined: z.boolean(),
  seconds: z.number(),
  target: z.object({ fsid: z.string(), pool: z.string(), image: z.string(), snapshot: z.string(), url: z.string() }).nullable(),
  why: z.string(),
  /** The import task that brought the store (ours or the one joined); null when it was there already. */
  task: z.string().nullable(),
  /** The task whose expired import lock ferry made Glance bust (--take-over-expired); null otherwise. */
  took_over: z.string().nullable(),
  backend: z.object({ backend: z.string(), converted: z.boolean(), reason: z.string() }).optional(),
  image_reads: z.number().int(),
  import_requests: z.number().int(),
});

export type EnsureJson = z.infer<typeof ensureJsonSchema>;

/** Per call: what a caller may set on top of the configuration (the agent's requests; the CLI's flags are in config). */
export interface EnsureCall {
  readonly store: string;
  readonly timeoutMs?: number;
  readonly signal: AbortSignal;
  readonly onProgress?: (event: CopyProgressEvent) => void;
}

/**
 * ensure() as `ferry ensure` runs it from a resolved configuration: the copy options from config, and the host's
 * backend mapping when the host's storage was configured. The agent calls this too, so both answer alike.
 */
export async function ensureWithConfig(cloud: CopyContext, config: FerryConfig, imageRef: string, call: EnsureCall): Promise<EnsureOutcome> {
  const options = {
    store: call.store,
    timeoutMs: call.timeoutMs ?? config.copy.timeoutMs,
    minPollDelayMs: config.copy.minPollDelayMs,
    maxPollDelayMs: config.copy.maxPollDelayMs,
    staleLockAfterMs: config.copy.staleLockAfterMs,
    takeOverExpired: config.copy.takeOverExpired,
    signal: call.signal,
    ...(call.onProgress ? { onProgress: call.onProgress } : {}),
  };
  // Only a host whose storage was configured (nova.conf or flags) decides per image; otherwise every image needs rbd.
  const { host, sources } = config;
  const configured = sources['host.imagesType'] !== 'default' || host.imagesTypeMapping !== undefined;
  if (!configured) return ensure(cloud, imageRef, options);
  const backend = resolveBackendConfig({ imagesType: host.imagesType, imagesTypeMapping: host.imagesTypeMapping ?? '',
    useCowImages: host.useCowImages, source: sources['host.imagesTypeMapping'] ?? sources['host.imagesType'] });
  return ensureOnHost(cloud, imageRef, { ...options, backend });
}

/** `ferry ensure` answered by the agent: its document, exactly as the agent's ensure() mapped it. */
export interface AgentEnsureReport {
  readonly via: 'agent';
  readonly socket: string;
  readonly json: EnsureJson;
}

export type EnsureReport = EnsureOutcome | AgentEnsureReport;

export const ensureCommand: CommandSpec<EnsureReport> = {
  name: 'ensure',
  summary: 'Make sure IMAGE has a copy-on-write-clonable copy in the local Ceph store, copying it there when needed',
  description: 'IMAGE is an image ID or a unique name. --store names the Glance store of the local Ceph cluster '
    + '(nova.conf [libvirt] images_rbd_glance_store_name). Prints the RBD clone target.',
  examples: [
    'ferry ensure 3f1c2a9e-5b7d-4c1e-9a8f-0d2e4b6c8a10 --store site-b',
    'ferry ensure cirros-raw --store site-b --json',
    'ferry ensure IMAGE --nova-conf /etc/nova/nova.conf',
    'ferry ensure IMAGE --store site-b --fsid 1c8b72c6-a5a4-4acb-8aac-181c2f242f55 --os-token $T --glance-endpoint http://glance:9292',
  ],
  arguments: [{ name: 'IMAGE', description: 'image ID or unique name', required: true }],
  options: [
    ...['store', 'timeout', 'poll-interval', 'stale-lock-after', 'take-over-expired', 'fsid', 'ceph-conf', 'rbd-user', ...HOST_STORAGE_FLAGS]
      .map(configFlag),
    { name: 'agent', value: 'PATH', description: `ask the ferry agent on this socket (env ${AGENT_SOCKET_ENV}; default: ${AGENT_DEFAULTS.socketPath} when it answers)` },
    { name: 'no-agent', description: 'run in this process even when an agent answers' },
  ],
  jsonSchema: ensureJsonSchema,
  async run(ctx) {
    const [imageRef] = ctx.args;
    const store = ctx.config.copy.store;
    const socket = await agentSocketFor(ctx);
    if (socket !== undefined) {
      // The agent's own copy options apply (--fsid, --poll-interval, …); --store and an explicit --timeout are sent.
      const timeoutSource = ctx.config.sources['copy.timeoutMs'];
      const timeoutSet = timeoutSource !== undefined && timeoutSource !== 'default';
      const answer = await callAgent(socket, { method: 'POST', path: '/v1/ensure', signal: ctx.signal,
        body: { image: imageRef ?? '', ...(store === undefined ? {} : { store }), ...(timeoutSet ? { timeout: ctx.config.copy.timeoutMs / 1000 } : {}) } });
      return { via: 'agent', socket, json: ensureJsonSchema.parse(agentDocument(socket, answer)) };
    }
    if (store === undefined) {
      throw new FerryError('FERRY_INVALID_OPTION', 'no store given: ferry does not know which Glance store is the local Ceph cluster',
        'Pass --store NAME, set FERRY_STORE, or point --nova-conf at a nova.conf with [libvirt] images_rbd_glance_store_name.');
    }
    const cloud = await ctx.connect();
    // The live line ticks every second, not only when Glance is read (reads can be 15 s apart).
    let last: CopyProgressEvent | undefined;
    const started = Date.now();
    const tick = setInterval(() => {
      if (last) ctx.progress.update(describeCopyProgress({ ...last, elapsedMs: Date.now() - started }));
    }, 1_000);
    tick.unref();
    try {
      return await ensureWithConfig(cloud, ctx.config, imageRef ?? '', {
        store,
        // --timeout counts from the command's start: what start-up and configuration took is already spent.
        timeoutMs: Math.max(1_000, Math.round(ctx.config.copy.timeoutMs - ctx.spentMs())),
        signal: ctx.signal,
        onProgress: (event: CopyProgressEvent) => {
          last = event;
          ctx.progress.update(describeCopyProgress(event));
        },
      });
    } finally {
      clearInterval(tick);
    }
  },
  toJson: (report): EnsureJson => ('via' in report ? report.json : outcomeToJson(report)),
  render: (report, style) => renderEnsure('via' in report ? viewOfJson(report.json) : report, style),
};

/** The one mapping of an ensure() outcome to `ferry ensure --json` (the agent answers with it too). */
function outcomeToJson(result: EnsureOutcome): EnsureJson {
  return !result.needed ? {
    image: result.imageId, store: result.store, needed: false, copied: false, joined: false,
    seconds: Math.round(result.elapsedMs) / 1000, target: null, why: result.backend.reason, task: null, took_over: null,
    backend: { backend: result.backend.backend, converted: result.backend.converted, reason: result.backend.reason },
    image_reads: result.imageReads, import_requests: 0,
  } : {
    image: result.imageId,
    store: result.store,
    needed: true,
    copied: result.copied,
    joined: result.joined,
    seconds: Math.round(result.elapsedMs) / 1000,
    target: { ...result.target },
    why: result.why,
    task: result.taskId ?? null,
    took_over: result.tookOver ?? null,
    image_reads: result.imageReads,
    import_requests: result.importRequests,
  };
}

/** What the text rendering needs, read back from the agent's document. */
function viewOfJson(json: EnsureJson): EnsureView {
  if (!json.needed || json.target === null) {
    return { needed: false, imageId: json.image, backend: { backend: json.backend?.backend ?? 'unknown', reason: json.backend?.reason ?? json.why } };
  }
  return { needed: true, imageId: json.image, store: json.store, copied: json.copied, joined: json.joined, elapsedMs: json.seconds * 1000,
    target: json.target, why: json.why, imageReads: json.image_reads, importRequests: json.import_requests };
}

/**
 * Which agent socket `ferry ensure` asks, if any: none with --no-agent; --agent PATH or FERRY_AGENT_SOCKET must
 * answer (else FERRY_AGENT_UNAVAILABLE, from the call); the default socket is used only when it answers.
 */
async function agentSocketFor(ctx: CommandContext): Promise<string | undefined> {
  if (ctx.flags.agent === false) return undefined;
  const explicit = typeof ctx.flags.agent === 'string' ? ctx.flags.agent : ctx.env?.[AGENT_SOCKET_ENV];
  if (explicit !== undefined && explicit !== '') return explicit;
  if (!existsSync(AGENT_DEFAULTS.socketPath)) return undefined;
  return await answers(AGENT_DEFAULTS.socketPath, 500) ? AGENT_DEFAULTS.socketPath : undefined;
}
