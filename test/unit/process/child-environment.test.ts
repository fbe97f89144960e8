import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemdNotifier } from '../../../src/agent/service-notifier.js';
import { silentLogger } from '../../../src/logging/logger.js';
import { askClusterFsid } from '../../../src/rbd/cluster-fsid.js';
import { CHILD_ENVIRONMENT_NAMES, childEnvironment, DEFAULT_CHILD_PATH } from '../../../src/process/child-environment.js';
import { execFileRunner } from '../../../src/rbd/command-runner.js';
import { LibrbdUnavailableError, startLibrbdCopy } from '../../../src/rbd/librbd-copy.js';
import { hashRbdSnapshot, pipeRbdDiff } from '../../../src/rbd/rbd-streams.js';

// What every child ferry starts is given: the allowlist itself (childEnvironment), each spawn site of src/ running a
// stand-in program that writes down its environment, working directory and arguments while ferry's own environment
// holds a password, a token and Python's variables, and a look at src/ for a spawn site that does not use it.

const dir = mkdtempSync(join(tmpdir(), 'ferry-child-env-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRETS = {
  OS_PASSWORD: 'hunter2', OS_AUTH_TOKEN: 'gAAAA-token', OS_APPLICATION_CREDENTIAL_SECRET: 'appcred',
  FERRY_GLANCE_TOKEN: 'ferry-token', PYTHONPATH: join(dir, 'planted'), PYTHONSTARTUP: join(dir, 'planted', 'start.py'),
  NOTIFY_SOCKET: '/run/systemd/notify',
};
beforeEach(() => {
  for (const [name, value] of Object.entries(SECRETS)) vi.stubEnv(name, value);
  vi.stubEnv('LANG', 'C.UTF-8');
  vi.stubEnv('LC_TIME', 'C');
});
afterEach(() => { vi.unstubAllEnvs(); });

interface Dump { readonly env: Readonly<Record<string, string>>; readonly cwd: string; readonly argv: readonly string[] }

/** A program that writes its environment to DIR/NAME.<pid>.json, then runs `then` (Node, with `args`). */
function dumping(name: string, then = ''): string {
  const file = join(dir, name);
  writeFileSync(file, `#!${process.execPath}
const args = process.argv.slice(2);
require('node:fs').writeFileSync(${JSON.stringify(join(dir, name))} + '.' + process.pid + '.json',
  JSON.stringify({ env: process.env, cwd: process.cwd(), argv: args }));
${then}
`);
  chmodSync(file, 0o755);
  return file;
}

function dumps(name: string): Dump[] {
  return readdirSync(dir).filter((file) => file.startsWith(`${name}.`) && file.endsWith('.json'))
    .map((file) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as Dump);
}

/** No secret, no Python variable, no systemd socket; PATH and the locale as ferry has them. */
function expectClean(dump: Dump | undefined): void {
  expect(dump).toBeDefined();
  const env = dump?.env ?? {};
  expect(Object.keys(env).filter((name) => /^(OS_|FERRY_|PYTHON|NOTIFY_SOCKET$)/.test(name))).toEqual([]);
  expect({ PATH: env.PATH, LANG: env.LANG, LC_TIME: env.LC_TIME }).toEqual({ PATH: process.env.PATH, LANG: 'C.UTF-8', LC_TIME: 'C' });
}

describe('childEnvironment', () => {
  it.each<{ name: string; parent: Record<string, string | undefined>; expected: Record<string, string> }>([
    { name: 'keeps what programs need: PATH, HOME, the locale, TZ, TMPDIR, Ceph\'s own variables',
      parent: { PATH: '/usr/bin:/bin', HOME: '/var/lib/ferry', LANG: 'de_DE.UTF-8', LANGUAGE: 'de', LC_ALL: 'C.UTF-8', LC_MESSAGES: 'C',
        TZ: 'UTC', TMPDIR: '/var/tmp', CEPH_ARGS: '--id nova', CEPH_CONF: '/etc/ceph/site-b.conf' },
      expected: { PATH: '/usr/bin:/bin', HOME: '/var/lib/ferry', LANG: 'de_DE.UTF-8', LANGUAGE: 'de', LC_ALL: 'C.UTF-8', LC_MESSAGES: 'C',
        TZ: 'UTC', TMPDIR: '/var/tmp', CEPH_ARGS: '--id nova', CEPH_CONF: '/etc/ceph/site-b.conf' } },
    { name: 'drops credentials, ferry\'s settings, what changes what a child loads, and systemd\'s variables for ferry',
      parent: { PATH: '/bin', OS_PASSWORD: 'p', OS_AUTH_TOKEN: 't', OS_APPLICATION_CREDENTIAL_SECRET: 's', OS_CLOUD: 'c', FERRY_RBD_PYTHON: '/x',
        PYTHONPATH: '/tmp', PYTHONSTARTUP: '/tmp/s.py', PYTHONHOME: '/tmp', LD_PRELOAD: '/tmp/x.so', LD_LIBRARY_PATH: '/tmp', NODE_OPTIONS: '--require /tmp/x',
        NOTIFY_SOCKET: '/run/systemd/notify', LISTEN_FDS: '1', LISTEN_PID: '7', INVOCATION_ID: 'i', SSH_AUTH_SOCK: '/tmp/agent', http_proxy: 'http://u:p@proxy' },
      expected: { PATH: '/bin' } },
    { name: 'a PATH of its own where ferry has none; unset values are left out', parent: { HOME: undefined, LANG: 'C' },
      expected: { PATH: DEFAULT_CHILD_PATH, LANG: 'C' } },
  ])('childEnvironment: $name', ({ parent, expected }) => {
    expect(childEnvironment(parent)).toEqual(expected);
  });

  it('childEnvironment: what a child is given on purpose is added (NOTIFY_SOCKET for systemd-notify alone)', () => {
    expect(childEnvironment({ PATH: '/bin', NOTIFY_SOCKET: '/run/a' }, { NOTIFY_SOCKET: '/run/b' })).toEqual({ PATH: '/bin', NOTIFY_SOCKET: '/run/b' });
    expect(CHILD_ENVIRONMENT_NAMES).not.toContain('NOTIFY_SOCKET');
  });
});

/** A module of src/ that starts processes and never builds their environment with childEnvironment(). */
function spawnsWithoutChildEnvironment(source: string): boolean {
  return /from 'node:child_process'/.test(source) && /\b(spawn|execFile|exec|fork|spawnSync|execFileSync|execSync)\(/.test(source)
    && !/\bchildEnvironment\(/.test(source);
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory()
    ? sourceFiles(join(folder, entry.name)) : entry.name.endsWith('.ts') ? [join(folder, entry.name)] : []));
}

describe('every spawn site of src/', () => {
  it('children: every module of src/ that starts a process gives it childEnvironment()', () => {
    const spawning = sourceFiles('src').filter((file) => /from 'node:child_process'/.test(readFileSync(file, 'utf8')));
    expect(spawning.length).toBeGreaterThanOrEqual(4);
    expect(spawning.filter((file) => spawnsWithoutChildEnvironment(readFileSync(file, 'utf8')))).toEqual([]);
  });

  it('children: the look at src/ sees a module that spawns with ferry\'s whole environment', () => {
    expect(spawnsWithoutChildEnvironment("import { spawn } from 'node:child_process';\nspawn('rbd', ['ls']);\n")).toBe(true);
    expect(spawnsWithoutChildEnvironment("import { spawn } from 'node:child_process';\nspawn('rbd', ['ls'], { env: childEnvironment() });\n")).toBe(false);
  });
});

describe('the environment of every child ferry starts', () => {
  it('execFileRunner (rbd and ceph commands, virsh): no secrets', async () => {
    const program = dumping('runner');
    expect(await execFileRunner.run(program, [], { timeoutMs: 10_000 })).toMatchObject({ outcome: 'exited', exitCode: 0 });
    expectClean(dumps('runner')[0]);
  });

  it('pipeRbdDiff (rbd export-diff | rbd import-diff) and hashRbdSnapshot (rbd export): no secrets', async () => {
    const rbd = dumping('rbd', "if (args.includes('import-diff')) process.stdin.resume();");
    const cli = { confFile: '/etc/ceph/ceph.conf', rbdBinary: rbd };
    const signal = new AbortController().signal;
    await pipeRbdDiff(cli, { pool: 'images', image: 'a', snapshot: 'snap' }, cli, { pool: 'images', image: 'b' }, signal);
    await hashRbdSnapshot(cli, { pool: 'images', image: 'b', snapshot: 'snap' }, 'sha512', signal);
    const seen = dumps('rbd');
    expect(seen.map((dump) => dump.argv.find((arg) => /^(export|export-diff|import-diff)$/.test(arg))).sort()).toEqual(['export', 'export-diff', 'import-diff']);
    for (const dump of seen) expectClean(dump);
  });

  it('the librbd copy\'s python: no secrets, isolated (-I), from /', async () => {
    const python = dumping('python-copy', "console.log(JSON.stringify({ event: 'unavailable', message: 'stand-in' })); process.exit(3);");
    const copy = startLibrbdCopy({
      source: { confFile: 'a.conf', user: undefined, pool: 'images', image: 'IMG', snapshot: 'snap' },
      targets: [{ confFile: 'b.conf', user: undefined, pool: 'images', image: 'IMG.ferry-partial' }], targetSnapshot: 'snap',
      algorithm: 'sha512', objectSize: 4 << 20, writer: { key: 'ferry.writer', value: 'h:1' }, signal: new AbortController().signal, python,
    });
    await expect(copy.copied).rejects.toBeInstanceOf(LibrbdUnavailableError);
    await copy.close();
    const [dump] = dumps('python-copy');
    expectClean(dump);
    expect({ cwd: dump?.cwd, first: dump?.argv[0] }).toEqual({ cwd: '/', first: '-I' });
  });

  it('the cluster fsid\'s python: no secrets, isolated (-I), from /, with the conf as an absolute path', async () => {
    const python = dumping('python-fsid', "console.log('8830a20e-1ce9-4ad6-ad31-c6dc7a269792');");
    await expect(askClusterFsid({ confFile: 'site-b.conf', user: 'nova', python })).resolves.toBe('8830a20e-1ce9-4ad6-ad31-c6dc7a269792');
    const [dump] = dumps('python-fsid');
    expectClean(dump);
    expect({ cwd: dump?.cwd, first: dump?.argv[0], conf: dump?.argv.at(-3) }).toEqual({ cwd: '/', first: '-I', conf: join(process.cwd(), 'site-b.conf') });
  });

  it('systemd-notify: NOTIFY_SOCKET and no secrets', async () => {
    const notify = dumping('notify');
    const env: Record<string, string | undefined> = { ...process.env };
    await systemdNotifier(silentLogger, env, { command: notify }).notify('READY=1');
    const [dump] = dumps('notify');
    const { NOTIFY_SOCKET: socket, ...others } = dump?.env ?? {};
    expect(socket).toBe('/run/systemd/notify');
    expectClean({ env: others, cwd: dump?.cwd ?? '', argv: [] });
  });
});
