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

/** A shell command inside the clean system (its mount namespace: the overlays, its /run, its systemd). */
export function inside(script: string, timeoutMs = 300_000, input = ''): Run {
  return run('bash', [join(scripts, 'ctl'), 'sh', '-c', script], timeoutMs, input);
}
