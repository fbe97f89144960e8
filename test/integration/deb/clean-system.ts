import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { devcloud } from '../../helpers/devcloud.js';

// The throw-away system of scripts/systemd/up-clean: a private, real systemd whose /etc, /usr and /var are overlays
// (changes kept in $FERRY_DEVCLOUD_DIR/systemd-clean/overlay), so the Debian package is installed, upgraded, removed
// and purged there without touching the host.

const scripts = join(process.cwd(), 'scripts/systemd');

export interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function env(): NodeJS.ProcessEnv {
  const dir = devcloud().dir;
  return { ...process.env, FERRY_DEVCLOUD_DIR: dir, FERRY_SYSTEMD_STATE_DIR: join(dir, 'systemd-clean') };
}

function run(command: string, args: readonly string[], timeoutMs: number, input = ''): Run {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: timeoutMs, env: env(), input });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** Boot a fresh clean system (a running one is stopped and its overlay wiped first). */
export function cleanUp(): Run {
  return run('bash', [join(scripts, 'up-clean')], 180_000);
}

export function cleanDown(): Run {
  return run('bash', [join(scripts, 'down')], 90_000);
}

/** A command inside that installs nothing and starts no unit: stat, cat, dpkg-query, systemctl show, journalctl, curl to the agent. */
export const INSIDE_MS = 30_000;
/** A command that changes units or nova's files, not through dpkg: systemctl start/stop (systemd's 90 s job timeout), nova-integration sync, ferry-nova-patch revert. */
export const CHANGE_MS = 100_000;
/** A dpkg or apt-get run: unpacking, and the maintainer scripts that start, stop or restart units and patch nova. */
export const DPKG_MS = 300_000;

/**
 * A shell command inside the clean system (its mount namespace: the overlays, its /run, its systemd). A command that
 * changes the system passes its own timeout (CHANGE_MS, DPKG_MS); the test's limit counts each call's.
 */
export function inside(script: string, timeoutMs = INSIDE_MS, input = ''): Run {
  return run('bash', [join(scripts, 'ctl'), 'sh', '-c', script], timeoutMs, input);
}
