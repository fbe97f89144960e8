// A nova site directory made of fixtures/nova/'s released files, and integrations/nova/ferry-nova-patch run on it:
// shared by the unit tests of the script (test/unit/nova/).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENSURE_PROGRAM_MS, ensureDebianProgram } from './debian-program.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const NOVA_FIXTURES = join(ROOT, 'fixtures', 'nova');
export const FERRY_NOVA_PATCH = join(ROOT, 'integrations', 'nova', 'ferry-nova-patch');

/** beforeAll's limit for ensurePatchProgram. */
export const ENSURE_PATCH_MS = ENSURE_PROGRAM_MS;

/** GNU patch, which nova's patches and ferry-nova-patch need and a fresh Debian 12 lacks (not in its important set). */
export function ensurePatchProgram(): void {
  ensureDebianProgram('patch', 'patch', 'nova unit tests');
}

/**
 * A site directory as Debian lays it out (the caller removes it): the two files the patch changes, from
 * fixtures/nova/ for that version, and nova-VERSION.egg-info/PKG-INFO. `file` is imagebackend.py.
 */
export function novaSite(version: string): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-nova-site-'));
  const file = join(dir, 'nova', 'virt', 'libvirt', 'imagebackend.py');
  mkdirSync(dirname(file), { recursive: true });
  copyFileSync(join(NOVA_FIXTURES, `imagebackend-${version}.py`), file);
  mkdirSync(join(dir, 'nova', 'conf'));
  copyFileSync(join(NOVA_FIXTURES, `conf-libvirt-${version}.py`), join(dir, 'nova', 'conf', 'libvirt.py'));
  mkdirSync(join(dir, `nova-${version}.egg-info`));
  writeFileSync(join(dir, `nova-${version}.egg-info`, 'PKG-INFO'), `Metadata-Version: 2.1\nName: nova\nVersion: ${version}\n`);
  return { dir, file };
}

/** One run of ferry-nova-patch (up to four dry runs of patch(1), a python3 looking for nova): a test adds one per run. */
export const FERRY_NOVA_PATCH_MS = 30_000;

/** integrations/nova/ferry-nova-patch ARGS: its exit status and output. */
export function ferryNovaPatch(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(FERRY_NOVA_PATCH, args, { encoding: 'utf8', timeout: FERRY_NOVA_PATCH_MS });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
