import { readFileSync, statSync } from 'node:fs';
import { z } from 'zod';
import { callAgent } from '../../agent/agent-client.js';
import { AGENT_DEFAULTS, AGENT_SOCKET_ENV } from '../../agent/agent-options.js';
import { parseOsloIni } from '../../config/parse-oslo-ini.js';
import { isFerryError } from '../../errors/ferry-error.js';
import type { AgentFacts, NovaConfFacts, SocketFacts } from '../../host/judge-node.js';
import { NOVA_INTEGRATION_STATE_FILE, readNovaIntegration } from '../../host/nova-integration-state.js';
import type { NovaIntegrationCheck } from '../../host/nova-integration-state.js';
import type { CommandContext, OptionSpec } from '../command-spec.js';

// The facts `ferry doctor` and `ferry agent status` judge (host/judge-node.ts), gathered here: the only I/O of both.

/** The packaged socket unit's group (SocketGroup=nova): nova-compute's. */
export const DEFAULT_SOCKET_GROUP = 'nova';
/** Where the packaged unit reads FERRY_NOVA_CONF from, and its default there (Debian's nova-compute order). */
export const AGENT_DEFAULTS_FILE = '/etc/default/ferry-agent';
export const PACKAGED_NOVA_CONF = ['/etc/nova/nova.conf', '/etc/nova/nova-compute.conf'] as const;
/** /healthz checks each of its checks within 5 s, side by side; this bounds the whole answer and /metrics. */
const AGENT_ANSWER_TIMEOUT_MS = 20_000;

export const NODE_OPTIONS: readonly OptionSpec[] = [
  { name: 'agent', value: 'PATH', description: `the agent's socket (env ${AGENT_SOCKET_ENV}; default ${AGENT_DEFAULTS.socketPath})` },
  { name: 'socket-group', value: 'GROUP', description: `the group that must own the socket: nova-compute's (default ${DEFAULT_SOCKET_GROUP})` },
];

export function socketPathOf(ctx: CommandContext): string {
  return (typeof ctx.flags.agent === 'string' ? ctx.flags.agent : undefined) ?? ctx.env?.[AGENT_SOCKET_ENV] ?? AGENT_DEFAULTS.socketPath;
}

export function socketGroupOf(ctx: CommandContext): string {
  return typeof ctx.flags['socket-group'] === 'string' ? ctx.flags['socket-group'] : DEFAULT_SOCKET_GROUP;
}

/** The group's name from /etc/group (the gid as text when it has none: a kolla host without a nova group). */
function groupName(gid: number, readFile: (path: string) => string): string {
  try {
    const line = readFile('/etc/group').split('\n').find((entry) => entry.split(':')[2] === String(gid));
    return line?.split(':')[0] ?? String(gid);
  } catch {
    return String(gid);
  }
}

export function readSocketFacts(path: string, readFile: (path: string) => string = (p) => readFileSync(p, 'utf8')): SocketFacts {
  try {
    const stat = statSync(path);
    return { path, stat: { isSocket: stat.isSocket(), mode: stat.mode, gid: stat.gid, group: groupName(stat.gid, readFile) } };
  } catch (error) {
    return { path, error: (error as NodeJS.ErrnoException).code ?? String(error) };
  }
}

const healthBody = z.object({ ok: z.boolean(), checks: z.record(z.string(), z.object({ ok: z.boolean(), code: z.string().optional(),
  message: z.string().optional(), warnings: z.array(z.string()).optional(), source: z.string().optional(), state: z.string().optional() })) });

/** GET /healthz (every check, now) and GET /metrics (the agent's version) on the socket. */
export async function readAgentFacts(path: string, signal: AbortSignal): Promise<AgentFacts> {
  const bounded = AbortSignal.any([signal, AbortSignal.timeout(AGENT_ANSWER_TIMEOUT_MS)]);
  try {
    const health = await callAgent(path, { method: 'GET', path: '/healthz', signal: bounded });
    const parsed = healthBody.safeParse(health.body);
    if (!parsed.success) return { answered: true, status: health.status };
    const metrics = await callAgent(path, { method: 'GET', path: '/metrics', signal: bounded }).catch(() => undefined);
    const version = typeof metrics?.body === 'string' ? /^ferry_agent_build_info\{(?:[^}]*,)?version="([^"]+)"/m.exec(metrics.body)?.[1] : undefined;
    return { answered: true, status: health.status, checks: parsed.data.checks, ...(version === undefined ? {} : { version }) };
  } catch (error) {
    if (signal.aborted) throw error;
    if (isFerryError(error)) return { answered: false, code: error.code, message: error.message };
    return { answered: false, code: 'FERRY_AGENT_UNAVAILABLE', message: `the ferry agent at ${path} did not answer /healthz within ${AGENT_ANSWER_TIMEOUT_MS / 1000} s` };
  }
}

/**
 * nova's files: --nova-conf / FERRY_NOVA_CONF when given, else the FERRY_NOVA_CONF of the agent's unit settings
 * (/etc/default/ferry-agent), else the package's default. Their [libvirt] options, a later file winning.
 */
export function readNovaConfFacts(given: readonly string[], readFile: (path: string) => string): NovaConfFacts {
  const files = given.length > 0 ? given : unitNovaConf(readFile);
  const libvirt: Record<string, string> = {};
  for (const path of files) {
    let text: string;
    try {
      text = readFile(path);
    } catch (error) {
      return { files, unreadable: { path, reason: (error as NodeJS.ErrnoException).code ?? String(error) } };
    }
    const parsed = parseOsloIni(text);
    if (!parsed.ok) return { files, unreadable: { path, reason: `line ${parsed.line}: ${parsed.reason}` } };
    for (const [option, value] of parsed.sections.get('libvirt') ?? []) libvirt[option] = value.value;
  }
  return { files, libvirt };
}

function unitNovaConf(readFile: (path: string) => string): readonly string[] {
  try {
    const line = /^\s*FERRY_NOVA_CONF=(.*)$/m.exec(readFile(AGENT_DEFAULTS_FILE))?.[1]?.trim().replace(/^(["'])(.*)\1$/, '$2');
    if (line !== undefined && line !== '') return line.split(':').filter((path) => path !== '');
  } catch {
    // not installed from the package, or not root: the package's default
  }
  return PACKAGED_NOVA_CONF;
}

export async function readNovaPatchFacts(env: Readonly<Record<string, string | undefined>> | undefined): Promise<NovaIntegrationCheck | 'none'> {
  return await readNovaIntegration(env?.FERRY_NOVA_INTEGRATION_STATE ?? NOVA_INTEGRATION_STATE_FILE) ?? 'none';
}
