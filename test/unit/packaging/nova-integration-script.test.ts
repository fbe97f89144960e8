// debian/ferry-nova-integration, the package's keeper of the nova patch, run as postinst and the dpkg trigger
// run it, on a nova made of fixtures/nova's 26.2.2 files: what FERRY_NOVA_PATCH values it reads as yes and no (as
// /etc/default/ferry-agent documents them), `revert`, which the package's prerm runs at remove, and `check-running`
// (ferry-nova-check.timer) against a real process named nova-compute.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ENSURE_PATCH_MS, ensurePatchProgram } from '../../helpers/nova-site.js';

// It patches with patch(1), which a fresh Debian 12 lacks (test/helpers/nova-site.ts).
beforeAll(ensurePatchProgram, ENSURE_PATCH_MS);

const root = process.cwd();
const script = join(root, 'debian/ferry-nova-integration');
let dir = '';
/** One run of the script (it patches or reverts a nova with patch(1)). */
const SCRIPT_MS = 30_000;
/** A test's limit: up to three runs (revert's test), or one check beside a stand-in nova-compute that lives this long. */
const TEST_MS = 3 * SCRIPT_MS;

/** A nova 26.2.2 package directory the patcher recognises (its egg-info names the version). */
function makeNova(): string {
  const nova = join(dir, 'site');
  mkdirSync(join(nova, 'nova/virt/libvirt'), { recursive: true });
  mkdirSync(join(nova, 'nova/conf'), { recursive: true });
  mkdirSync(join(nova, 'nova-26.2.2.egg-info'));
  writeFileSync(join(nova, 'nova-26.2.2.egg-info/PKG-INFO'), 'Metadata-Version: 1.2\nName: nova\nVersion: 26.2.2\n');
  copyFileSync(join(root, 'fixtures/nova/imagebackend-26.2.2.py'), join(nova, 'nova/virt/libvirt/imagebackend.py'));
  copyFileSync(join(root, 'fixtures/nova/conf-libvirt-26.2.2.py'), join(nova, 'nova/conf/libvirt.py'));
  return nova;
}

function run(action: string, defaults: string, env: Record<string, string> = {}): { code: number; stderr: string; state: { state: string; detail: string } } {
  writeFileSync(join(dir, 'ferry-agent'), defaults);
  const result = spawnSync('sh', [script, action], { encoding: 'utf8', timeout: SCRIPT_MS, env: {
    PATH: process.env.PATH, FERRY_DEFAULTS: join(dir, 'ferry-agent'), FERRY_STATE_DIR: join(dir, 'state'), FERRY_NOVA_DIR: join(dir, 'site'),
    FERRY_NOVA_PATCHER: join(root, 'integrations/nova/ferry-nova-patch'), ...env } });
  let state = { state: 'none', detail: '' };
  try {
    state = JSON.parse(readFileSync(join(dir, 'state/nova-integration.json'), 'utf8')) as typeof state;
  } catch { /* no state written */ }
  return { code: result.status ?? -1, stderr: result.stderr, state };
}

const patched = (): boolean => readFileSync(join(dir, 'site/nova/virt/libvirt/imagebackend.py'), 'utf8').includes('import ferry_agent');

describe('debian/ferry-nova-integration', { timeout: TEST_MS }, () => {
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ferry-nova-integration-'));
    makeNova();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it.each(['yes', '1', 'true', 'on', 'YES', '"yes"', "'1'"])(
    'FERRY_NOVA_PATCH=%s applies the patch', (value) => {
      const result = run('sync', `FERRY_AGENT_ARGS=\nFERRY_NOVA_PATCH=${value}\n`);
      expect(result.code, result.stderr).toBe(0);
      expect(result.state.state, result.state.detail).toBe('applied');
      expect(patched()).toBe(true);
    });

  it.each(['no', '0', 'false', 'off', '""'])('FERRY_NOVA_PATCH=%s leaves nova alone', (value) => {
    const result = run('sync', `FERRY_NOVA_PATCH=${value}\n`);
    expect(result.code, result.stderr).toBe(0);
    expect(result.state.state).toBe('off');
    expect(patched()).toBe(false);
  });

  it('a value that is neither yes nor no leaves nova alone and names the value and what it takes', () => {
    const result = run('sync', 'FERRY_NOVA_PATCH=maybe\n');
    expect(result.code).toBe(0);
    expect(result.state.state).toBe('off');
    expect(result.stderr).toContain('FERRY_NOVA_PATCH=maybe in');
    expect(result.stderr).toContain('write yes, true, on or 1 to keep nova patched');
    expect(patched()).toBe(false);
  });

  it('the last FERRY_NOVA_PATCH line wins, as in systemd\'s EnvironmentFile=', () => {
    expect(run('sync', 'FERRY_NOVA_PATCH=no\nFERRY_NOVA_PATCH=1\n').state.state).toBe('applied');
  });

  it('revert (prerm at remove) gives nova its own files back, whatever FERRY_NOVA_PATCH says; a pristine nova is left as it is', () => {
    const pristine = readFileSync(join(dir, 'site/nova/virt/libvirt/imagebackend.py'), 'utf8');
    expect(run('sync', 'FERRY_NOVA_PATCH=yes\n').state.state).toBe('applied');
    const result = run('revert', 'FERRY_NOVA_PATCH=no\n');
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(dir, 'site/nova/virt/libvirt/imagebackend.py'), 'utf8')).toBe(pristine);
    expect(result.state).toMatchObject({ state: 'off', detail: expect.stringContaining('reverted when ferry was removed') });
    expect(result.stderr).toContain('restart nova-compute');
    const again = run('revert', 'FERRY_NOVA_PATCH=yes\n');
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('');
  });

  it('needs no node (it runs at dpkg time): the state is JSON whatever the detail holds', () => {
    const result = run('sync', 'FERRY_NOVA_PATCH=ma"y\\be\n', { FERRY_NODE: '/nonexistent/node' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.state).toMatchObject({ state: 'off', detail: expect.stringContaining('FERRY_NOVA_PATCH=ma"y\\be in') as unknown });
  });
});

describe('debian/ferry-nova-integration check-running', { timeout: TEST_MS }, () => {
  let compute: ChildProcess | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ferry-nova-check-'));
    makeNova();
    // Stand-ins on PATH: no nova-compute.service here (MainPID 0), and getconf as the test wants it.
    mkdirSync(join(dir, 'stubs'));
    writeFileSync(join(dir, 'stubs/systemctl'), '#!/bin/sh\necho 0\n');
    chmodSync(join(dir, 'stubs/systemctl'), 0o755);
  });
  afterEach(() => {
    compute?.kill('SIGKILL');
    compute = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /** A process named nova-compute (a copy of sleep), of this test's user, alive as long as the test may run. */
  async function startCompute(): Promise<number> {
    copyFileSync('/bin/sleep', join(dir, 'nova-compute'));
    compute = spawn(join(dir, 'nova-compute'), ['120'], { stdio: 'ignore', timeout: TEST_MS });
    await sleep(150);
    return compute.pid!;
  }
  const user = (): string => spawnSync('id', ['-un'], { encoding: 'utf8', timeout: 10_000 }).stdout.trim();
  function check(env: Record<string, string> = {}): { stale: boolean; running: boolean; pid?: number; started_at?: string; code_changed_at?: string } {
    const result = spawnSync('sh', [script, 'check-running'], { encoding: 'utf8', timeout: SCRIPT_MS, env: {
      PATH: `${join(dir, 'stubs')}:${process.env.PATH ?? ''}`, FERRY_STATE_DIR: join(dir, 'state'), FERRY_NOVA_DIR: join(dir, 'site'),
      FERRY_NOVA_USER: user(), FERRY_NODE: '/nonexistent/node', ...env } });
    expect(result.status, result.stderr).toBe(0);
    return JSON.parse(readFileSync(join(dir, 'state/nova-compute.json'), 'utf8')) as ReturnType<typeof check>;
  }
  /** Where /proc says the process started, with `hz` ticks a second. */
  function startedAt(pid: number, hz: number): string {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const boot = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))![1]);
    return new Date(boot * 1000 + Math.floor(ticks * 1000 / hz)).toISOString();
  }

  it('nova\'s files unchanged since nova-compute started: running, not stale, its pid and start', async () => {
    const pid = await startCompute();
    expect(check()).toMatchObject({ running: true, stale: false, pid, started_at: startedAt(pid, 100) });
  });

  it('a python3-nova upgrade after nova-compute started is seen though dpkg gives the file the package\'s old mtime (the ctime counts)', async () => {
    await startCompute();
    await sleep(2_200);
    const file = join(dir, 'site/nova/virt/libvirt/imagebackend.py');
    writeFileSync(file, readFileSync(file, 'utf8'));
    const built = new Date('2024-03-01T00:00:00Z'); // dpkg unpacks with the mtime the file has in the .deb
    utimesSync(file, built, built);
    expect(check()).toMatchObject({ running: true, stale: true });
  });

  it('a process named nova-compute of another user is not nova\'s: not running', async () => {
    await startCompute();
    expect(check({ FERRY_NOVA_USER: 'daemon' })).toMatchObject({ running: false, stale: false });
  });

  it('the start time uses the kernel\'s clock ticks a second (getconf CLK_TCK), not 100', async () => {
    const pid = await startCompute();
    writeFileSync(join(dir, 'stubs/getconf'), '#!/bin/sh\n[ "$1" = CLK_TCK ] && echo 250\n');
    chmodSync(join(dir, 'stubs/getconf'), 0o755);
    expect(check()).toMatchObject({ running: true, pid, started_at: startedAt(pid, 250) });
  });
});
