// /etc/default/ferry-agent may hold OS_* secrets (an EnvironmentFile: debian/ferry.postinst, docs/security.md): the .deb
// ships it root:root 0600. debian/rules installs it 0600, and dh_fixperms (go=rX on every file) then made it 0644 in
// the package. This runs debian/rules' own fixperms step, with the real dh_fixperms, over a package tree of one file.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENSURE_PROGRAM_MS, ensureDebianProgram } from '../../helpers/debian-program.js';

// A fresh Debian 12 has neither (seen in scripts/fresh-root: spawnSync make ENOENT); debhelper brings both.
beforeAll(() => {
  ensureDebianProgram('dh_fixperms', 'debhelper', 'the .deb file-mode test');
  ensureDebianProgram('make', 'make', 'the .deb file-mode test');
}, 2 * ENSURE_PROGRAM_MS);

const work = mkdtempSync(join(tmpdir(), 'ferry-fixperms-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('debian/rules: the mode /etc/default/ferry-agent is packaged with', () => {
  // make and dh_fixperms over a tree of two files: well under a second here; 20 s allows a loaded 2-core machine.
  it('root:root 0600 after debian/rules override_dh_fixperms-arch (dh_fixperms made it 0644)', () => {
    cpSync('debian', join(work, 'debian'), { recursive: true });
    const defaults = join(work, 'debian/ferry/etc/default/ferry-agent');
    mkdirSync(join(work, 'debian/ferry/etc/default'), { recursive: true });
    mkdirSync(join(work, 'debian/ferry/usr/lib/ferry/node_modules'), { recursive: true });
    writeFileSync(defaults, 'FERRY_AGENT_ARGS=\n', { mode: 0o600 });
    execFileSync('make', ['-s', '-f', 'debian/rules', 'override_dh_fixperms-arch'], { cwd: work, stdio: 'pipe', timeout: 20_000 });
    const stat = statSync(defaults);
    expect((stat.mode & 0o777).toString(8)).toBe('600');
    expect([stat.uid, stat.gid]).toEqual([0, 0]);
  }, 20_000);
});
