import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { pathOfSocketInode } from '../../../src/agent/listen-on-socket.js';
import { systemdNotifier } from '../../../src/agent/service-notifier.js';
import { agentSocketFd, inheritedSockets, takeAgentSocketFd } from '../../../src/agent/systemd-activation.js';
import { createLogger, silentLogger } from '../../../src/logging/logger.js';

// What systemd hands the agent: the socket of ferry-agent.socket (LISTEN_PID/LISTEN_FDS/LISTEN_FDNAMES, sd_listen_fds(3))
// and the notify channel (NOTIFY_SOCKET, through systemd-notify). Run for real under systemd in
// test/integration/systemd.

describe('socket activation: which fd is the agent\'s', () => {
  it('the sockets passed to this PID start at fd 3, with their names', () => {
    expect(inheritedSockets({ LISTEN_PID: '42', LISTEN_FDS: '2', LISTEN_FDNAMES: 'agent:other' }, 42))
      .toEqual([{ fd: 3, name: 'agent' }, { fd: 4, name: 'other' }]);
    expect(inheritedSockets({ LISTEN_PID: '42', LISTEN_FDS: '1' }, 42)).toEqual([{ fd: 3, name: 'unknown' }]);
  });

  it('variables meant for another process (LISTEN_PID differs) or none at all: no socket, the agent binds its own', () => {
    expect(inheritedSockets({ LISTEN_PID: '41', LISTEN_FDS: '1' }, 42)).toEqual([]);
    expect(inheritedSockets({ LISTEN_FDS: '1' }, 42)).toEqual([]);
    expect(inheritedSockets({}, 42)).toEqual([]);
    expect(agentSocketFd([])).toBeUndefined();
  });

  it('LISTEN_FDS that is not a number is refused with the fix', () => {
    expect(() => inheritedSockets({ LISTEN_PID: '42', LISTEN_FDS: 'x' }, 42)).toThrow(expect.objectContaining({ code: 'FERRY_INVALID_OPTION' }));
  });

  it('one socket is taken whatever its name; of several, the one named agent; none or two named so is an error naming FileDescriptorName', () => {
    expect(agentSocketFd([{ fd: 3, name: 'ferry-agent.socket' }])).toBe(3);
    expect(agentSocketFd([{ fd: 3, name: 'metrics' }, { fd: 4, name: 'agent' }])).toBe(4);
    expect(() => agentSocketFd([{ fd: 3, name: 'a' }, { fd: 4, name: 'b' }]))
      .toThrow(expect.objectContaining({ code: 'FERRY_INVALID_OPTION', hint: expect.stringContaining('FileDescriptorName=agent') as unknown }));
    expect(() => agentSocketFd([{ fd: 3, name: 'agent' }, { fd: 4, name: 'agent' }])).toThrow(/more than one is named 'agent'/);
  });

  it('takeAgentSocketFd unsets the variables, so that the agent\'s children (ceph) do not take them as theirs', () => {
    const env: Record<string, string | undefined> = { LISTEN_PID: '7', LISTEN_FDS: '1', LISTEN_FDNAMES: 'agent', PATH: '/bin' };
    expect(takeAgentSocketFd(env, 7)).toBe(3);
    expect(env).toEqual({ PATH: '/bin' });
  });

  it('the path of a passed socket comes from /proc/net/unix by inode', () => {
    const table = 'Num       RefCount Protocol Flags    Type St Inode Path\n'
      + '0000000000000000: 00000002 00000000 00010000 0001 01 39812 /run/ceph/mon.asok\n'
      + '0000000000000000: 00000002 00000000 00010000 0001 01 51234 /run/ferry/agent.sock\n'
      + '0000000000000000: 00000003 00000000 00000000 0001 03 51240\n';
    expect(pathOfSocketInode(table, '51234')).toBe('/run/ferry/agent.sock');
    expect(pathOfSocketInode(table, '51240')).toBeUndefined();
    expect(pathOfSocketInode(table, '1')).toBeUndefined();
  });
});

describe('sd_notify through systemd-notify', () => {
  let dir = '';
  afterEach(() => {
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
    dir = '';
  });

  /** A stand-in for systemd-notify that appends "NOTIFY_SOCKET args…" to a file. */
  function fakeNotify(exitCode = 0): { command: string; sent: () => string[] } {
    dir = mkdtempSync(join(tmpdir(), 'ferry-notify-'));
    const out = join(dir, 'sent');
    const command = join(dir, 'systemd-notify');
    writeFileSync(command, `#!/bin/sh\necho "$NOTIFY_SOCKET $*" >>'${out}'\nexit ${exitCode}\n`);
    chmodSync(command, 0o755);
    return { command, sent: () => readFileSync(out, 'utf8').trim().split('\n') };
  }

  it('without NOTIFY_SOCKET (run by hand) nothing is sent', async () => {
    const notifier = systemdNotifier(silentLogger, {}, { command: '/nonexistent/systemd-notify' });
    expect(notifier.enabled).toBe(false);
    await notifier.notify('READY=1');
  });

  it('sends each message in order, with NOTIFY_SOCKET, which it takes out of the environment', async () => {
    const fake = fakeNotify();
    const env: Record<string, string | undefined> = { NOTIFY_SOCKET: '/run/systemd/notify', PATH: '/usr/bin:/bin' };
    const notifier = systemdNotifier(silentLogger, env, { command: fake.command });
    expect(env.NOTIFY_SOCKET).toBeUndefined();
    void notifier.notify('READY=1', 'STATUS=answering');
    void notifier.notify('RELOADING=1');
    await notifier.notify('STOPPING=1');
    expect(fake.sent()).toEqual(['/run/systemd/notify READY=1 STATUS=answering', '/run/systemd/notify RELOADING=1',
      '/run/systemd/notify STOPPING=1']);
  });

  it('a failing or missing systemd-notify is logged as a warning and never throws', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn', journald: false,
      destination: new Writable({ write(chunk: Buffer, _encoding, done) { lines.push(chunk.toString()); done(); } }) });
    const failing = fakeNotify(1);
    await systemdNotifier(logger, { NOTIFY_SOCKET: '/x' }, { command: failing.command }).notify('READY=1');
    await systemdNotifier(logger, { NOTIFY_SOCKET: '/x' }, { command: join(dir, 'missing') }).notify('READY=1');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ level: 40, msg: 'could not notify systemd', assignments: ['READY=1'] });
  });
});
