import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cannotRunSystemd, SYSTEMD_DOWN_MS, SYSTEMD_UP_MS } from './private-systemd.js';

// The private systemd of scripts/systemd boots on a unified-cgroup host too: Debian 12 (systemd 252) mounts the cgroup2
// hierarchy itself on /sys/fs/cgroup, where this machine is hybrid (a tmpfs there, cgroup2 on /sys/fs/cgroup/unified).
// The boot runs in a mount namespace laid out as a unified host's (on one, as it is), then the private systemd stops.
// Skipped only where systemd cannot run at all (the reason is in the name).

const reason = cannotRunSystemd();
const scripts = join(process.cwd(), 'scripts/systemd');
const state = mkdtempSync(join(tmpdir(), 'ferry-unified-cgroup-'));

/** As a unified host: cgroup2 on /sys/fs/cgroup (this namespace only); then boot, and always down (boot.sh's log on failure). */
const BOOT_ON_UNIFIED = `
set -euo pipefail
if [[ $(stat -f -c %T /sys/fs/cgroup) != cgroup2fs ]]; then
  umount -R -l /sys/fs/cgroup
  mount -t cgroup2 cgroup2 /sys/fs/cgroup
fi
source ${JSON.stringify(join(scripts, 'lib/common.sh'))}
trap '[[ $? -eq 0 ]] || tail -n 40 "$LOG_FILE" >&2; bash ${JSON.stringify(join(scripts, 'down'))}' EXIT
boot_private_systemd
in_ns stat -f -c 'inside: %T' /sys/fs/cgroup
`;
const BOOT_MS = SYSTEMD_UP_MS + SYSTEMD_DOWN_MS;

afterAll(() => rmSync(state, { recursive: true, force: true }));

describe.skipIf(reason !== '')(`private systemd on a unified cgroup2 host${reason === '' ? '' : ` (SKIPPED: ${reason})`}`, () => {
  it('boots with its own cgroup2 mount over the host\'s, and stops', () => {
    const boot = spawnSync('unshare', ['--mount', '--propagation', 'private', 'bash', '-c', BOOT_ON_UNIFIED], {
      encoding: 'utf8', timeout: BOOT_MS, env: { ...process.env, FERRY_SYSTEMD_STATE_DIR: state },
    });
    const output = `${boot.stdout}${boot.stderr}`;
    expect(output).toMatch(/system state: (running|degraded)/);
    expect(output).toContain('inside: cgroup2fs');
    expect(output).toContain('[systemd] stopped');
    expect(output).not.toContain('not removed');
    expect(boot.status, output).toBe(0);
  }, BOOT_MS + 5_000);
});
