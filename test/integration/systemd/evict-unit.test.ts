import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markReached } from '../../helpers/devcloud.js';
import { deleteImage, waitUnlocked } from '../../helpers/glance-admin.js';
import { copyImage, SITE_C } from '../../helpers/site-c-copies.js';
import { INTEGRATION_TEST_MS } from '../../helpers/spawn-budget.js';
import {
  cannotRunSystemd, COMMAND_MS, ctl, downIfStartedHere, initPid, journalCursorNow, show, SYSTEMD_DOWN_MS, SYSTEMD_UP_MS, systemdUp, UNIT_JOB_MS,
} from './private-systemd.js';

// packaging/systemd/ferry-evict@.service and its timer, unchanged, under the real systemd of scripts/systemd/up (its
// drop-in runs the checkout's bin/ferry; the instance's settings file makes it a dry run): instance site-c (pool
// images-c of site-b's cluster) as the evict identity with its own cephx user, the keyring handed over by systemd at the
// path the site's ceph.conf names. A dry run plans with what it read from Glance and from the pool, and removes nothing.

const INSTANCE = `ferry-evict@${SITE_C.store}`;
const UNIT = `${INSTANCE}.service`;
const TIMER = `${INSTANCE}.timer`;
const reason = cannotRunSystemd();
const created: string[] = [];
let startedSystemd = false;
let journalCursor = '';
const systemctl = (...args: string[]) => ctl(['systemctl', ...args]);
const journal = (): string => ctl(['journalctl', '--no-pager', '-o', 'cat', '-u', UNIT, `--after-cursor=${journalCursor}`]).stdout;

describe.skipIf(reason !== '')(`ferry-evict@.service under real systemd${reason === '' ? '' : ` (SKIPPED: ${reason})`}`, () => {
  beforeAll(async () => {
    startedSystemd = initPid() === undefined;
    systemdUp();
    journalCursor = journalCursorNow();
    // A copy in site-c that is not the image's last location: an eviction candidate once idle for 0 s.
    await copyImage(created, 1024 * 1024, ['site-b', SITE_C.store], 'it-systemd-evict');
  }, 300_000 + SYSTEMD_UP_MS + COMMAND_MS);

  afterAll(async () => {
    if (initPid() !== undefined) systemctl('stop', TIMER, UNIT);
    downIfStartedHere(startedSystemd);
    for (const id of created) {
      await waitUnlocked(id);
      await deleteImage(id);
    }
  }, INTEGRATION_TEST_MS + UNIT_JOB_MS + SYSTEMD_DOWN_MS);

  it('systemd-analyze verify accepts the instance as installed (shipped file + drop-in)', () => {
    const verify = ctl(['systemd-analyze', 'verify', '--man=no', `/etc/systemd/system/ferry-evict@.service`, `/etc/systemd/system/ferry-evict@.timer`]);
    expect(verify.stdout + verify.stderr).toBe('');
    expect(verify.code).toBe(0);
  });

  it('systemctl start: the run plans the store\'s copies with the site\'s evict keyring and identity, as ferry, and succeeds', () => {
    // A oneshot: start returns once the run ended.
    const start = systemctl('start', UNIT);
    expect(start.code, `${start.stderr}\n${journal()}`).toBe(0);
    markReached('systemd');
    expect(show(UNIT, ['Result', 'ExecMainStatus', 'User'])).toMatchObject({ Result: 'success', ExecMainStatus: '0', User: 'ferry' });
    const output = journal();
    const document = output.slice(output.indexOf('{'), output.lastIndexOf('}') + 1);
    const plan = JSON.parse(document) as { store: string; pool: string; dry_run: boolean; copies: { image: string; action: string }[] };
    expect(plan).toMatchObject({ store: SITE_C.store, pool: SITE_C.pool, dry_run: true });
    // The pool was read through the keyring systemd handed over: the test's copy is there, planned out (not removed).
    expect(plan.copies.find((copy) => copy.image === created[0])).toMatchObject({ action: 'evict' });
  }, INTEGRATION_TEST_MS + UNIT_JOB_MS + 3 * COMMAND_MS);

  it('the timer: started, it schedules the next run of the same instance', () => {
    expect(systemctl('start', TIMER).code).toBe(0);
    const timer = show(TIMER, ['ActiveState', 'Unit', 'NextElapseUSecRealtime']);
    expect(timer.ActiveState).toBe('active');
    expect(timer.Unit).toBe(UNIT);
    expect(timer.NextElapseUSecRealtime).not.toBe('');
    expect(systemctl('stop', TIMER).code).toBe(0);
  }, INTEGRATION_TEST_MS + 2 * UNIT_JOB_MS + COMMAND_MS);
});
