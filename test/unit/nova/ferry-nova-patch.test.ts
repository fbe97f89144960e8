// Contract: integrations/nova/ferry-nova-patch applies, checks and reverts the nova patch of the installed nova's
// version, with the exit codes its header and docs/nova-patch.md document (0 done/patched, 2 usage, 3 no nova or no
// patch, 4 pristine, 5 neither). Run on a copy of each pristine nova file of fixtures/nova/ with nova's package
// metadata (the version it picks the patch by).
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENSURE_PATCH_MS, ensurePatchProgram, ferryNovaPatch, FERRY_NOVA_PATCH_MS as RUN_MS, novaSite } from '../../helpers/nova-site.js';

beforeAll(ensurePatchProgram, ENSURE_PATCH_MS);

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const COMMAND = join(ROOT, 'integrations', 'nova', 'ferry-nova-patch');
const FIXTURES = join(ROOT, 'fixtures', 'nova');
const VERSIONS = [{ version: '26.2.2', major: '26' }, { version: '34.0.0', major: '34' }] as const;
// Each test's limit is the sum of what it runs: RUN_MS for a run of the script or a python3 -c, VENV_MS for a venv.
const VENV_CREATE_MS = 60_000;
const COPY_MS = 10_000;
const VENV_MS = VENV_CREATE_MS + RUN_MS + COPY_MS;

const trees: string[] = [];
afterEach(() => {
  for (const tree of trees.splice(0)) rmSync(tree, { recursive: true, force: true });
});

function site(version: string): { dir: string; file: string } {
  const made = novaSite(version);
  trees.push(made.dir);
  return made;
}

const run = ferryNovaPatch;

describe('integrations/nova/ferry-nova-patch', () => {
  it.each(VERSIONS)('nova $version: check says pristine (4), apply patches (0), check says patched (0), revert restores the file byte for byte', ({ version, major }) => {
    const { dir, file } = site(version);
    const pristine = readFileSync(file, 'utf8');
    expect(run('check', '--nova-dir', dir)).toMatchObject({ status: 4, stdout: expect.stringMatching(/^pristine: .*nova-\d+-imagebackend\.patch/) });
    const applied = run('apply', '--nova-dir', dir);
    expect(applied.stdout).toContain(`applied nova-${major}-imagebackend.patch`);
    expect(applied.status).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('ferry_agent');
    expect(readFileSync(join(dir, 'nova', 'conf', 'libvirt.py'), 'utf8')).toContain("cfg.StrOpt('images_rbd_ferry_agent_socket'");
    expect(run('check', '--nova-dir', dir)).toMatchObject({ status: 0, stdout: expect.stringMatching(/^patched: /) });
    expect(run('apply', '--nova-dir', join(dir, 'nova'))).toMatchObject({ status: 0, stdout: expect.stringMatching(/^already patched: /) });
    expect(run('revert', '--nova-dir', dir)).toMatchObject({ status: 0, stdout: expect.stringMatching(/^reverted /) });
    expect(readFileSync(file, 'utf8')).toBe(pristine);
    expect(readFileSync(join(dir, 'nova', 'conf', 'libvirt.py'), 'utf8')).toBe(readFileSync(join(FIXTURES, `conf-libvirt-${version}.py`), 'utf8'));
    expect(run('revert', '--nova-dir', dir)).toMatchObject({ status: 0, stdout: expect.stringMatching(/^already pristine: /) });
  }, 6 * RUN_MS);

  it('a file that is neither pristine nor patched: exit 5, the file untouched', () => {
    const { dir, file } = site('26.2.2');
    const edited = readFileSync(file, 'utf8').replace('    def copy_to_store(self, context, image_meta):\n', '    def copy_to_store(self, context, image_meta):  # edited\n');
    writeFileSync(file, edited);
    for (const action of ['check', 'apply', 'revert']) {
      const result = run(action, '--nova-dir', dir);
      expect(result.status).toBe(5);
      expect(result.stderr).toContain('neither pristine nor patched');
    }
    expect(readFileSync(file, 'utf8')).toBe(edited);
  }, 3 * RUN_MS);

  it('a nova version without a patch of its own number: the patch is chosen by what the files contain, not refused (exit 3 before)', () => {
    // nova 26's files under a 29.0.1 label: the version no longer picks the patch; the files do.
    const { dir } = site('26.2.2');
    rmSync(join(dir, 'nova-26.2.2.egg-info'), { recursive: true });
    mkdirSync(join(dir, 'nova-29.0.1.egg-info'));
    writeFileSync(join(dir, 'nova-29.0.1.egg-info', 'PKG-INFO'), 'Name: nova\nVersion: 29.0.1\n');
    expect(run('check', '--nova-dir', dir)).toMatchObject({ status: 4, stdout: expect.stringMatching(/^pristine: nova 29\.0\.1 .*nova-26-imagebackend\.patch/) });
    // No version metadata at all: still chosen by content.
    rmSync(join(dir, 'nova-29.0.1.egg-info'), { recursive: true });
    expect(run('check', '--nova-dir', dir)).toMatchObject({ status: 4, stdout: expect.stringMatching(/^pristine: nova of unknown version .*nova-26-imagebackend\.patch/) });
    expect(run('check', '--nova-dir', dir, '--patch', join(ROOT, 'integrations', 'nova', 'nova-34-imagebackend.patch'))).toMatchObject({ status: 4, stdout: expect.stringContaining('nova-34-imagebackend.patch') });
  }, 3 * RUN_MS);

  it('no patch file in FERRY_NOVA_PATCH_DIR: exit 3 naming the directory', () => {
    const { dir } = site('26.2.2');
    const none = mkdtempSync(join(tmpdir(), 'ferry-nova-nopatch-'));
    trees.push(none);
    const result = spawnSync(COMMAND, ['check', '--nova-dir', dir], { encoding: 'utf8', timeout: RUN_MS, env: { ...process.env, FERRY_NOVA_PATCH_DIR: none } });
    expect(result.status).toBe(3);
    expect(result.stderr).toContain(`no nova-*-imagebackend.patch in ${none}`);
  }, RUN_MS);

  it('no nova in --nova-dir: exit 3; a bad action or option: usage, exit 2; --help: the header, exit 0', () => {
    const empty = mkdtempSync(join(tmpdir(), 'ferry-nova-empty-'));
    trees.push(empty);
    expect(run('check', '--nova-dir', empty)).toMatchObject({ status: 3, stderr: expect.stringContaining('no nova/virt/libvirt/imagebackend.py under') });
    expect(run('frobnicate')).toMatchObject({ status: 2, stderr: expect.stringContaining('usage: ferry-nova-patch apply|check|revert') });
    expect(run('check', '--nova-dri', empty).status).toBe(2);
    const help = run('--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Exit codes:');
    expect(help.stdout).not.toContain('set -u');
  }, 4 * RUN_MS);
});

describe('ferry-nova-patch: finding nova without --nova-dir', () => {
  it('a `nova` package planted in the working directory is never imported: nova is looked for isolated (-I), from /', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'ferry-nova-planted-'));
    trees.push(cwd);
    const marker = join(cwd, 'imported');
    mkdirSync(join(cwd, 'nova'));
    writeFileSync(join(cwd, 'nova', '__init__.py'), `open(${JSON.stringify(marker)}, "w").write("planted nova imported")\n`);
    const result = spawnSync(COMMAND, ['check'], { cwd, encoding: 'utf8', timeout: RUN_MS });
    expect(existsSync(marker)).toBe(false);
    // What the system's python3 imports as nova where nothing is planted (Debian: /usr/lib/python3/dist-packages).
    const real = spawnSync('/usr/bin/python3', ['-I', '-c', 'import os, nova; print(os.path.dirname(os.path.dirname(os.path.abspath(nova.__file__))))'],
      { cwd: '/', encoding: 'utf8', timeout: RUN_MS });
    if (real.status === 0) {
      expect(result.stdout).toContain(` in ${real.stdout.trim()} (`);
      expect([0, 4]).toContain(result.status);
    } else {
      expect(result).toMatchObject({ status: 3, stderr: expect.stringContaining('cannot import nova') });
    }
  }, 2 * RUN_MS);
});

describe('ferry-nova-patch --python: nova in a venv (openstack-ansible runs nova-compute from one)', () => {
  /** A venv (`python3 -m venv --system-site-packages`, so the system's nova is importable too) whose own site-packages
   * holds nova 26's two files and package metadata: its nova shadows the system's. */
  function venvWithNova(): { python: string; sitePackages: string } {
    const venv = mkdtempSync(join(tmpdir(), 'ferry-nova-venv-'));
    trees.push(venv);
    const made = spawnSync('/usr/bin/python3', ['-m', 'venv', '--system-site-packages', '--without-pip', venv], { encoding: 'utf8', timeout: VENV_CREATE_MS });
    expect(made.status, made.stderr).toBe(0);
    const python = join(venv, 'bin', 'python');
    const sitePackages = spawnSync(python, ['-I', '-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])'], { encoding: 'utf8', timeout: RUN_MS }).stdout.trim();
    const { dir } = site('26.2.2');
    spawnSync('cp', ['-R', `${dir}/.`, sitePackages], { timeout: COPY_MS });
    writeFileSync(join(sitePackages, 'nova', '__init__.py'), '');
    // As an operator's venv is (openstack-ansible's: root's, world-readable): the tool's probe runs unprivileged.
    chmodSync(venv, 0o755);
    return { python, sitePackages };
  }

  it('apply --python VENV/bin/python patches the venv\'s nova (not the system\'s) and puts ferry\'s client where that python imports it', () => {
    const { python, sitePackages } = venvWithNova();
    const file = join(sitePackages, 'nova', 'virt', 'libvirt', 'imagebackend.py');
    const before = run('check', '--python', python);
    expect(before.status).toBe(4);
    expect(before.stdout).toContain(`pristine: nova 26.2.2 in ${sitePackages} (`);
    expect(before.stdout).toContain(`client: ${python} cannot import ferry_agent`);
    const applied = run('apply', '--python', python);
    expect(applied.stderr).toBe('');
    expect(applied.status).toBe(0);
    expect(applied.stdout).toContain(`installed ferry's client into ${sitePackages}/ferry_agent.py`);
    expect(readFileSync(file, 'utf8')).toContain('ferry_agent');
    // The venv's python now imports the client from its own site-packages, isolated and from /.
    const imported = spawnSync(python, ['-I', '-c', 'import ferry_agent; print(ferry_agent.__file__)'], { cwd: '/', encoding: 'utf8', timeout: RUN_MS });
    expect(imported.stdout.trim()).toBe(join(sitePackages, 'ferry_agent.py'));
    expect(run('check', '--python', python)).toMatchObject({ status: 0, stdout: expect.stringMatching(/^patched: nova 26\.2\.2 in .*\nclient: ferry_agent is beside nova/) });
    expect(run('revert', '--python', python).status).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(readFileSync(join(FIXTURES, 'imagebackend-26.2.2.py'), 'utf8'));
    expect(existsSync(join(sitePackages, 'ferry_agent.py'))).toBe(false);
  }, VENV_MS + 6 * RUN_MS);

  // Issue 34: run as root (the package's trigger, the Ansible role), it ran the venv's python as root to find nova and
  // to ask whether it imports ferry_agent: whatever that venv's site-packages or nova/__init__.py hold ran as root.
  it('the venv\'s python runs with no privilege: as root, its nova is imported as nobody (what nova/__init__.py runs as)', () => {
    const { python, sitePackages } = venvWithNova();
    const seen = mkdtempSync(join(tmpdir(), 'ferry-nova-uid-'));
    trees.push(seen);
    chmodSync(seen, 0o777);
    const marker = join(seen, 'uids');
    writeFileSync(join(sitePackages, 'nova', '__init__.py'), `import os\nopen(${JSON.stringify(marker)}, "a").write("%d\\n" % os.geteuid())\n`);
    expect(run('apply', '--python', python)).toMatchObject({ status: 0 });
    const uids = readFileSync(marker, 'utf8').trim().split('\n').map(Number);
    expect(uids.length).toBeGreaterThan(0);
    expect(uids).not.toContain(0);
  }, VENV_MS + RUN_MS);

  // Review of issue 34: root wrote nova's patched file and ferry's client wherever the venv's python said nova was; that
  // answer comes from code the venv's writer controls.
  it.each([
    ['a directory outside the venv', (elsewhere: string) => elsewhere],
    ['a path inside the venv that is a symlink to a directory outside', (elsewhere: string, sitePackages: string) => {
      symlinkSync(elsewhere, join(sitePackages, 'redirected'));
      return join(sitePackages, 'redirected');
    }],
  ])('as root, a venv whose python reports nova in %s: exit 3, nothing written there', (_case, pointAt) => {
    const { python, sitePackages } = venvWithNova();
    const { dir: elsewhere, file } = site('26.2.2');
    chmodSync(elsewhere, 0o755);
    const pristine = readFileSync(file, 'utf8');
    const reported = pointAt(elsewhere, sitePackages);
    writeFileSync(join(sitePackages, 'nova', '__init__.py'), `__file__ = ${JSON.stringify(join(reported, 'nova', '__init__.py'))}\n`);
    const applied = run('apply', '--python', python);
    expect(applied.status, applied.stdout + applied.stderr).toBe(3);
    expect(applied.stderr).toContain('nothing is written there; pass --nova-dir DIR');
    expect(readFileSync(file, 'utf8')).toBe(pristine);
    expect(existsSync(join(elsewhere, 'ferry_agent.py'))).toBe(false);
  }, VENV_MS + RUN_MS);

  // Issue 34: the client was copied through the fixed name ferry_agent.py.new beside nova, by cp and chmod, which follow
  // a symlink planted there by whoever may write that directory.
  it('apply copies the client through no fixed name: a symlink planted at ferry_agent.py.new is not followed, its target untouched', () => {
    const { python, sitePackages } = venvWithNova();
    const victim = join(mkdtempSync(join(tmpdir(), 'ferry-nova-victim-')), 'shadow');
    trees.push(dirname(victim));
    writeFileSync(victim, 'root:SECRET:19000:0:99999:7:::\n', { mode: 0o600 });
    symlinkSync(victim, join(sitePackages, 'ferry_agent.py.new'));
    const applied = run('apply', '--python', python);
    expect(applied.status, applied.stderr).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('root:SECRET:19000:0:99999:7:::\n');
    expect(lstatSync(victim).mode & 0o777).toBe(0o600);
    expect(lstatSync(join(sitePackages, 'ferry_agent.py')).isFile()).toBe(true);
    expect(readFileSync(join(sitePackages, 'ferry_agent.py'), 'utf8')).toBe(readFileSync(join(ROOT, 'integrations', 'nova', 'ferry_agent.py'), 'utf8'));
    expect(lstatSync(join(sitePackages, 'ferry_agent.py')).mode & 0o777).toBe(0o644);
  }, VENV_MS + RUN_MS);

  it('revert leaves a client a package owns (python3-ferry-agent\'s, beside Debian\'s nova), and removes only the copy apply made', () => {
    const { python, sitePackages } = venvWithNova();
    const client = join(sitePackages, 'ferry_agent.py');
    writeFileSync(client, readFileSync(join(ROOT, 'integrations', 'nova', 'ferry_agent.py')));
    expect(run('apply', '--python', python)).toMatchObject({ status: 0, stdout: expect.not.stringContaining('installed ferry\'s client') });
    // dpkg says a package owns the file (a stand-in dpkg-query on PATH: this tree is no package's).
    const bin = mkdtempSync(join(tmpdir(), 'ferry-dpkg-query-'));
    trees.push(bin);
    writeFileSync(join(bin, 'dpkg-query'), `#!/bin/sh\n[ "$1" = -S ] && [ "$2" = '${client}' ] && echo "python3-ferry-agent: $2"\n`, { mode: 0o755 });
    const reverted = spawnSync(COMMAND, ['revert', '--python', python], { encoding: 'utf8', timeout: RUN_MS, env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` } });
    expect(reverted.status, reverted.stderr).toBe(0);
    expect(existsSync(client)).toBe(true);
    expect(run('check', '--python', python).status).toBe(4); // nova's own file back all the same
  }, VENV_MS + 3 * RUN_MS);

  it('a python that cannot import nova: exit 3 naming --python and --nova-dir', () => {
    const venv = mkdtempSync(join(tmpdir(), 'ferry-nova-venv-'));
    trees.push(venv);
    expect(spawnSync('/usr/bin/python3', ['-m', 'venv', '--without-pip', venv], { timeout: VENV_CREATE_MS }).status).toBe(0);
    chmodSync(venv, 0o755);
    const result = run('check', '--python', join(venv, 'bin', 'python'));
    expect(result.status).toBe(3);
    expect(result.stderr).toContain(`${join(venv, 'bin', 'python')} cannot import nova: pass --python PY`);
  }, VENV_CREATE_MS + RUN_MS);

  it('as root, a venv nobody may read: exit 3 saying so (its python would run as the base python and find the system\'s nova)', () => {
    const { python } = venvWithNova();
    const venv = dirname(dirname(python));
    chmodSync(venv, 0o700);
    const result = run('check', '--python', python);
    if (process.geteuid?.() === 0) {
      expect(result.status).toBe(3);
      expect(result.stderr).toContain(`cannot read its venv ${venv}: make the venv readable by all`);
    } else {
      expect(result.status).toBe(4); // its owner reads it
    }
  }, VENV_MS + RUN_MS);
});

describe('ferry-nova-patch check: nova\'s socket setting as nova-compute reads FERRY_NOVA_CONF', () => {
  function confs(): { dir: string; novaConf: string; computeConf: string } {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-nova-conf-'));
    trees.push(dir);
    const novaConf = join(dir, 'nova.conf');
    const computeConf = join(dir, 'nova-compute.conf');
    writeFileSync(novaConf, '[libvirt]\nimages_type = rbd\nimages_rbd_ferry_agent_socket = /run/old/agent.sock\n');
    writeFileSync(computeConf, '[DEFAULT]\ncompute_driver = libvirt.LibvirtDriver\n[libvirt]\nimages_rbd_ferry_agent_socket = /run/ferry/agent.sock\n');
    return { dir, novaConf, computeConf };
  }
  const checkWith = (env: Record<string, string>, dir: string) =>
    spawnSync(COMMAND, ['check', '--nova-dir', dir], { encoding: 'utf8', timeout: RUN_MS, env: { ...process.env, ...env } });

  it('the last file that sets it wins, from the environment or from /etc/default/ferry-agent (FERRY_DEFAULTS)', () => {
    const { dir } = site('26.2.2');
    const { dir: etc, novaConf, computeConf } = confs();
    const wanted = `nova config: [libvirt] images_rbd_ferry_agent_socket = /run/ferry/agent.sock (from ${computeConf}; FERRY_NOVA_CONF: ${novaConf}, ${computeConf})`;
    expect(checkWith({ FERRY_NOVA_CONF: `${novaConf}:${computeConf}` }, dir).stdout).toContain(wanted);
    const defaults = join(etc, 'ferry-agent');
    writeFileSync(defaults, `# comment\nFERRY_NOVA_CONF=${novaConf}:${computeConf}\nFERRY_AGENT_ARGS=\n`);
    expect(checkWith({ FERRY_NOVA_CONF: '', FERRY_DEFAULTS: defaults }, dir).stdout).toContain(wanted);
    // nova.conf alone: its own value.
    expect(checkWith({ FERRY_NOVA_CONF: novaConf }, dir).stdout).toContain('images_rbd_ferry_agent_socket = /run/old/agent.sock');
  }, 3 * RUN_MS);

  it('not set in any file: says nova-compute does not ask the agent; an unreadable file is named', () => {
    const { dir } = site('26.2.2');
    const { dir: etc } = confs();
    const plain = join(etc, 'plain.conf');
    writeFileSync(plain, '[libvirt]\nimages_type = rbd\n');
    expect(checkWith({ FERRY_NOVA_CONF: plain }, dir).stdout)
      .toContain(`nova config: [libvirt] images_rbd_ferry_agent_socket is not set in ${plain}: nova-compute does not ask the agent`);
    expect(checkWith({ FERRY_NOVA_CONF: join(etc, 'absent.conf') }, dir).stdout).toContain(`nova config: cannot read ${join(etc, 'absent.conf')}`);
    // -PATH: nova reads it only when it exists (the packaged default's nova-compute.conf).
    expect(checkWith({ FERRY_NOVA_CONF: `${plain}:-${join(etc, 'absent.conf')}` }, dir).stdout)
      .toContain(`nova config: [libvirt] images_rbd_ferry_agent_socket is not set in ${plain}: nova-compute does not ask the agent`);
  }, 3 * RUN_MS);
});
