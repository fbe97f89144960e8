import { spawn } from 'node:child_process';
import { writeSync } from 'node:fs';
import type { Logger } from '../logging/logger.js';
import { childEnvironment } from '../process/child-environment.js';

/** sd_notify(3) messages to the service manager: READY=1, STOPPING=1, RELOADING=1, STATUS=…. */
export interface ServiceNotifier {
  /** True when a service manager listens (NOTIFY_SOCKET was set). */
  readonly enabled: boolean;
  /** Send the assignments in one message, after the ones sent before; never throws (a failure is logged). */
  notify(...assignments: readonly string[]): Promise<void>;
}

export interface NotifierOptions {
  /** The program that sends the datagram (default systemd-notify, from PATH). */
  readonly command?: string;
  /** Bound on each message (systemd-notify waits until systemd has read it). */
  readonly timeoutMs?: number;
}

/**
 * sd_notify(3) from this process. Node has no AF_UNIX datagram sockets, and the npm wrappers (sd-notify, unix-dgram)
 * are native addons that need a compiler and libsystemd headers on every compute node. Two ways, in this order:
 *
 * - FERRY_NOTIFY_FD: a datagram socket already connected to NOTIFY_SOCKET, inherited from bin/ferry-notify-exec (the
 *   unit's ExecStart runs the agent through it). Each message is one write to it, sent by this process — the unit's
 *   main PID, the only sender NotifyAccess=main accepts (the kernel stamps a datagram with its sender's PID).
 * - NOTIFY_SOCKET: systemd-notify(1), a child, for a unit that runs the agent directly (it needs NotifyAccess=all).
 *   Since systemd 246 it waits until the manager has processed the message (sd_notify_barrier), so the message is
 *   still attributed to the unit after the child is gone. A few messages per process lifetime, so a fork each is cheap.
 *
 * Both variables are taken out of `env`, so that other children (ceph, python3) never see them; systemd-notify gets
 * childEnvironment() plus NOTIFY_SOCKET (no secrets).
 */
export function systemdNotifier(logger: Logger, env: Record<string, string | undefined> = process.env, options: NotifierOptions = {}): ServiceNotifier {
  const socket = env.NOTIFY_SOCKET;
  const fd = env.FERRY_NOTIFY_FD;
  Reflect.deleteProperty(env, 'NOTIFY_SOCKET');
  Reflect.deleteProperty(env, 'FERRY_NOTIFY_FD');
  if (fd !== undefined && /^\d+$/.test(fd)) return inheritedSocketNotifier(logger, Number(fd));
  if (socket === undefined || socket === '') return { enabled: false, notify: () => Promise.resolve() };
  const command = options.command ?? 'systemd-notify';
  const timeoutMs = options.timeoutMs ?? 5_000;
  const childEnv = childEnvironment(env, { NOTIFY_SOCKET: socket });
  let queue = Promise.resolve();
  const send = (assignments: readonly string[]): Promise<void> => new Promise((resolve) => {
    const child = spawn(command, [...assignments], { env: childEnv, stdio: ['ignore', 'ignore', 'pipe'], timeout: timeoutMs });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk.slice(0, 500);
    });
    child.once('error', (error) => {
      logger.warn({ command, message: error.message, assignments }, 'could not notify systemd');
      resolve();
    });
    child.once('close', (code, signal) => {
      if (code !== 0) logger.warn({ command, code, signal, stderr: stderr.trim(), assignments }, 'could not notify systemd');
      else logger.debug({ assignments }, 'notified systemd');
      resolve();
    });
  });
  return {
    enabled: true,
    notify(...assignments) {
      queue = queue.then(() => send(assignments));
      return queue;
    },
  };
}

/** One write per message to the connected socket of bin/ferry-notify-exec: synchronous, so the order is kept. */
function inheritedSocketNotifier(logger: Logger, fd: number): ServiceNotifier {
  return {
    enabled: true,
    notify(...assignments) {
      try {
        writeSync(fd, assignments.join('\n'));
        logger.debug({ assignments }, 'notified systemd');
      } catch (error) {
        logger.warn({ fd, message: (error as Error).message, assignments }, 'could not notify systemd');
      }
      return Promise.resolve();
    },
  };
}
