// Contract (issue 26): on the released files of every nova from 26 to 34 (fixtures/nova/, sources in its README.md),
// integrations/nova/ferry-nova-patch chooses a patch by what the files contain (the patch that applies with fuzz 0 and
// the smallest offsets), applies it, the patched modules compile with the system's Python 3 (isolated), check then
// says patched, and revert gives back nova's files byte for byte. Before, the patch was chosen by nova's major version
// and nova 27 to 33 got exit 3, "no patch for nova 31.0.0".
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENSURE_PATCH_MS, ensurePatchProgram, ferryNovaPatch, FERRY_NOVA_PATCH_MS, NOVA_FIXTURES as FIXTURES, novaSite } from '../../helpers/nova-site.js';

beforeAll(ensurePatchProgram, ENSURE_PATCH_MS);

const CONF = 'nova/conf/libvirt.py';
const BACKEND = 'nova/virt/libvirt/imagebackend.py';

/** Each release and the patch whose context fits its files best (imagebackend.py moved `Rbd` by 26 lines in 30.0.0). */
const RELEASES = [
  { version: '26.2.2', patch: 'nova-26-imagebackend.patch' },
  { version: '27.0.0', patch: 'nova-26-imagebackend.patch' },
  { version: '28.0.0', patch: 'nova-26-imagebackend.patch' },
  { version: '29.0.0', patch: 'nova-26-imagebackend.patch' },
  { version: '30.0.0', patch: 'nova-34-imagebackend.patch' },
  { version: '31.0.0', patch: 'nova-34-imagebackend.patch' },
  { version: '32.0.0', patch: 'nova-34-imagebackend.patch' },
  { version: '33.0.0', patch: 'nova-34-imagebackend.patch' },
  { version: '34.0.0', patch: 'nova-34-imagebackend.patch' },
] as const;

// Four runs of the script (each up to four dry runs of patch(1)) and two compiles of ~1,500-line modules: ~2 s idle,
// past vitest's 5 s default when the machine is loaded. The test's limit is the sum of theirs.
const COMPILE_MS = 30_000;
const RELEASE_TEST_MS = 4 * FERRY_NOVA_PATCH_MS + 2 * COMPILE_MS;

const trees: string[] = [];
afterEach(() => {
  for (const tree of trees.splice(0)) rmSync(tree, { recursive: true, force: true });
});

function site(version: string): string {
  const { dir } = novaSite(version);
  trees.push(dir);
  return dir;
}

const run = ferryNovaPatch;

describe('ferry-nova-patch on the released files of nova 26 to 34', () => {
  it.each(RELEASES)('nova $version: $patch chosen by content, applied with fuzz 0, the patched modules compile, revert restores them', ({ version, patch }) => {
    const dir = site(version);
    expect(run('check', '--nova-dir', dir)).toMatchObject({ status: 4, stderr: '', stdout: expect.stringContaining(`nova ${version} in ${dir} (${CONF} ${BACKEND}) does not carry ${patch}`) });
    expect(run('apply', '--nova-dir', dir)).toMatchObject({ status: 0, stdout: expect.stringContaining(`applied ${patch} to nova ${version}`) });
    // The patch applied, whole: the agent path is in the module and its options are registered.
    expect(readFileSync(join(dir, BACKEND), 'utf8')).toContain('return self._copy_to_store_by_ferry_agent(\n                    image_id, store_name, failed_clone=failed_clone,\n                    auth_token=getattr(context, \'auth_token\', None))');
    expect(readFileSync(join(dir, CONF), 'utf8')).toContain("cfg.StrOpt('images_rbd_ferry_agent_socket'");
    for (const path of [BACKEND, CONF]) {
      const compiled = spawnSync('python3', ['-I', '-m', 'py_compile', join(dir, path)], { encoding: 'utf8', cwd: '/', timeout: COMPILE_MS });
      expect(compiled.stderr).toBe('');
      expect(compiled.status).toBe(0);
    }
    expect(run('check', '--nova-dir', dir)).toMatchObject({ status: 0, stdout: expect.stringContaining(`patched: nova ${version} in ${dir} (${CONF} ${BACKEND}) carries ${patch}`) });
    expect(run('revert', '--nova-dir', dir)).toMatchObject({ status: 0, stdout: expect.stringContaining(`reverted ${patch}`) });
    expect(readFileSync(join(dir, BACKEND), 'utf8')).toBe(readFileSync(join(FIXTURES, `imagebackend-${version}.py`), 'utf8'));
    expect(readFileSync(join(dir, CONF), 'utf8')).toBe(readFileSync(join(FIXTURES, `conf-libvirt-${version}.py`), 'utf8'));
  }, RELEASE_TEST_MS);
});
