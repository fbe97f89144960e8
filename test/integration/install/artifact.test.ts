// The artifact as a compute node gets it: built by scripts/build-artifact.sh (or FERRY_ARTIFACT, one built earlier in
// the same run), unpacked and installed into an empty prefix, then run with a PATH that holds no node at all — so
// the system's Node cannot be what runs it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudEnv, devcloud } from '../../helpers/devcloud.js';
import { deleteImage, uploadImage, waitUnlocked } from '../../helpers/glance-admin.js';

const root = process.cwd();
const work = mkdtempSync(join(tmpdir(), 'ferry-artifact-'));
const prefix = join(work, 'prefix');
const emptyBin = join(work, 'empty-bin');
const created: string[] = [];

function installed(args: readonly string[], env: Record<string, string> = {}): { code: number; stdout: string; stderr: string } {
  // env -i semantics: nothing from the test's environment, PATH without any node.
  const result = spawnSync(join(prefix, 'bin', 'ferry'), args, {
    encoding: 'utf8', timeout: 60_000, cwd: work, env: { PATH: `${join(prefix, 'bin')}:${emptyBin}`, HOME: work, ...env },
  });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** beforeAll's spawns, one after another: the build, mkdir, the untar, install.sh. */
const BUILD_MS = 300_000;
const INSTALL_MS = 120_000;
const SETUP_MS = BUILD_MS + 10_000 + 60_000 + INSTALL_MS;

beforeAll(() => {
  let artifact = process.env.FERRY_ARTIFACT;
  if (artifact === undefined) {
    const built = spawnSync('bash', [join(root, 'scripts/build-artifact.sh'), '--out', join(work, 'out')], { encoding: 'utf8', timeout: BUILD_MS });
    expect(built.status, built.stderr).toBe(0);
    artifact = built.stdout.trim().split('\n').at(-1) ?? '';
  }
  expect(existsSync(artifact), `artifact ${artifact}`).toBe(true);
  const unpack = join(work, 'unpack');
  spawnSync('mkdir', ['-p', unpack, emptyBin], { timeout: 10_000 });
  const untar = spawnSync('tar', ['-xzf', artifact, '-C', unpack], { encoding: 'utf8', timeout: 60_000 });
  expect(untar.status, untar.stderr).toBe(0);
  const [dir] = readdirSync(unpack);
  expect(existsSync(prefix)).toBe(false);
  const install = spawnSync(join(unpack, dir ?? '', 'install.sh'), ['--prefix', prefix], {
    encoding: 'utf8', env: { PATH: '/usr/bin:/bin' }, timeout: INSTALL_MS,
  });
  expect(install.status, install.stderr).toBe(0);
  expect(install.stdout).toContain(`installed ferry 0.1.0 in ${prefix}`);
}, SETUP_MS);

afterAll(async () => {
  for (const id of created) {
    await waitUnlocked(id);
    await deleteImage(id);
  }
  rmSync(work, { recursive: true, force: true });
});

describe('the installed artifact (empty prefix, no node on PATH)', () => {
  it('artifact: no node on the PATH the installed ferry runs with', () => {
    const which = spawnSync('/bin/sh', ['-c', 'command -v node'], { encoding: 'utf8', timeout: 10_000, env: { PATH: `${join(prefix, 'bin')}:${emptyBin}` } });
    expect(which.status).not.toBe(0);
  });

  it('artifact: ferry --version runs on the Node it carries (the one scripts/build-artifact.sh pins)', () => {
    const run = installed(['--version']);
    expect(run).toMatchObject({ code: 0, stdout: '0.1.0\n' });
    const pinned = /^NODE_VERSION=(\S+)$/m.exec(readFileSync(join(root, 'scripts/build-artifact.sh'), 'utf8'))?.[1];
    const node = spawnSync(join(prefix, 'lib/ferry/node/bin/node'), ['--version'], { encoding: 'utf8', timeout: 30_000 });
    expect(node.stdout.trim()).toBe(`v${pinned}`);
  });

  it('artifact: its Node keeps the compile cache in a directory only this user may write, and reuses it', () => {
    const cache = join(work, '.cache', 'ferry', 'compile-cache'); // HOME is `work`
    rmSync(cache, { recursive: true, force: true });
    expect(installed(['--help']).code).toBe(0);
    const mode = statSync(cache).mode & 0o777;
    expect(mode & 0o022).toBe(0);
    const [versionDir] = readdirSync(cache);
    const entries = readdirSync(join(cache, versionDir ?? ''));
    expect(entries.length).toBeGreaterThan(0);
    expect(installed(['--help']).code).toBe(0); // a second start runs with the cache it left
    expect(readdirSync(join(cache, versionDir ?? '')).sort()).toEqual(entries.sort());
  });

  it('artifact: a cache directory others may write is not used', () => {
    const shared = join(work, 'shared-cache');
    spawnSync('mkdir', ['-m', '0777', '-p', shared], { timeout: 10_000 });
    expect(installed(['--version'], { FERRY_COMPILE_CACHE: shared }).code).toBe(0);
    expect(readdirSync(shared)).toEqual([]);
  });

  it('artifact: carries what the Debian package carries, the units pointing at the installed launcher', () => {
    const units = join(prefix, 'lib/systemd/system');
    expect(readdirSync(units).sort()).toEqual(['ferry-agent.service', 'ferry-agent.socket', 'ferry-evict@.service', 'ferry-evict@.timer', 'ferry-sync.service']);
    for (const unit of ['ferry-agent.service', 'ferry-evict@.service', 'ferry-sync.service']) {
      const execs = readFileSync(join(units, unit), 'utf8').split('\n').filter((line) => line.startsWith('ExecStart='));
      expect(execs.length, unit).toBeGreaterThan(0);
      for (const exec of execs) expect(exec, unit).toMatch(new RegExp(`^ExecStart=(/usr/bin/python3 -IS ${prefix}/lib/ferry/bin/ferry-notify-exec )?${prefix}/bin/ferry `));
    }
    // Every program and doc the units name is the installed one (ExecStartPre's Node and nova.conf subset, Documentation=).
    for (const unit of ['ferry-agent.service', 'ferry-agent.socket', 'ferry-evict@.service', 'ferry-evict@.timer', 'ferry-sync.service']) {
      const text = readFileSync(join(units, unit), 'utf8');
      expect(text, unit).not.toMatch(/\/usr\/(bin|lib)\/ferry|\/usr\/share\/doc\/ferry/);
      const named = [...text.matchAll(new RegExp(`(?:^|[ :=+])(${prefix}/[^ \n]+)`, 'gm'))].map((m) => m[1] ?? '');
      expect(named.length, unit).toBeGreaterThan(0);
      for (const path of named.filter((p) => !p.endsWith('/security.md'))) expect(existsSync(path), `${unit}: ${path}`).toBe(true);
    }
    expect(readFileSync(join(prefix, 'share/bash-completion/completions/ferry'), 'utf8')).toContain('complete -F _ferry ferry');
    expect(readFileSync(join(prefix, 'share/zsh/site-functions/_ferry'), 'utf8').split('\n')[0]).toBe('#compdef ferry');
    expect(readFileSync(join(prefix, 'share/man/man1/ferry.1'), 'utf8')).toContain('.SS "ferry ensure"');
    const nova = join(prefix, 'lib/ferry/integrations/nova');
    for (const file of ['ferry_agent.py', 'ferry-nova-patch', 'nova-26-imagebackend.patch', 'nova-34-imagebackend.patch']) {
      expect(existsSync(join(nova, file)), file).toBe(true);
    }
    const check = spawnSync(join(nova, 'ferry-nova-patch'), ['--help'], { encoding: 'utf8', timeout: 30_000 });
    expect(check.status, check.stderr).toBe(0);
  });

  it('artifact: an offline ferry traits from the recorded libvirt XML', () => {
    const domcaps = join(root, 'fixtures/domcaps');
    const run = installed(['traits', '--domcaps', join(domcaps, 'domcaps-x86_64-kvm-q35.xml'), '--capabilities',
      join(domcaps, 'capabilities.xml'), '--json']);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { traits: string[] };
    expect(report.traits).toContain('COMPUTE_ARCH_X86_64');
    expect(report.traits).toContain('COMPUTE_STORAGE_BUS_VIRTIO');
  });

  it('artifact: ferry ensure against the dev cloud (an image already in site-b)', async () => {
    const id = await uploadImage({ name: 'it-artifact-local', store: 'site-b' });
    created.push(id);
    const run = installed(['ensure', id, '--store', 'site-b', '--fsid', devcloud().ceph['site-b'].fsid, '--json'], cloudEnv());
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ image: id, store: 'site-b', copied: false,
      target: { fsid: devcloud().ceph['site-b'].fsid, pool: 'images', image: id, snapshot: 'snap' } });
  });
});
