import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { devcloud } from '../../helpers/devcloud.js';

// The private, real systemd of scripts/systemd/up: /lib/systemd/systemd as PID 1 of its own pid/mount/uts/ipc/cgroup
// namespaces, sharing the host's network (the agent reaches the dev cloud on 127.0.0.1).

const scripts = join(process.cwd(), 'scripts/systemd');

export interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(command: string, args: readonly string[], timeoutMs = 120_000): Run {
  const result = spawnSync(command, args, {
    encoding: 'utf8', timeout: timeoutMs, env: { ...process.env, FERRY_DEVCLOUD_DIR: devcloud().dir },
  });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** Why this machine cannot run systemd at all (`scripts/systemd/up --check`), or '' when it can. */
export function cannotRunSystemd(): string {
  const check = spawnSync('bash', [join(scripts, 'up'), '--check'], { encoding: 'utf8', timeout: 30_000 });
  if (check.status === 0) return '';
  return (check.stdout + check.stderr).trim() || `scripts/systemd/up --check exited ${check.status}`;
}

const initPidFile = (): string => join(devcloud().dir, 'systemd', 'init.pid');

/** Host PID of the private systemd, if one runs. */
export function initPid(): number | undefined {
  if (!existsSync(initPidFile())) return undefined;
  const pid = Number(readFileSync(initPidFile(), 'utf8').trim());
  return Number.isInteger(pid) && existsSync(`/proc/${pid}`) ? pid : undefined;
}

/** Boot it (or keep the running one) and (re)install ferry-agent.service; throws with the script's output on failure. */
export function systemdUp(): void {
  const up = run('bash', [join(scripts, 'up')]);
  if (up.code !== 0) throw new Error(`scripts/systemd/up exited ${up.code}:\n${up.stdout}${up.stderr}`);
}

export function systemdDown(): Run {
  return run('bash', [join(scripts, 'down')], 90_000);
}

/** A command inside the private systemd's namespaces (scripts/systemd/ctl). */
export function ctl(args: readonly string[], timeoutMs = 90_000): Run {
  return run('bash', [join(scripts, 'ctl'), ...args], timeoutMs);
}

/** `systemctl show UNIT -p A -p B` as a record. */
export function show(unit: string, properties: readonly string[]): Record<string, string> {
  const out = ctl(['systemctl', 'show', unit, ...properties.flatMap((p) => ['-p', p])]);
  if (out.code !== 0) throw new Error(`systemctl show ${unit}: ${out.stderr}`);
  return Object.fromEntries(out.stdout.trim().split('\n').map((line) => {
    const at = line.indexOf('=');
    return [line.slice(0, at), line.slice(at + 1)];
  }));
}

/** A path inside the private systemd's mount namespace, as the host reaches it (root only). */
export function insidePath(path: string): string {
  const pid = initPid();
  if (pid === undefined) throw new Error('the private systemd is not running');
  return `/proc/${pid}/root${path}`;
}

/** Numeric id of a group or user, from the host's databases (the namespace shares /etc). */
export function idOf(database: 'group' | 'passwd', name: string): number {
  const entry = spawnSync('getent', [database, name], { encoding: 'utf8', timeout: 10_000 });
  if (entry.status !== 0) throw new Error(`getent ${database} ${name}: not found`);
  return Number(entry.stdout.split(':')[2]);
}

/** At the end of a test file: stop the private systemd if this file booted it (one kept from before stays up). */
export function downIfStartedHere(started: boolean): void {
  if (!started) return;
  const down = systemdDown();
  if (down.code !== 0) console.error(`scripts/systemd/down exited ${down.code}: ${down.stdout}${down.stderr}`);
}

/** The journal's cursor now: a test reads only what its units logged after it (`journalctl --after-cursor=`). */
export function journalCursorNow(): string {
  const cursor = /^-- cursor: (.+)$/m.exec(ctl(['journalctl', '--no-pager', '-n', '0', '--show-cursor']).stdout)?.[1];
  if (cursor === undefined) throw new Error('journalctl --show-cursor printed no cursor');
  return cursor;
}

/** A test's own drop-in (not the shipped unit's, not the dev cloud's): installed from `source`, then daemon-reload. */
export function installDropIn(source: string, target: string): void {
  const install = ctl(['install', '-m', '0644', source, target]);
  if (install.code !== 0) throw new Error(`install ${target}: ${install.stderr}`);
  const reload = ctl(['systemctl', 'daemon-reload']);
  if (reload.code !== 0) throw new Error(`systemctl daemon-reload: ${reload.stderr}`);
}

/** After a test: its units stopped, its drop-in gone, systemd reloaded (when the private systemd still runs). */
export function removeDropIn(target: string, units: readonly string[]): void {
  if (initPid() === undefined) return;
  ctl(['systemctl', 'stop', ...units]);
  ctl(['rm', '-f', target]);
  ctl(['systemctl', 'daemon-reload']);
}
