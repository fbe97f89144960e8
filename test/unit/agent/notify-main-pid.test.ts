// The unit's NotifyAccess=main: sd_notify messages must come from the agent's own PID. bin/ferry-notify-exec (python3)
// connects a datagram socket to NOTIFY_SOCKET and execs the agent with it (FERRY_NOTIFY_FD); the agent's notifier writes
// each message to that fd. Here a real AF_UNIX datagram receiver with SO_PASSCRED, as systemd's notify socket is, reads
// the sender's PID the kernel stamped. Under systemd itself: test/integration/systemd/agent-unit.test.ts.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { systemdNotifier } from '../../../src/agent/service-notifier.js';
import { createLogger } from '../../../src/logging/logger.js';

const wrapper = join(process.cwd(), 'bin/ferry-notify-exec');
const RECEIVER = `
import json, socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
s.bind(sys.argv[1])
print("ready", flush=True)
s.settimeout(20)
data, ancillary, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(12))
pid = [struct.unpack("iII", d)[0] for (level, kind, d) in ancillary if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS]
print(json.dumps({"pid": pid[0] if pid else None, "data": data.decode()}), flush=True)
`;

let dir = '';
afterEach(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
  dir = '';
});

function logged(): { logger: ReturnType<typeof createLogger>; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger({ level: 'warn', journald: false,
    destination: new Writable({ write(chunk: Buffer, _encoding, done) { lines.push(chunk.toString()); done(); } }) });
  return { logger, lines };
}

/** A datagram socket at PATH like systemd's notify socket, once bound: `message` is the first one and its sender's PID. */
async function receiver(path: string): Promise<{ message: Promise<{ pid: number; data: string }> }> {
  const child = spawn('python3', ['-I', '-c', RECEIVER, path], { stdio: ['ignore', 'pipe', 'inherit'], timeout: RECEIVER_MS });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  expect((await lines.next()).value).toBe('ready');
  return { message: lines.next().then(({ value }) => JSON.parse(String(value)) as { pid: number; data: string }) };
}

/** The receiver lives as long as the test that starts it may run; the wrapper runs node inside it in 20 s at most. */
const RECEIVER_MS = 30_000;
const NOTIFY_RUN_MS = 20_000;
/** One run of the wrapper on a program that exits at once (four a test). */
const WRAPPER_MS = 10_000;

describe('bin/ferry-notify-exec + FERRY_NOTIFY_FD: the agent sends its own sd_notify messages', () => {
  it('the exec\'ed program keeps the PID and its write arrives stamped with it; NOTIFY_SOCKET is gone from its environment', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ferry-notify-'));
    const socket = join(dir, 'notify');
    const received = await receiver(socket);
    const program = "const fs = require('node:fs'); fs.writeSync(Number(process.env.FERRY_NOTIFY_FD), 'READY=1\\nSTATUS=answering');"
      + ' console.log(JSON.stringify({ pid: process.pid, notifySocket: process.env.NOTIFY_SOCKET ?? null }));';
    const child = spawnSync('python3', ['-IS', wrapper, process.execPath, '-e', program], {
      encoding: 'utf8', env: { PATH: process.env.PATH, NOTIFY_SOCKET: socket }, timeout: NOTIFY_RUN_MS,
    });
    expect(child.status, child.stderr).toBe(0);
    const ran = JSON.parse(child.stdout) as { pid: number; notifySocket: string | null };
    expect(ran.notifySocket).toBeNull();
    // The sender is the process systemd started (python3, then node by exec): the unit's main PID.
    expect(child.pid).toBe(ran.pid);
    expect(await received.message).toEqual({ pid: ran.pid, data: 'READY=1\nSTATUS=answering' });
  }, RECEIVER_MS);

  it('without NOTIFY_SOCKET it runs the program as it is; a socket it cannot reach, or a bad command line, is one line', () => {
    const plain = spawnSync('python3', ['-IS', wrapper, '/bin/sh', '-c', 'echo "${FERRY_NOTIFY_FD-none}"'], { encoding: 'utf8', timeout: WRAPPER_MS, env: { PATH: '/usr/bin:/bin' } });
    expect([plain.status, plain.stdout]).toEqual([0, 'none\n']);
    const absent = spawnSync('python3', ['-IS', wrapper, '/bin/true'], { encoding: 'utf8', timeout: WRAPPER_MS, env: { NOTIFY_SOCKET: '/nonexistent/notify' } });
    expect([absent.status, absent.stderr]).toEqual([1, 'ferry-notify-exec: cannot connect to NOTIFY_SOCKET /nonexistent/notify: No such file or directory\n']);
    const usage = spawnSync('python3', ['-IS', wrapper, 'ferry'], { encoding: 'utf8', timeout: WRAPPER_MS });
    expect(usage.status).toBe(2);
    const missing = spawnSync('python3', ['-IS', wrapper, '/nonexistent/ferry'], { encoding: 'utf8', timeout: WRAPPER_MS, env: {} });
    expect([missing.status, missing.stderr]).toEqual([127, 'ferry-notify-exec: cannot run /nonexistent/ferry: No such file or directory\n']);
  }, 4 * WRAPPER_MS);

  it('the notifier writes each message to FERRY_NOTIFY_FD in order, takes both variables out, and never runs systemd-notify', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ferry-notify-'));
    const file = join(dir, 'sent');
    const fd = openSync(file, 'w');
    const env: Record<string, string | undefined> = { FERRY_NOTIFY_FD: String(fd), NOTIFY_SOCKET: '/run/systemd/notify' };
    const { logger, lines } = logged();
    const notifier = systemdNotifier(logger, env, { command: '/nonexistent/systemd-notify' });
    expect(env).toEqual({});
    expect(notifier.enabled).toBe(true);
    await notifier.notify('READY=1', 'STATUS=answering');
    await notifier.notify('STOPPING=1');
    closeSync(fd);
    expect(readFileSync(file, 'utf8')).toBe('READY=1\nSTATUS=answeringSTOPPING=1');
    expect(lines).toEqual([]);
  });

  it('a write that fails (a closed fd) is a warning, never a throw', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ferry-notify-'));
    const fd = openSync(join(dir, 'sent'), 'w');
    closeSync(fd);
    const { logger, lines } = logged();
    await systemdNotifier(logger, { FERRY_NOTIFY_FD: String(fd) }).notify('READY=1');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ level: 40, msg: 'could not notify systemd', assignments: ['READY=1'] });
  });
});
