import { spawn } from 'node:child_process';
import { lstatSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAgent } from '../../../src/agent/agent-client.js';
import { ensureJsonSchema } from '../../../src/contract/ensure-document.js';
import { syslogPriority } from '../../../src/logging/journald-priority.js';
import { devcloud, markReached } from '../../helpers/devcloud.js';
import { deleteImage, uploadImage, waitUnlocked } from '../../helpers/glance-admin.js';
import { INTEGRATION_TEST_MS } from '../../helpers/spawn-budget.js';
import {
  cannotRunSystemd, COMMAND_MS, ctl, downIfStartedHere, initPid, insidePath, show, SYSTEMD_DOWN_MS, SYSTEMD_UP_MS, systemdUp, UNIT_JOB_MS,
  waitForJournal, waitInsideMs,
} from './private-systemd.js';

// ferry-agent.socket + ferry-agent.service under the real systemd of scripts/systemd/up: a `systemctl restart` under
// load fails no request (they wait in the backlog of systemd's socket), and every line the agent logs reaches journald
// at its own priority. Skipped only where systemd cannot run at all (the reason is in the name).

const UNIT = 'ferry-agent.service';
const SOCKET_UNIT = 'ferry-agent.socket';
const CLIENTS = 10;
const REQUESTS_PER_CLIENT = 20;
const reason = cannotRunSystemd();

let startedSystemd = false;
let journalCursor = '';
/** `--since` for journalctl -p: it skips matches after --after-cursor when the cursor's own entry does not match. */
let journalSinceTime = '';
let imageId = '';
const socket = (): string => insidePath('/run/ferry/agent.sock');
const systemctl = (...args: string[]) => ctl(['systemctl', ...args]);
const mainPid = (): number => Number(show(UNIT, ['MainPID']).MainPID);
const journalSince = (...args: string[]): string =>
  ctl(['journalctl', '--no-pager', '-u', UNIT, `--after-cursor=${journalCursor}`, ...args]).stdout;

interface Outcome {
  readonly i: number;
  readonly status?: number;
  readonly error?: string;
  readonly body?: string;
  readonly ms: number;
  /** When the test process read the line (ms since epoch). */
  at: number;
}

/** One socket client's program: its REQUESTS_PER_CLIENT requests, side by side with the others'. */
const CLIENT_MS = 170_000;
/** CLIENTS processes, REQUESTS_PER_CLIENT each; `onOutcome` sees each answer as it comes. */
function runClients(onOutcome: (outcome: Outcome, total: number) => void): Promise<Outcome[]> {
  const body = JSON.stringify({ image: imageId });
  const outcomes: Outcome[] = [];
  const clients = Array.from({ length: CLIENTS }, () => new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [join(import.meta.dirname, 'socket-client.mjs'), socket(), String(REQUESTS_PER_CLIENT), '60', body],
      { stdio: ['ignore', 'pipe', 'inherit'], timeout: CLIENT_MS });
    createInterface({ input: child.stdout }).on('line', (line) => {
      const outcome = { ...(JSON.parse(line) as Outcome), at: Date.now() };
      outcomes.push(outcome);
      onOutcome(outcome, outcomes.length);
    });
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`socket client exited ${code}`))));
  }));
  return Promise.all(clients).then(() => outcomes);
}

/** ctl(), not waited for: a unit's job (UNIT_JOB_MS) while the test does something else. */
function ctlAsync(args: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [join(process.cwd(), 'scripts/systemd/ctl'), ...args],
      { stdio: 'inherit', env: { ...process.env, FERRY_DEVCLOUD_DIR: devcloud().dir }, timeout: UNIT_JOB_MS });
    child.once('error', reject);
    child.once('close', (code) => resolve(code ?? -1));
  });
}

describe.skipIf(reason !== '')(`ferry-agent.socket: restart under load, journald priorities${reason === '' ? '' : ` (SKIPPED: ${reason})`}`, () => {
  beforeAll(async () => {
    startedSystemd = initPid() === undefined;
    systemdUp();
    const cursor = /^-- cursor: (.+)$/m.exec(ctl(['journalctl', '--no-pager', '-n', '0', '--show-cursor']).stdout)?.[1];
    if (cursor === undefined) throw new Error('journalctl --show-cursor printed no cursor');
    journalCursor = cursor;
    journalSinceTime = `@${Math.floor(Date.now() / 1000)}`;
    const start = systemctl('start', SOCKET_UNIT, UNIT);
    expect(start.code, start.stderr).toBe(0);
    markReached('systemd');
    imageId = await uploadImage({ name: 'it-systemd-restart', store: 'site-a', sizeBytes: 4 * 1024 * 1024 });
    const first = await callAgent(socket(), { method: 'POST', path: '/v1/ensure', body: { image: imageId } });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(ensureJsonSchema.parse(first.body)).toMatchObject({ image: imageId, store: 'site-b' });
  }, INTEGRATION_TEST_MS + SYSTEMD_UP_MS + COMMAND_MS + UNIT_JOB_MS);

  afterAll(async () => {
    if (initPid() !== undefined) systemctl('stop', UNIT, SOCKET_UNIT);
    downIfStartedHere(startedSystemd);
    if (imageId !== '') {
      await waitUnlocked(imageId);
      await deleteImage(imageId);
    }
  }, INTEGRATION_TEST_MS + UNIT_JOB_MS + SYSTEMD_DOWN_MS);

  it(`systemctl restart while ${CLIENTS} processes send ${CLIENTS * REQUESTS_PER_CLIENT} requests: none fails; those sent meanwhile wait in the socket's backlog`, async () => {
    const pidBefore = mainPid();
    const socketInode = lstatSync(socket()).ino;
    let restart: Promise<number> | undefined;
    let restartStarted = 0;
    let restartEnded = 0;
    const outcomes = await runClients((_outcome, total) => {
      // A third of the way in: the clients are busy, and stay so for the whole restart.
      if (restart === undefined && total >= 60) {
        restartStarted = Date.now();
        restart = ctlAsync(['systemctl', 'restart', UNIT]).then((code) => {
          restartEnded = Date.now();
          return code;
        });
      }
    });
    expect(await restart).toBe(0);
    const failed = outcomes.filter((outcome) => outcome.status !== 200);
    const before = outcomes.filter((outcome) => outcome.at < restartStarted).length;
    const after = outcomes.filter((outcome) => outcome.at > restartEnded).length;
    const slowest = Math.max(...outcomes.map((outcome) => outcome.ms));
    console.info(`restart under load: ${outcomes.length} requests, ${failed.length} failed; ${before} answered before the restart, `
      + `${after} after it; the restart took ${restartEnded - restartStarted} ms; slowest request ${slowest} ms`);
    expect(failed).toEqual([]);
    expect(outcomes).toHaveLength(CLIENTS * REQUESTS_PER_CLIENT);
    // The restart really fell among the requests: a new process answered some, and the old one others.
    expect(before).toBeGreaterThan(0);
    expect(after).toBeGreaterThan(0);
    expect(mainPid()).not.toBe(pidBefore);
    // The socket is the same file throughout (systemd's), not one the new agent made.
    expect(lstatSync(socket()).ino).toBe(socketInode);
    expect(journalSince('-o', 'cat')).toMatch(/stopped after \d+ requests/);
    // The restart starts while the clients run and may end after them.
  }, COMMAND_MS + CLIENT_MS + UNIT_JOB_MS + 2 * COMMAND_MS);

  it('journald: every agent line is stored at its pino level\'s priority; journalctl -p warning shows only warnings and errors', () => {
    // An error line: SIGHUP with a broken clouds.yaml (the agent keeps the old configuration and logs at level 50).
    const cloudsYaml = join(devcloud().dir, 'systemd', 'etc', 'clouds.yaml');
    const good = readFileSync(cloudsYaml);
    try {
      writeFileSync(cloudsYaml, 'clouds: [broken\n');
      expect(systemctl('reload', UNIT).code).toBe(0);
      waitForJournal(UNIT, journalCursor, 'SIGHUP: the new configuration is not usable', 15);
    } finally {
      writeFileSync(cloudsYaml, good);
    }
    const entries = journalSince('-o', 'json', '_COMM=node').trim().split('\n')
      .map((line) => JSON.parse(line) as { MESSAGE: string; PRIORITY: string });
    const agentLines = entries.filter((entry) => typeof entry.MESSAGE === 'string' && entry.MESSAGE.startsWith('{"level":'));
    const levels = new Set(agentLines.map((entry) => (JSON.parse(entry.MESSAGE) as { level: number }).level));
    expect([...levels].sort()).toEqual(expect.arrayContaining([30, 50]));
    for (const entry of agentLines) {
      expect(entry.PRIORITY, entry.MESSAGE).toBe(String(syslogPriority((JSON.parse(entry.MESSAGE) as { level: number }).level)));
    }
    const byPriority = (priority: string): string =>
      ctl(['journalctl', '--no-pager', '-u', UNIT, `--since=${journalSinceTime}`, '-o', 'cat', '-p', priority]).stdout;
    const warnings = byPriority('warning').trim().split('\n').filter((line) => line !== '');
    expect(warnings.length).toBeGreaterThan(0);
    for (const line of warnings) {
      expect(line.startsWith('{"level":'), `not an agent line: ${line}`).toBe(true);
      expect((JSON.parse(line) as { level: number }).level, line).toBeGreaterThanOrEqual(40);
    }
    expect(warnings.some((line) => line.includes('SIGHUP: the new configuration is not usable'))).toBe(true);
    expect(byPriority('info')).toContain('ferry agent listening on the socket systemd passed');
  }, INTEGRATION_TEST_MS + UNIT_JOB_MS + waitInsideMs(15) + 3 * COMMAND_MS);
});
