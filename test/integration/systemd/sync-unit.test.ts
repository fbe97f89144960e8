import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devcloud, markReached } from '../../helpers/devcloud.js';
import { deleteImage, uploadImage, waitUnlocked } from '../../helpers/glance-admin.js';
import { INTEGRATION_TEST_MS } from '../../helpers/spawn-budget.js';
import {
  cannotRunSystemd, COMMAND_MS, ctl, downIfStartedHere, GETENT_MS, idOf, initPid, show, SYSTEMD_DOWN_MS, SYSTEMD_UP_MS, systemdUp, UNIT_JOB_MS,
  waitForJournal, waitInsideMs,
} from './private-systemd.js';

// packaging/systemd/ferry-sync.service, unchanged, under the real systemd of scripts/systemd/up (its drop-in runs the
// checkout's bin/ferry with the dev cloud's credentials and a policy this test writes): the watch copies what the
// policy wants, and `systemctl stop` (SIGTERM → exit 130) counts as success, not as a failure.

const UNIT = 'ferry-sync.service';
const reason = cannotRunSystemd();

let startedSystemd = false;
let imageId = '';
let probeFile = '';
let journalCursor = '';
const systemctl = (...args: string[]) => ctl(['systemctl', ...args]);
const journal = (): string => ctl(['journalctl', '--no-pager', '-o', 'cat', '-u', UNIT, `--after-cursor=${journalCursor}`]).stdout;
const etc = (): string => join(devcloud().dir, 'systemd', 'etc');
/** Where the unit sees etc() (scripts/systemd/up binds it there). */
const etcIn = '/run/ferry-devcloud/etc';

describe.skipIf(reason !== '')(`ferry-sync.service under real systemd${reason === '' ? '' : ` (SKIPPED: ${reason})`}`, () => {
  beforeAll(async () => {
    startedSystemd = initPid() === undefined;
    systemdUp();
    const dir = join(devcloud().dir, 'systemd');
    probeFile = join(dir, 'sync-stop-probe');
    const probeDropIn = join(dir, 'zz-test-sync-probe.conf');
    mkdirSync(dir, { recursive: true });
    rmSync(probeFile, { force: true });
    // How the main process ended, from systemd itself ($SERVICE_RESULT, $EXIT_CODE, $EXIT_STATUS): added by the test only.
    writeFileSync(probeDropIn, `[Service]\nExecStopPost=+/bin/sh -c 'echo "$$SERVICE_RESULT $$EXIT_CODE $$EXIT_STATUS" >${probeFile}'\n`);
    expect(ctl(['install', '-m', '0644', probeDropIn, `/etc/systemd/system/${UNIT}.d/zz-test-stop-probe.conf`]).code).toBe(0);
    expect(systemctl('daemon-reload').code).toBe(0);
    const cursor = /^-- cursor: (.+)$/m.exec(ctl(['journalctl', '--no-pager', '-n', '0', '--show-cursor']).stdout)?.[1];
    if (cursor === undefined) throw new Error('journalctl --show-cursor printed no cursor');
    journalCursor = cursor;
    imageId = await uploadImage({ name: 'it-systemd-sync', store: 'site-a', sizeBytes: 4 * 1024 * 1024 });
    writeFileSync(join(etc(), 'sync-policy.yaml'),
      `version: 1\nplacements:\n  - name: test image at site-b\n    images: { ids: [${imageId}] }\n    stores: [site-b]\n`);
  }, INTEGRATION_TEST_MS + SYSTEMD_UP_MS + 3 * COMMAND_MS);

  afterAll(async () => {
    if (initPid() !== undefined) {
      systemctl('stop', UNIT);
      ctl(['rm', '-f', `/etc/systemd/system/${UNIT}.d/zz-test-stop-probe.conf`]);
      systemctl('daemon-reload');
    }
    downIfStartedHere(startedSystemd);
    if (imageId !== '') {
      await waitUnlocked(imageId);
      await deleteImage(imageId);
    }
  }, INTEGRATION_TEST_MS + UNIT_JOB_MS + 2 * COMMAND_MS + SYSTEMD_DOWN_MS);

  it('systemd-analyze verify accepts the unit as installed (shipped file + drop-in)', () => {
    // --man=no: ferry(1), named by Documentation=, is the package's (test/integration/deb verifies with it).
    const verify = ctl(['systemd-analyze', 'verify', '--man=no', `/etc/systemd/system/${UNIT}`]);
    expect(verify.stdout + verify.stderr).toBe('');
    expect(verify.code).toBe(0);
  });

  it('systemctl start: the watch runs as ferry without privileges and copies what the policy wants into site-b', () => {
    const start = systemctl('start', UNIT);
    expect(start.code, start.stderr).toBe(0);
    markReached('systemd');
    // One program waits for the pass (a loop of journal() calls would count each call's timeout).
    waitForJournal(UNIT, journalCursor, 'pass [0-9]+ · 1 wanted · drift [0-9] → 0', 120, { extended: true });
    expect(journal()).toMatch(/pass \d+ · 1 wanted · drift 1 → 0 · copied 1/);
    const pid = Number(show(UNIT, ['MainPID']).MainPID);
    const status = ctl(['cat', `/proc/${pid}/status`]).stdout;
    expect(/^Uid:\s+(\d+)/m.exec(status)?.[1]).toBe(String(idOf('passwd', 'ferry')));
    expect(/^NoNewPrivs:\s+(\d)/m.exec(status)?.[1]).toBe('1');
    expect(/^CapEff:\s+(\w+)/m.exec(status)?.[1]).toBe('0000000000000000');
    expect(/^CapBnd:\s+(\w+)/m.exec(status)?.[1]).toBe('0000000000000000');
    expect(/^Groups:\s*(.*)$/m.exec(status)?.[1]?.trim()).toBe(String(idOf('group', 'ferry')));
    expect(/^Seccomp:\s+(\d)/m.exec(status)?.[1]).toBe('2');
    // The credentials: clouds.yaml (root 0600 in etc) as systemd's copy, which only the service can read.
    expect(ctl(['stat', '-c', '%U %a', join(etcIn, 'clouds.yaml')]).stdout.trim()).toBe('root 600');
    expect(ctl(['cat', `/proc/${pid}/environ`]).stdout.split('\0')).toContain(`OS_CLIENT_CONFIG_FILE=/run/credentials/${UNIT}/clouds.yaml`);
    // Every keyring of /etc/ferry/keyrings (root 0700, each 0600) as a credential of its own, readable by the service alone.
    expect(ctl(['stat', '-c', '%U %a', join(etcIn, 'keyrings'), join(etcIn, 'keyrings', 'site-c.client.ferry-evict.keyring')]).stdout).toBe('root 700\nroot 600\n');
    const keyring = ctl(['stat', '-c', '%U %a', `/run/credentials/${UNIT}/keyrings_site-c.client.ferry-evict.keyring`]);
    expect(keyring.stdout.trim(), keyring.stderr).toBe('ferry 400');
  }, INTEGRATION_TEST_MS + UNIT_JOB_MS + waitInsideMs(120) + 7 * COMMAND_MS + 2 * GETENT_MS);

  it('systemctl stop: SIGTERM ends the watch with exit 130, which the unit counts as success (inactive, not failed)', () => {
    expect(systemctl('stop', UNIT).code).toBe(0);
    expect(readFileSync(probeFile, 'utf8')).toBe('success exited 130\n');
    expect(systemctl('is-active', UNIT).stdout.trim()).toBe('inactive');
    expect(systemctl('is-failed', UNIT).stdout.trim()).not.toBe('failed');
    expect(journal()).toMatch(/watch ended after \d+ pass(es)? \(0 unclean\)/);
  }, INTEGRATION_TEST_MS + UNIT_JOB_MS + 3 * COMMAND_MS);
});
