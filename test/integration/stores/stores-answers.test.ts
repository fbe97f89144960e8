// `ferry stores` says whether each store answers, against the real dev cloud: site-b is the local store (its
// ceph.conf as --ceph-conf), site-a is given with --probe-ceph-conf, the file stores cannot be probed. Then site-b's
// OSD and, separately, its mon are killed (scripts/devcloud/fault, by recorded PID) and brought back with
// scripts/devcloud/up (restarts only what is down): site-b must read `answers: false` within the probe's bound.
import { afterAll, describe, expect, it } from 'vitest';
import { storesJsonSchema, type StoresJson } from '../../../src/contract/stores-document.js';
import { DEVCLOUD_STATUS_MS, devcloudHealthy, FAULT_KILL_MS, faults, FAULTS_UP_MS } from '../../helpers/devcloud-faults.js';
import { cloudEnv, devcloud, FERRY, markReached } from '../../helpers/devcloud.js';
import { runFerry } from '../../helpers/run-ferry.js';

const PROBE_TIMEOUT_S = 6;
/** Node start-up is not in it (in-process); Keystone and Glance answer in well under a second on the idle dev cloud. */
const SLACK_MS = 5_000;

async function stores(extra: readonly string[]): Promise<{ json: StoresJson; wallMs: number }> {
  const { ceph } = devcloud();
  const started = Date.now();
  const run = await runFerry(['stores', '--store', 'site-b', '--ceph-conf', ceph['site-b'].conf, '--rbd-user', FERRY.rbdUser,
    '--probe-ceph-conf', `site-a=${ceph['site-a'].conf}`, '--probe-timeout', `${PROBE_TIMEOUT_S}s`, ...extra, '--json'], { env: cloudEnv() });
  const wallMs = Date.now() - started;
  expect(run.code, run.stdout + run.stderr).toBe(0);
  markReached('glance');
  return { json: storesJsonSchema.parse(JSON.parse(run.stdout)), wallMs };
}

const answerOf = (json: StoresJson, id: string) => {
  const store = json.stores.find((s) => s.id === id);
  return { answers: store?.answers, why: store?.answers_why };
};

afterAll(() => {
  if (!devcloudHealthy()) faults.up();
}, DEVCLOUD_STATUS_MS + FAULTS_UP_MS);

describe('ferry stores: whether each store answers (real Ceph)', () => {
  it('healthy: the local store (site-b, --ceph-conf) and site-a (--probe-ceph-conf) answer rbd ls; the file stores are not checked', async () => {
    const { json } = await stores([]);
    markReached('ceph-site-a');
    markReached('ceph-site-b');
    expect(json.source).toBe('GET /v2/info/stores/detail');
    expect(answerOf(json, 'site-b')).toEqual({ answers: true, why: expect.stringMatching(
      new RegExp(`^rbd ls --pool images \\(-c ${devcloud().ceph['site-b'].conf} --id ${FERRY.rbdUser}\\) answered \\(\\d+ RBD images?\\)$`)) as unknown });
    expect(answerOf(json, 'site-a').answers).toBe(true);
    expect(answerOf(json, 'central')).toEqual({ answers: null, why: expect.stringMatching(/^a file store: Glance reports no per-store health/) as unknown });
    expect(answerOf(json, 'broken').answers).toBeNull();
  });

  it('no ceph.conf given: every store is null and says what to pass', async () => {
    const run = await runFerry(['stores', '--store', 'site-b', '--json'], { env: cloudEnv() });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const json = storesJsonSchema.parse(JSON.parse(run.stdout));
    expect(json.stores.map((s) => s.answers)).toEqual(devcloud().glance.stores.map(() => null));
    expect(answerOf(json, 'site-a').why).toBe("no ceph.conf for this store's cluster here: pass --probe-ceph-conf site-a=FILE to probe it");
    expect(answerOf(json, 'site-b').why).toMatch(/^no ceph.conf for the local cluster: pass --ceph-conf FILE/);
  });

  it("site-b's OSD killed: site-b answers false within the probe's bound, site-a still true; restarted → true again", async () => {
    faults.kill('ceph-site-b-osd');
    try {
      const { json, wallMs } = await stores([]);
      expect(answerOf(json, 'site-b')).toEqual({ answers: false, why: expect.stringMatching(
        new RegExp(`^the mons answer, but pool images's OSDs did not within ${PROBE_TIMEOUT_S / 2} s .*\\(110\\) Connection timed out\\)$`)) as unknown });
      expect(answerOf(json, 'site-a').answers).toBe(true);
      expect(wallMs).toBeLessThan(PROBE_TIMEOUT_S * 1000 + SLACK_MS);
    } finally {
      faults.up();
    }
    const { json } = await stores([]);
    expect(answerOf(json, 'site-b').answers).toBe(true);
  }, 180_000 + FAULT_KILL_MS + FAULTS_UP_MS); // 180 s: the probes and Ceph's return the test waits for

  it("site-b's mon killed: Glance holds /detail (it reconnects to every rbd cluster), ferry falls back to the plain list "
    + 'at the bound and the mons (asked meanwhile) say false; restarted → true again', async () => {
    faults.kill('ceph-site-b-mon');
    try {
      const { json, wallMs } = await stores([]);
      expect(json).toMatchObject({ source: 'GET /v2/info/stores', source_why: expect.stringMatching(
        new RegExp(`^GET /v2/info/stores/detail did not answer within ${PROBE_TIMEOUT_S} s`)) as unknown });
      expect(answerOf(json, 'site-b')).toEqual({ answers: false, why: expect.stringMatching(
        new RegExp(`^the mons named in ${devcloud().ceph['site-b'].conf} did not answer within ${PROBE_TIMEOUT_S / 2} s`)) as unknown });
      // site-a's mons answer, but without /detail its pool is unknown: not claimed to work.
      expect(answerOf(json, 'site-a')).toEqual({ answers: null, why: expect.stringMatching(/^the mons answer \(ceph fsid .*\), but the pool was not checked/) as unknown });
      // /detail's bound, then the plain list; the mons were asked meanwhile. Glance's own client_mount_timeout is 30 s.
      expect(wallMs).toBeLessThan(PROBE_TIMEOUT_S * 1000 + SLACK_MS);
    } finally {
      faults.up();
    }
    const { json } = await stores([]);
    expect(answerOf(json, 'site-b').answers).toBe(true);
  }, 240_000 + FAULT_KILL_MS + FAULTS_UP_MS); // 240 s: the probes, Glance's hold and Ceph's return
});
