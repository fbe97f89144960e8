import { FERRY_ERROR_CODES, type FerryErrorCode } from '../errors/error-table.js';
import type { NovaIntegrationCheck } from './nova-integration-state.js';

/**
 * "Is ferry right on this node?" (`ferry doctor`, `ferry agent status`): a pure judgement over facts gathered by the
 * CLI (the agent's socket, its /healthz and version, nova's config files, the nova patch's recorded state). Each check
 * has a status, a message and, when it fails, a code and a hint; the first failing check's code is the verdict.
 */
export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface NodeCheck {
  readonly name: string;
  readonly status: CheckStatus;
  readonly message: string;
  /** Set when the check fails: the error code whose exit code the command returns when this is the first failure. */
  readonly code?: FerryErrorCode;
  readonly hint?: string;
}

export interface SocketFacts {
  readonly path: string;
  /** What stat says of the path; undefined with `error` ENOENT: nothing there. */
  readonly stat?: { readonly isSocket: boolean; readonly mode: number; readonly gid: number; readonly group: string };
  /** stat's error code (ENOENT, EACCES, …). */
  readonly error?: string;
}

/** One check of the agent's /healthz body (docs/agent.md), as it comes off the socket. */
export interface AgentHealthEntry {
  readonly ok: boolean;
  readonly code?: string;
  readonly message?: string;
  readonly warnings?: readonly string[];
  readonly source?: string;
  readonly state?: string;
}

export type AgentFacts =
  | { readonly answered: true; readonly status: number;
    /** The /healthz body's checks; undefined: the body was not ferry's health report. */
    readonly checks?: Readonly<Record<string, AgentHealthEntry>>;
    /** ferry_agent_build_info's version label, when /metrics answered with it. */
    readonly version?: string }
  | { readonly answered: false; readonly code: string; readonly message: string };

/** nova's config files, read in nova-compute's order ([libvirt] only, a later file winning per option), or the first that could not be read. */
export type NovaConfFacts =
  | { readonly files: readonly string[]; readonly libvirt: Readonly<Record<string, string>> }
  | { readonly files: readonly string[]; readonly unreadable: { readonly path: string; readonly reason: string } };

export interface NodeFacts {
  readonly socket: SocketFacts;
  /** The group nova-compute runs as, which must own the socket (the packaged socket unit's SocketGroup=nova). */
  readonly socketGroup: string;
  readonly agent: AgentFacts;
  /** This ferry's version, to compare with the running agent's. */
  readonly version: string;
  /** nova's config; absent: not asked (`ferry agent status`). */
  readonly nova?: NovaConfFacts;
  /** The nova patch's recorded state (readNovaIntegration); 'none': no record on this node; absent: not asked. */
  readonly novaPatch?: NovaIntegrationCheck | 'none';
}

export interface NodeVerdict {
  /** No check failed (warnings allowed). */
  readonly ok: boolean;
  /** The first failing check's code: the exit code's (docs/exit-codes.md); null when ok. */
  readonly code: FerryErrorCode | null;
  readonly checks: readonly NodeCheck[];
}

const ok = (name: string, message: string): NodeCheck => ({ name, status: 'ok', message });
const warn = (name: string, message: string, hint?: string): NodeCheck => ({ name, status: 'warn', message, ...(hint === undefined ? {} : { hint }) });
const fail = (name: string, code: FerryErrorCode, message: string, hint: string): NodeCheck => ({ name, status: 'fail', code, message, hint });
const knownCode = (code: string | undefined, fallback: FerryErrorCode): FerryErrorCode =>
  (code !== undefined && (FERRY_ERROR_CODES as readonly string[]).includes(code) ? code as FerryErrorCode : fallback);

const START_SOCKET = 'Start it: systemctl enable --now ferry-agent.socket ferry-agent.service (docs/agent.md); or name the socket with --agent.';

export function judgeSocket(socket: SocketFacts, group: string): NodeCheck[] {
  const { path, stat } = socket;
  if (stat === undefined) {
    return [socket.error === undefined || socket.error === 'ENOENT'
      ? fail('socket', 'FERRY_AGENT_UNAVAILABLE', `no agent socket at ${path}`, START_SOCKET)
      : fail('socket', 'FERRY_AGENT_UNAVAILABLE', `cannot look at ${path}: ${socket.error}`, 'Run ferry doctor as root, or as a member of the socket\'s group.')];
  }
  if (!stat.isSocket) return [fail('socket', 'FERRY_AGENT_UNAVAILABLE', `${path} is not a socket`, START_SOCKET)];
  const mode = `0${(stat.mode & 0o777).toString(8)}`;
  const checks = [ok('socket', `${path} is a socket`)];
  if (stat.group !== group && String(stat.gid) !== group) {
    checks.push(fail('socket_group', 'FERRY_AGENT_UNAVAILABLE', `${path} belongs to group ${stat.group}, not ${group}: nova-compute cannot connect`,
      `Give the socket nova-compute's group: SocketGroup=${group} in ferry-agent.socket (a drop-in: systemctl edit ferry-agent.socket; a numeric GID where ${group} is not a group of this host), or pass --socket-group when nova runs as another group.`));
  } else if ((stat.mode & 0o060) !== 0o060) {
    checks.push(fail('socket_group', 'FERRY_AGENT_UNAVAILABLE', `${path} has mode ${mode}: group ${group} cannot read and write it`,
      'SocketMode=0660 in ferry-agent.socket (the packaged unit\'s).'));
  } else if ((stat.mode & 0o006) !== 0) {
    checks.push(warn('socket_group', `${path} has mode ${mode}: anyone on this host may ask the agent to copy`, 'SocketMode=0660 in ferry-agent.socket.'));
  } else checks.push(ok('socket_group', `mode ${mode}, group ${group}`));
  return checks;
}

export function judgeAgent(agent: AgentFacts, version: string): NodeCheck[] {
  if (!agent.answered) return [fail('agent', knownCode(agent.code, 'FERRY_AGENT_UNAVAILABLE'), agent.message, START_SOCKET)];
  if (agent.checks === undefined) {
    return [fail('agent', 'FERRY_AGENT_UNAVAILABLE', `the socket answered /healthz with HTTP ${agent.status}, not ferry's health report`,
      'Check what listens there (systemctl status ferry-agent.socket).')];
  }
  const entries = Object.entries(agent.checks);
  const failing = entries.filter(([, entry]) => !entry.ok).map(([name]) => name);
  const checks: NodeCheck[] = [failing.length === 0 ? ok('agent', 'answers /healthz: every check passes')
    : ok('agent', `answers /healthz: ${failing.join(', ')} failing`)];
  for (const [name, entry] of entries) {
    const label = `agent.${name}`;
    if (!entry.ok) {
      checks.push(fail(label, knownCode(entry.code, 'FERRY_AGENT_UNAVAILABLE'), entry.message ?? `${name} fails`,
        'See the agent\'s log: journalctl -u ferry-agent (docs/agent.md, GET /healthz; docs/runbooks.md).'));
    } else if (entry.warnings !== undefined && entry.warnings.length > 0) checks.push(warn(label, entry.warnings.join('; ')));
    else checks.push(ok(label, [entry.source === undefined ? 'ok' : `ok (from ${entry.source})`, entry.state].filter(Boolean).join(', ')));
  }
  if (agent.version !== undefined) {
    checks.push(agent.version === version ? ok('agent.version', `ferry ${version}, as this ferry`)
      : warn('agent.version', `the agent runs ferry ${agent.version}, this ferry is ${version}`, 'After an upgrade: systemctl restart ferry-agent.'));
  }
  return checks;
}

const NOVA_CONF_HINT = 'Then restart nova-compute (docs/nova-conf.md, "Options the nova patch adds").';

export function judgeNovaConf(nova: NovaConfFacts, socketPath: string): NodeCheck[] {
  if ('unreadable' in nova) {
    return [fail('nova_conf', 'FERRY_INVALID_CONFIG', `cannot read ${nova.unreadable.path}: ${nova.unreadable.reason}`,
      'Run ferry doctor as root, or name nova-compute\'s files with --nova-conf (in its order).')];
  }
  const option = (name: string): string => (nova.libvirt[name] ?? '').trim();
  const where = `(${nova.files.join(', ')})`;
  const checks = [ok('nova_conf', `read ${nova.files.join(', ')}`)];
  const imagesType = option('images_type') || 'default';
  checks.push(imagesType === 'rbd' ? ok('nova_conf.images_type', 'rbd')
    : /(^|,)\s*[^:,]+:\s*rbd\s*(,|$)/.test(option('images_type_mapping')) ? ok('nova_conf.images_type', `${imagesType}, rbd by images_type_mapping`)
      : fail('nova_conf.images_type', 'FERRY_INVALID_CONFIG', `[libvirt] images_type is ${imagesType} ${where}: nova puts no disk in Ceph, so it never asks the agent`,
        `Set [libvirt] images_type = rbd on a Ceph compute node. ${NOVA_CONF_HINT}`));
  const store = option('images_rbd_glance_store_name');
  checks.push(store !== '' ? ok('nova_conf.store', `images_rbd_glance_store_name = ${store}`)
    : fail('nova_conf.store', 'FERRY_INVALID_CONFIG', `[libvirt] images_rbd_glance_store_name is not set ${where}: nova copies nothing into this cluster's store and never asks the agent`,
      `Set it to the Glance store of this node's Ceph cluster (ferry stores lists them). ${NOVA_CONF_HINT}`));
  const asked = option('images_rbd_ferry_agent_socket');
  checks.push(asked === '' ? fail('nova_conf.agent_socket', 'FERRY_INVALID_CONFIG', `[libvirt] images_rbd_ferry_agent_socket is not set ${where}: nova runs its stock copy, without ferry`,
    `Set [libvirt] images_rbd_ferry_agent_socket = ${socketPath}. ${NOVA_CONF_HINT}`)
    : asked !== socketPath ? fail('nova_conf.agent_socket', 'FERRY_INVALID_CONFIG', `nova asks the agent at ${asked}, but it listens at ${socketPath}`,
      `Make them one path: [libvirt] images_rbd_ferry_agent_socket, or --agent. ${NOVA_CONF_HINT}`)
      : ok('nova_conf.agent_socket', `images_rbd_ferry_agent_socket = ${asked}`));
  const timeout = option('images_rbd_glance_copy_timeout');
  if (timeout === '0') {
    checks.push(warn('nova_conf.copy_timeout', '[libvirt] images_rbd_glance_copy_timeout = 0: no deadline, so a boot may wait for a copy as long as the agent\'s own (read from this option: 24 h)',
      'Give it the seconds a copy may take (default 600; docs/nova-conf.md).'));
  } else if (timeout !== '' && !/^-?\d+$/.test(timeout)) {
    checks.push(fail('nova_conf.copy_timeout', 'FERRY_INVALID_CONFIG', `[libvirt] images_rbd_glance_copy_timeout = ${timeout} is not an integer: nova-compute will not start`,
      'Give it a number of seconds.'));
  }
  return checks;
}

export function judgeNovaPatch(patch: NovaIntegrationCheck | 'none'): NodeCheck {
  const check = 'ferry-nova-patch check (/usr/lib/ferry/integrations/nova/ferry-nova-patch) says whether nova\'s files carry the patch.';
  if (patch === 'none') return warn('nova_patch', 'no record of the nova patch on this node (/var/lib/ferry/nova-integration.json): the package does not keep nova patched here', check);
  if (!patch.ok) return fail('nova_patch', knownCode(patch.code, 'FERRY_NOVA_INTEGRATION'), patch.message, 'docs/install.md, "The nova patch across python3-nova upgrades".');
  if (patch.state === 'applied') return ok('nova_patch', `applied${patch.at === undefined ? '' : ` (${patch.at})`}${patch.nova_compute === undefined ? '' : ', nova-compute runs it'}`);
  if (patch.state === 'off') return warn('nova_patch', 'the package does not keep nova patched (FERRY_NOVA_PATCH=no in /etc/default/ferry-agent)', check);
  return warn('nova_patch', 'nova is not installed on this node', 'On a compute node install nova-compute first; a site controller needs no patch.');
}

/** Every check, in the order a fix would take them: the socket, the agent, nova's config, the patch. Pure. */
export function judgeNode(facts: NodeFacts): NodeVerdict {
  // No socket there: the agent's "does not answer" would only say it again.
  const noSocket = facts.socket.stat?.isSocket === false || (facts.socket.stat === undefined && (facts.socket.error ?? 'ENOENT') === 'ENOENT');
  const checks = [
    ...judgeSocket(facts.socket, facts.socketGroup),
    ...(noSocket ? [] : judgeAgent(facts.agent, facts.version)),
    ...(facts.nova === undefined ? [] : judgeNovaConf(facts.nova, facts.socket.path)),
    ...(facts.novaPatch === undefined ? [] : [judgeNovaPatch(facts.novaPatch)]),
  ];
  const first = checks.find((check) => check.status === 'fail');
  return { ok: first === undefined, code: first?.code ?? null, checks };
}
