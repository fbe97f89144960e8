// scripts/devcloud/down --purge with the test run's extra dev clouds inside the state dir (second-cloud/, third-cloud/):
// they are stopped and purged first. Seen before: the first cloud's directory was deleted under a running second cloud,
// whose processes lived on. A stand-in "service" (a process whose command line names its state dir, as the scripts'
// own check wants) takes the place of the cloud's daemons.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

/** down stops a service with TERM and waits up to 10 s before KILL; the purge of two state dirs stays well inside this. */
const DOWN_MS = 60_000;
/** A stand-in service's own life: longer than the test needs it, bounded all the same. */
const STAND_IN_MS = 60_000;
const started: number[] = [];

afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
});

/** A state dir with its marker, and a "keystone" recorded in its pids/ whose command line names the dir. */
function fakeCloud(dir: string): number {
  mkdirSync(join(dir, 'pids'), { recursive: true });
  writeFileSync(join(dir, '.ferry-devcloud'), '');
  const child = spawn('bash', ['-c', 'sleep 60; true', join(dir, 'keystone')], { detached: true, stdio: 'ignore', timeout: STAND_IN_MS });
  child.unref();
  const pid = child.pid ?? 0;
  started.push(pid);
  writeFileSync(join(dir, 'pids', 'keystone.pid'), String(pid));
  return pid;
}

/** Running: a process this test started and that ended stays a zombie until Node reaps it, which is not running. */
const alive = (pid: number): boolean => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

describe('scripts/devcloud/down --purge', () => {
  it('stops and purges the clouds inside the state dir before deleting it', () => {
    const first = mkdtempSync(join(tmpdir(), 'ferry-down-'));
    const firstPid = fakeCloud(first);
    const secondPid = fakeCloud(join(first, 'second-cloud'));
    const down = spawnSync('bash', ['scripts/devcloud/down', '--purge'], { env: { ...process.env, FERRY_DEVCLOUD_DIR: first }, encoding: 'utf8', timeout: DOWN_MS });
    expect(down.status, down.stderr).toBe(0);
    expect(existsSync(first)).toBe(false);
    expect(alive(firstPid)).toBe(false);
    expect(alive(secondPid)).toBe(false);
  }, 2 * STAND_IN_MS + DOWN_MS + 10_000);
});
