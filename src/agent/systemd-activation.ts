import { FerryError } from '../errors/ferry-error.js';

/** A socket systemd passed to this process (socket activation): its fd and its `FileDescriptorName=`. */
export interface InheritedSocket {
  readonly fd: number;
  readonly name: string;
}

/** sd_listen_fds(3): passed sockets start at fd 3. */
const SD_LISTEN_FDS_START = 3;

/** The name ferry-agent.socket gives the agent's socket (`FileDescriptorName=agent`). */
export const AGENT_FD_NAME = 'agent';

/** The variables systemd sets for socket activation; unset once read so that children do not take them as theirs. */
export const LISTEN_ENV = ['LISTEN_PID', 'LISTEN_FDS', 'LISTEN_FDNAMES'] as const;

/**
 * sd_listen_fds(3) without libsystemd: the sockets passed to process `pid`. None when LISTEN_PID names another process
 * (the variables were inherited from a parent that did not take them).
 */
export function inheritedSockets(env: Readonly<Record<string, string | undefined>>, pid: number): readonly InheritedSocket[] {
  const listenPid = env.LISTEN_PID;
  const listenFds = env.LISTEN_FDS;
  if (listenPid === undefined || listenFds === undefined) return [];
  if (!/^\d+$/.test(listenPid) || Number(listenPid) !== pid) return [];
  if (!/^\d+$/.test(listenFds)) {
    throw new FerryError('FERRY_INVALID_OPTION', `LISTEN_FDS is not a number: ${JSON.stringify(listenFds.slice(0, 40))}`,
      'Start the agent through ferry-agent.socket (systemd sets LISTEN_FDS), or unset LISTEN_PID/LISTEN_FDS.');
  }
  const names = env.LISTEN_FDNAMES?.split(':') ?? [];
  return Array.from({ length: Number(listenFds) }, (_, index) => ({ fd: SD_LISTEN_FDS_START + index, name: names[index] ?? 'unknown' }));
}

/**
 * The fd the agent listens on: the only socket passed, or the one named `agent` when several are. Undefined when
 * systemd passed none (run by hand: the agent binds --socket itself).
 */
export function agentSocketFd(sockets: readonly InheritedSocket[]): number | undefined {
  if (sockets.length === 0) return undefined;
  if (sockets.length === 1) return sockets[0]?.fd;
  const named = sockets.filter((socket) => socket.name === AGENT_FD_NAME);
  if (named.length === 1) return named[0]?.fd;
  throw new FerryError('FERRY_INVALID_OPTION',
    `systemd passed ${sockets.length} sockets (${sockets.map((socket) => socket.name).join(', ')}) and ${named.length === 0 ? 'none' : 'more than one'} is named '${AGENT_FD_NAME}'`,
    `Give the agent's ListenStream= FileDescriptorName=${AGENT_FD_NAME} in its .socket unit (packaging/systemd/ferry-agent.socket does).`,
    { names: sockets.map((socket) => socket.name) });
}

/** Read and unset (sd_listen_fds(unset_environment=1)) the activation variables of this process. */
export function takeAgentSocketFd(env: Record<string, string | undefined> = process.env, pid = process.pid): number | undefined {
  const fd = agentSocketFd(inheritedSockets(env, pid));
  for (const name of LISTEN_ENV) Reflect.deleteProperty(env, name);
  return fd;
}
