// integrations/kolla: kolla's config merge (kolla_merge_configs.py, kolla-ansible's merge_configs rules) and the
// config.json lay-out of the kolla_start contract (kolla_set_configs.py), run by Debian's python3 on temporary files.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const root = process.cwd();
const MERGE = join(root, 'integrations/kolla/kolla_merge_configs.py');
const SET_CONFIGS = join(root, 'integrations/kolla/kolla_set_configs.py');
/** One Python run on a few small files. */
const RUN_MS = 10_000;
let dir = '';

function merge(sources: readonly (string | null)[]): { code: number; stderr: string; out: string } {
  const paths = sources.map((text, index) => {
    const path = join(dir, `source-${index}.conf`);
    if (text !== null) writeFileSync(path, text);
    return path;
  });
  const dest = join(dir, 'nova.conf');
  const run = spawnSync('/usr/bin/python3', ['-I', MERGE, dest, ...paths], { encoding: 'utf8', timeout: RUN_MS });
  let out = '';
  try { out = readFileSync(dest, 'utf8'); } catch { /* not written */ }
  return { code: run.status ?? -1, stderr: run.stderr, out };
}

describe('kolla_merge_configs.py', { timeout: RUN_MS * 2 }, () => {
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'ferry-kolla-merge-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    { name: 'a later file overrides an option, sections add up', sources: ['[libvirt]\nimages_type = rbd\nrbd_user = nova\n', '[libvirt]\nrbd_user = cinder\n[glance]\napi_servers = http://g\n'],
      out: '[libvirt]\nimages_type = rbd\nrbd_user = cinder\n\n[glance]\napi_servers = http://g\n' },
    { name: 'a missing file is skipped (an operator file not written)', sources: ['[libvirt]\nimages_type = rbd\n', null, '[libvirt]\nimages_rbd_ferry_agent_socket = /run/ferry/agent.sock\n'],
      out: '[libvirt]\nimages_type = rbd\nimages_rbd_ferry_agent_socket = /run/ferry/agent.sock\n' },
    { name: 'an option repeated in one file keeps each value; a later file replaces them all', sources: ['[pci]\ndevice_spec = a\ndevice_spec = b\n[x]\nk = 1\nk = 2\n', '[x]\nk = 3\n'],
      out: '[pci]\ndevice_spec = a\ndevice_spec = b\n\n[x]\nk = 3\n' },
    { name: 'comments dropped, options before any section are DEFAULT\'s, an indented line continues a value', sources: ['# c\ndebug = true\n; c\n[DEFAULT]\nlist = a\n  b\n'],
      out: '[DEFAULT]\ndebug = true\nlist = a\nlist = b\n' },
  ])('$name', ({ sources, out }) => {
    const result = merge(sources);
    expect(result.code, result.stderr).toBe(0);
    expect(result.out).toBe(out);
    expect(statSync(join(dir, 'nova.conf')).mode & 0o777).toBe(0o660);
  });

  it.each([
    { text: '[libvirt\nx = 1\n', says: 'source-0.conf:1: a section header without its ]' },
    { text: '[libvirt]\nimages_type rbd\n', says: "source-0.conf:2: neither [section] nor key = value: 'images_type rbd'" },
  ])('refuses $says, and writes nothing', ({ text, says }) => {
    const result = merge([text]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(says);
    expect(result.out).toBe('');
  });
});

describe('kolla_set_configs.py', { timeout: RUN_MS * 2 }, () => {
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'ferry-kolla-set-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** config.json in DIR/config_files, the dests under DIR/root; runs as this user (owner: this user's name). */
  function setConfigs(config: unknown, strategy = 'COPY_ALWAYS'): { code: number; stderr: string } {
    mkdirSync(join(dir, 'config_files'), { recursive: true });
    writeFileSync(join(dir, 'config_files/config.json'), JSON.stringify(config));
    const run = spawnSync('/usr/bin/python3', ['-I', SET_CONFIGS], { encoding: 'utf8', timeout: RUN_MS,
      env: { PATH: process.env.PATH, KOLLA_CONFIG_DIR: join(dir, 'config_files'), KOLLA_CONFIG_STRATEGY: strategy, KOLLA_RUN_COMMAND: join(dir, 'run_command') } });
    return { code: run.status ?? -1, stderr: run.stderr };
  }
  const me = userInfo().username;

  it('copies each file to its dest with its mode, skips a missing optional one, writes the command', () => {
    writeFileSync(join(dir, 'nova.conf'), '[libvirt]\n');
    const result = setConfigs({ command: 'nova-compute', config_files: [
      { source: join(dir, 'nova.conf'), dest: join(dir, 'root/etc/nova/nova.conf'), owner: me, perm: '0600' },
      { source: join(dir, 'release'), dest: join(dir, 'root/etc/nova/release'), owner: me, perm: '0600', optional: true },
    ] });
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(dir, 'root/etc/nova/nova.conf'), 'utf8')).toBe('[libvirt]\n');
    expect(statSync(join(dir, 'root/etc/nova/nova.conf')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, 'run_command'), 'utf8')).toBe('nova-compute');
  });

  it.each([
    { name: 'a missing required source', config: { command: 'x', config_files: [{ source: '/nonexistent/nova.conf', dest: '/tmp/x', owner: 'root', perm: '0600' }] }, strategy: 'COPY_ALWAYS', says: '/nonexistent/nova.conf: missing, and the entry is not optional' },
    { name: 'no command', config: { config_files: [] }, strategy: 'COPY_ALWAYS', says: 'no "command"' },
    { name: 'an unknown strategy', config: { command: 'x' }, strategy: 'COPY_SOMETIMES', says: "KOLLA_CONFIG_STRATEGY is 'COPY_SOMETIMES': set COPY_ALWAYS or COPY_ONCE" },
    { name: 'merge, which this subset does not do', config: { command: 'x', config_files: [{ source: '/etc/hostname', dest: '/tmp/x', owner: 'root', perm: '0600', merge: true }] }, strategy: 'COPY_ALWAYS', says: "'merge' is not supported here" },
  ])('refuses $name: exit 1, one line naming it', ({ config, strategy, says }) => {
    const result = setConfigs(config, strategy);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^kolla_set_configs: /);
    expect(result.stderr).toContain(says);
  });
});
