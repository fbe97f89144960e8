import { chmodSync, chownSync, lstatSync, mkdirSync, readFileSync, readlinkSync, unlinkSync } from 'node:fs';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import { FerryError } from '../errors/ferry-error.js';

export interface SocketListenOptions {
  readonly mode: number;
  /** Group name that gets the socket (e.g. `nova`); undefined: the agent's own group. */
  readonly group?: string | undefined;
  /** How long a probe of an existing socket may take before it counts as stale. */
  readonly probeTimeoutMs?: number;
}

/** The socket the agent listens on. Its own file is removed at shutdown only if it is still that file; systemd's never. */
export interface BoundSocket {
  readonly path: string;
  /** True when systemd passed the socket (ferry-agent.socket): it belongs to systemd and outlives the agent. */
  readonly inherited: boolean;
  remove(): void;
}

/**
 * Listen on a socket systemd passed (socket activation, fd 3…). systemd made it (path, mode, owner, group from the
 * .socket unit) and keeps it open across restarts: connections made while no agent runs wait in its backlog. So the
 * agent neither changes nor removes it.
 */
export async function listenOnInheritedSocket(server: Server, fd: number): Promise<BoundSocket> {
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      reject(new FerryError('FERRY_INVALID_OPTION', `cannot listen on the socket systemd passed (fd ${fd}): ${error.message}`,
        'ferry-agent.socket must have one ListenStream= on a Unix socket path (packaging/systemd/ferry-agent.socket).',
        { fd, errno: error.code }, { cause: error }));
    };
    server.once('error', onError);
    server.listen({ fd }, () => {
      server.off('error', onError);
      resolve();
    });
  });
  return { path: unixSocketPathOf(fd) ?? `fd ${fd}`, inherited: true, remove() {} };
}

/**
 * The path a Unix socket fd of this process is bound to (Node knows it only for sockets it bound itself). Read from
 * /proc/self/net/unix, not /proc/net/unix: the unit's ProcSubset=pid hides /proc's top-level files, not the process's own.
 */
function unixSocketPathOf(fd: number): string | undefined {
  try {
    const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`))?.[1];
    return inode === undefined ? undefined : pathOfSocketInode(readFileSync('/proc/self/net/unix', 'utf8'), inode);
  } catch {
    return undefined;
  }
}

/** Pure: the path of the socket with `inode` in /proc/net/unix (columns: Num RefCount Protocol Flags Type St Inode Path). */
export function pathOfSocketInode(procNetUnix: string, inode: string): string | undefined {
  for (const line of procNetUnix.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields[6] === inode && fields[7] !== undefined) return fields.slice(7).join(' ');
  }
  return undefined;
}

/**
 * Listen on a Unix socket with `mode` from the first moment (umask, then chmod), owned by `group`. A socket file left
 * by a crash (nothing accepts on it) is replaced; a live agent on it is not (FERRY_AGENT_SOCKET_IN_USE); a path that
 * is not a socket is never removed.
 */
export async function listenOnSocket(server: Server, path: string, options: SocketListenOptions): Promise<BoundSocket> {
  const gid = options.group === undefined ? undefined : groupId(options.group);
  mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
  const existing = lstatOrUndefined(path);
  if (existing !== undefined) {
    if (!existing.isSocket()) {
      throw new FerryError('FERRY_INVALID_OPTION', `${path} exists and is not a socket`,
        'Point --socket at another path, or remove that file if it is not needed.', { socketPath: path });
    }
    if (await answers(path, options.probeTimeoutMs ?? 1_000)) {
      throw new FerryError('FERRY_AGENT_SOCKET_IN_USE', `another ferry agent already answers on ${path}`,
        'Stop it first (systemctl stop ferry-agent), or give this one another --socket.', { socketPath: path });
    }
    unlinkSync(path);
  }
  // No window where the socket is reachable with the default mode: bind under a umask, then set mode and group.
  const previousUmask = process.umask(0o777 & ~options.mode);
  try {
    await new Promise<void>((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException): void => {
        reject(new FerryError('FERRY_INVALID_OPTION', `cannot listen on ${path}: ${error.message}`,
          'Check that the directory exists and is writable by the agent (systemd: RuntimeDirectory=ferry).',
          { socketPath: path, errno: error.code }, { cause: error }));
      };
      server.once('error', onError);
      server.listen(path, () => {
        server.off('error', onError);
        resolve();
      });
    });
  } finally {
    process.umask(previousUmask);
  }
  chmodSync(path, options.mode);
  if (gid !== undefined) chownSync(path, -1, gid);
  const ino = lstatSync(path).ino;
  return {
    path,
    inherited: false,
    remove() {
      const now = lstatOrUndefined(path);
      if (now?.isSocket() === true && now.ino === ino) unlinkSync(path);
    },
  };
}

function lstatOrUndefined(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** True when something accepts connections on the socket. */
export function answers(path: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    const done = (result: boolean): void => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** getgrnam(3) for a process that has no binding to it: /etc/group. */
function groupId(name: string): number {
  const text = readFileSync('/etc/group', 'utf8');
  for (const line of text.split('\n')) {
    const [group, , gid] = line.split(':');
    if (group === name && gid !== undefined && /^\d+$/.test(gid)) return Number(gid);
  }
  throw new FerryError('FERRY_INVALID_OPTION', `no group named '${name}' in /etc/group (from --socket-group)`,
    'Give an existing group, e.g. the group nova-compute runs as (nova).', { socketGroup: name });
}
