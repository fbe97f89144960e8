// Contract: every nova patch in integrations/nova/ applies EXACTLY (no fuzz, no offset) to the pristine
// nova/virt/libvirt/imagebackend.py of the nova version it is for (fixtures/nova/, see its README.md), and the patched
// file is Python that compiles and asks the ferry agent instead of polling Glance.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const PATCHES = join(ROOT, 'integrations', 'nova');
const FIXTURES = join(ROOT, 'fixtures', 'nova');

/** Each patch and the pristine file (nova's own, from the Debian package named in fixtures/nova/README.md) it is for. */
const NOVA_PATCHES = [
  { patch: 'nova-26-imagebackend.patch', pristine: 'imagebackend-26.2.2.py' },
  { patch: 'nova-34-imagebackend.patch', pristine: 'imagebackend-34.0.0.py' },
] as const;

const trees: string[] = [];
afterEach(() => {
  for (const tree of trees.splice(0)) rmSync(tree, { recursive: true, force: true });
});

/** A directory holding nova/virt/libvirt/imagebackend.py = the given pristine file, as `patch -p1 -d` expects. */
function pristineTree(pristine: string): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-nova-patch-'));
  trees.push(dir);
  const file = join(dir, 'nova', 'virt', 'libvirt', 'imagebackend.py');
  mkdirSync(dirname(file), { recursive: true });
  copyFileSync(join(FIXTURES, pristine), file);
  return { dir, file };
}

function patch(dir: string, patchFile: string, ...flags: string[]): { status: number | null; output: string } {
  const result = spawnSync('patch', ['-p1', '--forward', '--batch', ...flags, '-d', dir, '-i', join(PATCHES, patchFile)], { encoding: 'utf8' });
  if (result.error) throw new Error(`cannot run patch(1): ${result.error.message} (Debian: apt-get install patch)`);
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('nova patches in integrations/nova/', () => {
  it('every *.patch there has its pristine nova file in fixtures/nova/', () => {
    const patches = readdirSync(PATCHES).filter((name) => name.endsWith('.patch')).sort();
    expect(patches).toEqual(NOVA_PATCHES.map((p) => p.patch).sort());
  });

  it.each(NOVA_PATCHES)('$patch applies to $pristine with `patch --dry-run`, without fuzz or offset', ({ patch: patchFile, pristine }) => {
    const { dir, file } = pristineTree(pristine);
    const before = readFileSync(file, 'utf8');
    const result = patch(dir, patchFile, '--dry-run');
    expect(result.output).toBe('checking file nova/virt/libvirt/imagebackend.py\n');
    expect(result.status).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it.each(NOVA_PATCHES)('$patch applied: the file compiles, copy_to_store() asks ferry_agent and no longer polls Glance', ({ patch: patchFile, pristine }) => {
    const { dir, file } = pristineTree(pristine);
    expect(readFileSync(file, 'utf8')).toContain('loopingcall.FixedIntervalWithTimeoutLoopingCall(_wait_for_copy)');
    expect(patch(dir, patchFile).status).toBe(0);
    const patched = readFileSync(file, 'utf8');
    expect(patched).toContain('result = ferry_agent.ensure(image_id, store=store_name,');
    expect(patched).toContain('target = self.copy_to_store(context, image_meta)');
    expect(patched).not.toContain('loopingcall');
    expect(patched).not.toContain('IMAGE_API.copy_image_to_store');
    const compiled = spawnSync('python3', ['-m', 'py_compile', file], { encoding: 'utf8' });
    expect(compiled.stderr).toBe('');
    expect(compiled.status).toBe(0);
  });

  it.each(NOVA_PATCHES)('$patch reversed restores $pristine byte for byte', ({ patch: patchFile, pristine }) => {
    const { dir, file } = pristineTree(pristine);
    expect(patch(dir, patchFile).status).toBe(0);
    expect(spawnSync('patch', ['-p1', '-R', '--batch', '-d', dir, '-i', join(PATCHES, patchFile)]).status).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(readFileSync(join(FIXTURES, pristine), 'utf8'));
  });
});
