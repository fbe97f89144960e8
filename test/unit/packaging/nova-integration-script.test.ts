// debian/ferry-nova-integration, the package's keeper of the nova patch, run as postinst and the dpkg trigger
// run it, on a nova made of fixtures/nova's 26.2.2 files: what FERRY_NOVA_PATCH values it reads as yes and no (as
// /etc/default/ferry-agent documents them), and `revert`, which the package's prerm runs at remove.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const root = process.cwd();
const script = join(root, 'debian/ferry-nova-integration');
let dir = '';

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

function run(action: string, defaults: string): { code: number; stderr: string; state: { state: string; detail: string } } {
  writeFileSync(join(dir, 'ferry-agent'), defaults);
  const result = spawnSync('sh', [script, action], { encoding: 'utf8', timeout: 30_000, env: {
    PATH: process.env.PATH, FERRY_DEFAULTS: join(dir, 'ferry-agent'), FERRY_STATE_DIR: join(dir, 'state'), FERRY_NOVA_DIR: join(dir, 'site'),
    FERRY_NODE: process.execPath, FERRY_NOVA_PATCHER: join(root, 'integrations/nova/ferry-nova-patch') } });
  let state = { state: 'none', detail: '' };
  try {
    state = JSON.parse(readFileSync(join(dir, 'state/nova-integration.json'), 'utf8')) as typeof state;
  } catch { /* no state written */ }
  return { code: result.status ?? -1, stderr: result.stderr, state };
}

const patched = (): boolean => readFileSync(join(dir, 'site/nova/virt/libvirt/imagebackend.py'), 'utf8').includes('import ferry_agent');

describe('debian/ferry-nova-integration', () => {
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
});
