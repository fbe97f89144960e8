// The kolla cell with podman (issue 37): scripts/containers/kolla-cell on kolla-ansible's layout against the dev cloud —
// /etc/kolla/nova-compute/nova.conf merged from the operator's nova-compute.conf, config.json laid out by nova_compute's
// kolla_start as root, the agent's socket shared with nova_compute through /run/ferry by the nova GID 42436, nova's
// real Rbd.clone() patched at image build time cloning through the agent, then a reconfigure and an upgrade of the agent
// container while clones run, with no failed boot. The script prints one PASS/FAIL line per step; this test runs it and
// wants every step to pass.
// podman comes from Debian (installed here when missing); skipped, loudly, when podman cannot run a container here
// (not root, no podman after the install, or `podman info` failing). The .debs: FERRY_KOLLA_DEB and
// FERRY_KOLLA_DEB_NEWER, or built here (test/helpers/built-debs.ts).
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markReached } from '../../helpers/devcloud.js';
import { BUILD_MS, CLONE_MS, HEAD_MS, kollaDebs } from '../../helpers/built-debs.js';

const root = process.cwd();
/** apt-get install podman runc mmdebstrap, behind the machine's apt lock (others may hold it for minutes). */
const APT_MS = 900_000;
/** Cold: the two mmdebstrap roots (422 s and 1,301 s measured at load 17-24, 1,676 s at load 28 here); warm: none. */
const ROOTS_MS = 2_400_000;
/** The cell once the roots exist: three image builds, the clones (3 a step) and the agent's two replacements. */
const CELL_MS = 1_200_000;

function cannotRunPodman(): string {
  if (process.geteuid?.() !== 0) return 'not root (podman as root, mmdebstrap)';
  const has = (tool: string): boolean => spawnSync('sh', ['-c', `command -v ${tool}`], { timeout: 10_000 }).status === 0;
  if (!has('podman') || !has('runc') || !has('mmdebstrap')) {
    const apt = spawnSync('flock', ['/tmp/ferry-apt.lock', 'apt-get', 'install', '-y', '-q', 'podman', 'runc', 'mmdebstrap'],
      { encoding: 'utf8', timeout: APT_MS, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (apt.status !== 0) return `podman, runc or mmdebstrap missing and apt-get install failed: ${(apt.stderr || '').trim().split('\n').pop() ?? ''}`;
  }
  const info = spawnSync('podman', ['--runtime', 'runc', 'info'], { encoding: 'utf8', timeout: 60_000 });
  if (info.status !== 0) return `podman info fails: ${(info.stderr || '').trim().split('\n').pop() ?? ''}`;
  return '';
}

// Opt-in (FERRY_TEST_KOLLA_CELL=1, `npm run test:kolla`): on a new machine it builds two Debian roots (28 min at
// load 28) and two .debs before its 6 minutes of cell; npm test stays under its time budget without it, and
// docs/deploy/kolla.md gives its last runs. The .deb on a kolla host (deb-kolla-host.test.ts) runs in every npm test.
const optedIn = process.env.FERRY_TEST_KOLLA_CELL === '1';
const reason = optedIn ? cannotRunPodman() : 'not asked for (FERRY_TEST_KOLLA_CELL=1, or npm run test:kolla, runs it)';
if (reason !== '') console.warn(`\n${'!'.repeat(78)}\nKOLLA CELL TEST SKIPPED: ${optedIn ? 'podman cannot run here: ' : ''}${reason}\n${'!'.repeat(78)}\n`);
const stateDir = process.env.FERRY_DEVCLOUD_DIR ?? join(root, '.devcloud');
mkdirSync(stateDir, { recursive: true });

describe.skipIf(reason !== '')('the kolla cell with podman (scripts/containers/kolla-cell)', () => {
  it('nova_compute clones through ferry_agent on kolla\'s layout; a reconfigure and an upgrade of the agent while clones run fail no boot', () => {
    const { deb, newer } = kollaDebs(stateDir, true);
    const cell = spawnSync('bash', [join(root, 'scripts/containers/kolla-cell'), '--deb', deb, '--upgrade-deb', newer],
      { encoding: 'utf8', timeout: ROOTS_MS + CELL_MS, maxBuffer: 64 * 1024 * 1024 });
    const lines = cell.stdout.split('\n');
    console.log(lines.filter((line) => /^(PASS|FAIL| {6})/.test(line)).join('\n'));
    markReached('glance');
    expect(lines.filter((line) => line.startsWith('FAIL')), `${cell.stdout}\n${cell.stderr.slice(-4000)}`).toEqual([]);
    expect(cell.status, cell.stderr.slice(-4000)).toBe(0);
    const passed = lines.filter((line) => line.startsWith('PASS')).join('\n');
    for (const step of ['/etc/kolla/nova-compute/nova.conf: the operator', 'ferry_agent up', 'nova_compute up: kolla_start laid out config.json',
      'nova_compute cloned an image of site-a through ferry_agent', 'reconfigure while 3 clones ran', 'reconfigure: the agent\'s nova.conf has the new option',
      'upgrade while 3 clones ran', 'upgrade: ferry_agent runs the image of']) {
      expect(passed, step).toContain(step);
    }
    expect(passed).toMatch(/reconfigure while 3 clones ran .*: 0 failed boots/);
    expect(passed).toMatch(/upgrade while 3 clones ran .*: 0 failed boots/);
  }, HEAD_MS + CLONE_MS + 2 * BUILD_MS + ROOTS_MS + CELL_MS);
});
