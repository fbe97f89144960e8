import { ensureDocument, ensureJsonSchema, type EnsureJson } from '../../contract/ensure-document.js';
import type { EnsureOutcome } from '../../copy/ensure-result.js';
import { ensureWithConfig } from '../../host/host-ensure.js';
import { FerryError } from '../../errors/ferry-error.js';
import { existsSync } from 'node:fs';
import { agentDocument, callAgent } from '../../agent/agent-client.js';
import { AGENT_DEFAULTS, AGENT_SOCKET_ENV } from '../../agent/agent-options.js';
import { answers } from '../../agent/listen-on-socket.js';
import type { CommandContext, CommandSpec } from '../command-spec.js';
import { configFlag, HOST_STORAGE_FLAGS, TRANSFER_FLAGS } from '../global-options.js';
import { renderEnsure, type EnsureView } from '../render/ensure.js';
import { describeCopyProgress } from '../render/copy-progress-line.js';
import type { CopyProgressEvent } from '../../copy/copy-progress.js';

/** `ferry ensure` answered by the agent: its document, exactly as the agent's ensure() mapped it. */
export interface AgentEnsureReport {
  readonly via: 'agent';
  readonly socket: string;
  readonly json: EnsureJson;
}

export type EnsureReport = EnsureOutcome | AgentEnsureReport;

export const ensureCommand: CommandSpec<EnsureReport> = {
  name: 'ensure',
  description: 'IMAGE is an image ID or a unique name. --store names the Glance store of the local Ceph cluster '
    + '(nova.conf [libvirt] images_rbd_glance_store_name). Prints the RBD clone target.',
  examples: [
    'ferry ensure 3f1c2a9e-5b7d-4c1e-9a8f-0d2e4b6c8a10 --store site-b',
    'ferry ensure cirros-raw --store site-b --json',
    'ferry ensure IMAGE --nova-conf /etc/nova/nova.conf',
    'ferry ensure IMAGE --store site-b --ceph-conf B.conf --rbd-user glance --transfer rbd --source-ceph-conf site-a=A.conf --json',
    'ferry ensure IMAGE --store site-b --fsid 1c8b72c6-a5a4-4acb-8aac-181c2f242f55 --os-token $T --glance-endpoint http://glance:9292',
  ],
  arguments: [{ name: 'IMAGE', description: 'image ID or unique name', required: true }],
  options: [
    ...['store', 'timeout', 'poll-interval', 'stale-lock-after', 'take-over-expired', 'fsid', 'ceph-conf', 'rbd-user', ...TRANSFER_FLAGS, ...HOST_STORAGE_FLAGS]
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
  toJson: (report): EnsureJson => ('via' in report ? report.json : ensureDocument(report)),
  render: (report, style) => renderEnsure('via' in report ? viewOfJson(report.json) : report, style),
};

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
