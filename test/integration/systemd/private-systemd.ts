import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { devcloud } from '../../helpers/devcloud.js';

// The private, real systemd of scripts/systemd/up: /lib/systemd/systemd as PID 1 of its own pid/mount/uts/ipc/cgroup
// namespaces, sharing the host's network (the agent reaches the dev cloud on 127.0.0.1).

const scripts = join(process.cwd(), 'scripts/systemd');

export interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** scripts/systemd/up: boots the private systemd (or keeps the running one) and installs the units. */
export const SYSTEMD_UP_MS = 120_000;
/** scripts/systemd/down. */
export const SYSTEMD_DOWN_MS = 90_000;

function run(command: string, args: readonly string[], timeoutMs: number): Run {
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
  const up = run('bash', [join(scripts, 'up')], SYSTEMD_UP_MS);
  if (up.code !== 0) throw new Error(`scripts/systemd/up exited ${up.code}:\n${up.stdout}${up.stderr}`);
}

export function systemdDown(): Run {
  return run('bash', [join(scripts, 'down')], SYSTEMD_DOWN_MS);
}

/**
 * A job systemctl waits for: a unit started, stopped, reloaded (systemd's default job timeout is 90 s, its
 * DefaultTimeoutStartSec and DefaultTimeoutStopSec), or a transient unit of systemd-run.
 */
export const UNIT_JOB_MS = 100_000;
/** Anything else inside: systemctl show/is-active/daemon-reload, journalctl, cat, stat, install: one answer, no job. */
export const COMMAND_MS = 15_000;
const JOB_VERBS = new Set(['start', 'stop', 'restart', 'reload', 'try-restart', 'reload-or-restart', 'enable', 'disable']);

/** What a command inside waits for, as a timeout: a unit's job, or only systemd's (or a file's) answer. */
export function ctlTimeoutMs(args: readonly string[]): number {
  const [command, verb] = args;
  if (command === 'systemd-run') return UNIT_JOB_MS;
  return command === 'systemctl' && verb !== undefined && JOB_VERBS.has(verb) ? UNIT_JOB_MS : COMMAND_MS;
}

/** A command inside the private systemd's namespaces (scripts/systemd/ctl), its timeout from what it waits for. */
export function ctl(args: readonly string[], timeoutMs = ctlTimeoutMs(args)): Run {
  return run('bash', [join(scripts, 'ctl'), ...args], timeoutMs);
}

/**
 * Wait, in one program inside, until the shell CONDITION holds, trying every 0.1 s for at most `seconds`: one spawn
 * the test's limit counts once (waitInsideMs), where a loop of ctl() calls counts each call's timeout. Returns whether
 * it came; the caller asserts what it needs.
 */
export function waitInside(condition: string, seconds: number): boolean {
  return ctl(['timeout', String(seconds), 'sh', '-c', `until ${condition}; do sleep 0.1; done`], waitInsideMs(seconds)).code === 0;
}
/** waitInside's timeout: its seconds, and the ctl around it. */
export const waitInsideMs = (seconds: number): number => seconds * 1000 + COMMAND_MS;

/** waitInside until UNIT's journal after CURSOR (journalctl OPTIONS) has a line with TEXT (or matching it: grep -E). */
export function waitForJournal(unit: string, cursor: string, text: string, seconds: number, options: { extended?: boolean; journalctl?: readonly string[] } = {}): boolean {
  const journal = ['journalctl', '--no-pager', '-o', 'cat', '-u', unit, `--after-cursor=${cursor}`, ...options.journalctl ?? []].map(quote).join(' ');
  return waitInside(`${journal} | grep -q${options.extended === true ? 'E' : 'F'} ${quote(text)}`, seconds);
}
const quote = (word: string): string => `'${word.replaceAll("'", "'\\''")}'`;

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

/** Where the units see the files scripts/systemd/up writes to $FERRY_DEVCLOUD_DIR/systemd/etc (a bind mount inside). */
const ETC_INSIDE = '/run/ferry-devcloud/etc';

/**
 * The dev cloud's SITE as Ceph client USER, for a unit: the dev cloud's own ceph.conf and keyrings lie in the checkout,
 * which a unit's user cannot reach when the checkout is in a home (ProtectHome=yes; /root is 0700), as a new user's
 * clone is. Its fsid and mon_host and USER's keyring (its mode kept) are copied as NAME.conf and NAME.client.USER.keyring
 * into the view scripts/systemd/up mounts at /run/ferry-devcloud/etc (after systemdUp(): each up empties it).
 * Returns the configuration's path inside.
 */
export function cephClientInside(site: 'site-a' | 'site-b', user: string, name: string): string {
  const conf = devcloud().ceph[site].conf;
  const text = readFileSync(conf, 'utf8');
  const setting = (key: string): string => {
    const value = new RegExp(`^${key}\\s*=\\s*(.+)$`, 'm').exec(text)?.[1];
    if (value === undefined) throw new Error(`no ${key} in ${conf}`);
    return value.trim();
  };
  const etc = join(devcloud().dir, 'systemd', 'etc', 'ceph');
  const keyring = join(dirname(conf), `ceph.client.${user}.keyring`);
  const keyringCopy = join(etc, `${name}.client.${user}.keyring`);
  copyFileSync(keyring, keyringCopy);
  chmodSync(keyringCopy, statSync(keyring).mode & 0o777);
  writeFileSync(join(etc, `${name}.conf`), [
    `# ${site} as client.${user} sees it, for a unit (test/integration/systemd/private-systemd.ts)`, '[global]',
    `fsid = ${setting('fsid')}`, `mon_host = ${setting('mon_host')}`,
    'auth_cluster_required = cephx', 'auth_service_required = cephx', 'auth_client_required = cephx', '',
    '[client]', `keyring = ${ETC_INSIDE}/ceph/${name}.$name.keyring`, ''].join('\n'), { mode: 0o644 });
  return `${ETC_INSIDE}/ceph/${name}.conf`;
}

/** getent reads /etc/passwd or /etc/group. */
export const GETENT_MS = 10_000;
/** Numeric id of a group or user, from the host's databases (the namespace shares /etc). */
export function idOf(database: 'group' | 'passwd', name: string): number {
  const entry = spawnSync('getent', [database, name], { encoding: 'utf8', timeout: GETENT_MS });
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
