// Contract: every nova patch in integrations/nova/ applies EXACTLY (no fuzz, no offset) to the pristine files of the
// nova version it is for (fixtures/nova/, see its README.md): nova-<MAJOR>-imagebackend.patch to nova/conf/libvirt.py
// and nova/virt/libvirt/imagebackend.py (what an operator applies), nova-<MAJOR>-imagebackend-tests.patch to nova's
// own test_imagebackend.py (scripts/nova-unit-tests runs them). Patched, the code asks the ferry agent first and keeps
// nova's own copy loop as the fallback, the options are registered in [libvirt] as nova registers its own, and every
// file compiles; reversed, every file is pristine again.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENSURE_PATCH_MS, ensurePatchProgram } from '../../helpers/nova-site.js';

beforeAll(ensurePatchProgram, ENSURE_PATCH_MS);

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const PATCHES = join(ROOT, 'integrations', 'nova');
const FIXTURES = join(ROOT, 'fixtures', 'nova');
const CONF = 'nova/conf/libvirt.py';
const BACKEND = 'nova/virt/libvirt/imagebackend.py';
const TESTS = 'nova/tests/unit/virt/libvirt/test_imagebackend.py';

/** Each patch and the pristine files (nova's own, from the Debian packages named in fixtures/nova/README.md) it is for. */
interface NovaPatch { readonly patch: string; readonly files: Record<string, string> }
const NOVA_PATCHES: readonly NovaPatch[] = ['26.2.2', '34.0.0'].flatMap((version): NovaPatch[] => {
  const major = version.split('.')[0];
  return [
    { patch: `nova-${major}-imagebackend.patch`, files: { [CONF]: `conf-libvirt-${version}.py`, [BACKEND]: `imagebackend-${version}.py` } },
    { patch: `nova-${major}-imagebackend-tests.patch`, files: { [TESTS]: `test_imagebackend-${version}.py` } },
  ];
});
const CODE_PATCHES = NOVA_PATCHES.filter((p) => CONF in p.files);
const TEST_PATCHES = NOVA_PATCHES.filter((p) => TESTS in p.files);

// Compiling nova's ~1,500- and ~2,500-line modules takes 1-2 s idle, past vitest's 5 s default on a loaded machine.
// Each program gets its own limit, each test the sum of what it runs.
const COMPILE_MS = 30_000;
const PATCH_MS = 15_000;

const trees: string[] = [];
afterEach(() => {
  for (const tree of trees.splice(0)) rmSync(tree, { recursive: true, force: true });
});

/** A directory holding the given pristine files at their paths in nova, as `patch -p1 -d` expects. */
function pristineTree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-nova-patch-'));
  trees.push(dir);
  for (const [path, fixture] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    copyFileSync(join(FIXTURES, fixture), join(dir, path));
  }
  return dir;
}

function compiles(file: string): void {
  const compiled = spawnSync('python3', ['-m', 'py_compile', file], { encoding: 'utf8', timeout: COMPILE_MS });
  expect(compiled.stderr).toBe('');
  expect(compiled.status).toBe(0);
}

function patch(dir: string, patchFile: string, ...flags: string[]): { status: number | null; output: string } {
  const result = spawnSync('patch', ['-p1', '--forward', '--batch', ...flags, '-d', dir, '-i', join(PATCHES, patchFile)], { encoding: 'utf8', timeout: PATCH_MS });
  if (result.error) throw new Error(`cannot run patch(1): ${result.error.message} (Debian: apt-get install patch)`);
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('nova patches in integrations/nova/', () => {
  it('every *.patch there has its pristine nova files in fixtures/nova/', () => {
    const patches = readdirSync(PATCHES).filter((name) => name.endsWith('.patch')).sort();
    expect(patches).toEqual(NOVA_PATCHES.map((p) => p.patch).sort());
  });

  it.each(NOVA_PATCHES)('$patch applies to its pristine files with `patch --dry-run`, without fuzz or offset', ({ patch: patchFile, files }) => {
    const dir = pristineTree(files);
    const result = patch(dir, patchFile, '--dry-run');
    expect(result.output).toBe(Object.keys(files).map((path) => `checking file ${path}\n`).join(''));
    expect(result.status).toBe(0);
    for (const [path, fixture] of Object.entries(files)) expect(readFileSync(join(dir, path), 'utf8')).toBe(readFileSync(join(FIXTURES, fixture), 'utf8'));
  }, PATCH_MS);

  it.each(CODE_PATCHES)('$patch applied: copy_to_store() asks ferry_agent first and keeps nova\'s own copy loop as the fallback; the files compile', ({ patch: patchFile, files }) => {
    const dir = pristineTree(files);
    expect(patch(dir, patchFile).status).toBe(0);
    const backend = readFileSync(join(dir, BACKEND), 'utf8');
    expect(backend).toContain('return self._copy_to_store_by_ferry_agent(\n                    image_id, store_name, failed_clone=failed_clone,\n                    auth_token=getattr(context, \'auth_token\', None))');
    expect(backend).toContain('result = ferry_agent.ensure(');
    expect(backend).toContain('target = self.copy_to_store(context, image_meta, **retry)');
    // A clone whose source went away asks the agent again, saying which (retry_after_failed_clone).
    expect(backend).toContain('retry_after_failed_clone');
    // The fallback: nova's own request and polling loop are still there, unchanged.
    expect(backend).toContain('IMAGE_API.copy_image_to_store(context, image_id, store_name)');
    expect(backend).toContain('loopingcall.FixedIntervalWithTimeoutLoopingCall(_wait_for_copy)');
    expect(backend).toContain("LOG.warning('The ferry agent cannot copy image %(image)s to '");
    compiles(join(dir, BACKEND));
    compiles(join(dir, CONF));
  }, PATCH_MS + 2 * COMPILE_MS);

  it.each(CODE_PATCHES)('$patch registers [libvirt] images_rbd_ferry_agent_{socket,fallback,retry_timeout} in nova.conf.libvirt\'s image backend options, with help', ({ patch: patchFile, files }) => {
    const dir = pristineTree(files);
    expect(patch(dir, patchFile).status).toBe(0);
    // Load the option list as oslo.config sees it (a stand-in `cfg` records each option; nothing of nova is imported).
    const code = [
      'import ast, json, sys',
      'tree = ast.parse(open(sys.argv[1]).read())',
      "opts = next(n.value for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == 'libvirt_imagebackend_opts')",
      'found = {}',
      'for call in opts.elts:',
      '    name = call.args[0].value',
      "    kw = {k.arg: (ast.literal_eval(k.value) if k.arg != 'help' else len(ast.literal_eval(k.value))) for k in call.keywords}",
      '    found[name] = dict(type=call.func.attr, **kw)',
      'print(json.dumps(found))',
    ].join('\n');
    const result = spawnSync('python3', ['-c', code, join(dir, CONF)], { encoding: 'utf8', timeout: COMPILE_MS });
    expect(result.stderr).toBe('');
    const opts = JSON.parse(result.stdout) as Record<string, { type: string; default?: unknown; help: number; min?: number }>;
    expect(opts.images_rbd_ferry_agent_socket).toMatchObject({ type: 'StrOpt', default: '' });
    expect(opts.images_rbd_ferry_agent_fallback).toMatchObject({ type: 'BoolOpt', default: true });
    expect(opts.images_rbd_ferry_agent_retry_timeout).toMatchObject({ type: 'IntOpt', default: 30, min: 0 });
    for (const name of ['images_rbd_ferry_agent_socket', 'images_rbd_ferry_agent_fallback', 'images_rbd_ferry_agent_retry_timeout']) {
      expect(opts[name]?.help).toBeGreaterThan(200);
    }
    // nova's own options are still there.
    expect(opts.images_rbd_glance_copy_poll_interval).toMatchObject({ type: 'IntOpt', default: 15 });
  }, PATCH_MS + COMPILE_MS);

  it.each(TEST_PATCHES)('$patch adds nova unit tests of the agent path, the fallback and the verdict path, and rewrites none of nova\'s', ({ patch: patchFile, files }) => {
    const text = readFileSync(join(PATCHES, patchFile), 'utf8');
    for (const test of ['test_copy_to_store_ferry_agent', 'test_copy_to_store_ferry_agent_verdict', 'test_copy_to_store_ferry_agent_away_falls_back',
      'test_copy_to_store_ferry_agent_module_missing', 'test_copy_to_store_ferry_agent_away_no_fallback', 'test_copy_to_store_ferry_agent_restarting',
      'test_clone_copy_to_store_ferry_target']) {
      expect(text).toContain(`+    def ${test}(`);
    }
    // Only additions: nova's own tests of its copy loop still run unchanged (the loop is the fallback now).
    expect(text.split('\n').filter((line) => line.startsWith('-') && !line.startsWith('--- '))).toEqual([]);
    const dir = pristineTree(files);
    expect(patch(dir, patchFile).status).toBe(0);
    compiles(join(dir, TESTS));
  }, PATCH_MS + COMPILE_MS);

  it.each(NOVA_PATCHES)('$patch reversed restores its pristine files byte for byte', ({ patch: patchFile, files }) => {
    const dir = pristineTree(files);
    expect(patch(dir, patchFile).status).toBe(0);
    expect(spawnSync('patch', ['-p1', '-R', '--batch', '-d', dir, '-i', join(PATCHES, patchFile)], { timeout: PATCH_MS }).status).toBe(0);
    for (const [path, fixture] of Object.entries(files)) expect(readFileSync(join(dir, path), 'utf8')).toBe(readFileSync(join(FIXTURES, fixture), 'utf8'));
  }, 2 * PATCH_MS);
});
