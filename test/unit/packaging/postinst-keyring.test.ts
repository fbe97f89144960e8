// Contract: debian/ferry.postinst's upgrade path for the agent's cephx key (issue 34). The unit now hands the agent
// ferry's own read-only client.ferry (/etc/ceph/ceph.client.ferry.keyring); an agent upgraded from a version that ran
// with nova's key must keep answering: with no ferry key there, postinst writes a drop-in that keeps nova's keyring and
// nova.conf's rbd_user, and says what to do. A fresh install, or a node with ferry's key, gets no drop-in.
// Runs the real postinst as root in a private mount namespace (tmpfs over /etc/ceph and /etc/systemd/system).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const POSTINST = join(process.cwd(), 'debian', 'ferry.postinst');
const DROP_IN = '/etc/systemd/system/ferry-agent.service.d/ceph-keyring-nova.conf';
/** One postinst run in its namespace (a few shell commands); each test runs one, under the unit project's 60 s. */
const POSTINST_MS = 30_000;

/** postinst ARGS with the keyrings named present; prints the drop-in (or "none") after a marker line. */
function postinst(args: readonly string[], keyrings: readonly string[]): { status: number | null; stderr: string; dropIn: string } {
  // Nothing of the host's is written or run: ferry's own /etc/ferry (postinst makes keyrings/ there) and an installed
  // ferry's /usr/lib/ferry (postinst runs its nova-integration, which patches nova) are hidden too; a /etc/ceph or
  // /etc/ferry made as a mount point only (a machine without ceph-common or ferry: a fresh one) is removed again.
  const script = `set -e
made=''
trap 'for dir in $made; do umount "$dir" || true; rmdir "$dir"; done' EXIT
hide() { if [ ! -d "$1" ]; then mkdir "$1"; made="$made $1"; fi; mount -t tmpfs none "$1"; }
hide /etc/ceph
mount -t tmpfs none /etc/systemd/system
hide /etc/ferry
if [ -d /usr/lib/ferry ]; then mount -t tmpfs none /usr/lib/ferry; fi
for k in ${keyrings.join(' ')}; do echo "[client.x]" >"/etc/ceph/$k"; done
PATH=/usr/bin:/bin sh ${POSTINST} ${args.join(' ')} >/dev/null
echo ===
cat ${DROP_IN} 2>/dev/null || echo none`;
  const run = spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script], { encoding: 'utf8', timeout: POSTINST_MS });
  if (run.error) throw run.error;
  return { status: run.status, stderr: run.stderr, dropIn: run.stdout.split('===\n')[1] ?? '' };
}

describe.skipIf(process.geteuid?.() !== 0)('debian/ferry.postinst: the agent\'s cephx key on upgrade (root: a private mount namespace)', () => {
  it('an upgrade from 0.1.0 with nova\'s keyring and no ferry key: a drop-in keeps nova\'s keyring and rbd_user, and says how to move', () => {
    const run = postinst(['configure', '0.1.0'], ['ceph.client.nova.keyring']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.dropIn).toContain('LoadCredential=ceph.keyring:/etc/ceph/ceph.client.nova.keyring');
    expect(run.dropIn).toContain('BindReadOnlyPaths=%d/ceph.keyring:/etc/ceph/ceph.client.nova.keyring');
    expect(run.dropIn).toContain('AssertPathExists=/etc/ceph/ceph.client.nova.keyring');
    expect(run.dropIn).toContain('UnsetEnvironment=FERRY_RBD_USER');
    expect(run.stderr).toContain('ceph auth get-or-create client.ferry');
  });

  it.each([
    { name: 'a fresh install', args: ['configure'], keyrings: ['ceph.client.nova.keyring'] },
    { name: 'an upgrade where ferry\'s key is there', args: ['configure', '0.1.0'], keyrings: ['ceph.client.nova.keyring', 'ceph.client.ferry.keyring'] },
    { name: 'an upgrade from a version that had the change', args: ['configure', '0.2.0'], keyrings: ['ceph.client.nova.keyring'] },
  ])('$name: no drop-in', ({ args, keyrings }) => {
    const run = postinst(args, keyrings);
    expect(run.status, run.stderr).toBe(0);
    expect(run.dropIn.trim()).toBe('none');
  });
});
