// Process faults in the dev cloud while `ferry ensure` runs as a child process: glance-api killed mid-copy and
// restarted (the lock stays behind; ferry diagnoses it, and takes it over once Glance would bust it), the target
// OSD killed mid-copy. The processes are killed by their recorded PIDs (scripts/devcloud/fault) and brought back by
// scripts/devcloud/up, which restarts only what is down and keeps the data.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { devcloudHealthy, errorOf, faults, ferryChild, lockedBy, lostSince, notConverged, originalCopy, stuckDiagnosis, successfulCopies, tasksOf, until }
  from '../../helpers/devcloud-faults.js';
import { devcloud } from '../../helpers/devcloud.js';
import { deleteImage, readImage, uploadImage, waitUnlocked } from '../../helpers/glance-admin.js';

const RUN = `it-faults-proc-${randomBytes(3).toString('hex')}`;
const created: string[] = [];
// Big enough that the copy still runs when the fault hits (about 10 s at the dev cloud's rate), small enough for the OSDs.
const BIG_MIB = 192;

async function image(name: string, mib: number): Promise<string> {
  const id = await uploadImage({ name: `${RUN}-${name}`, store: 'central', sizeBytes: mib * 1024 * 1024 });
  created.push(id);
  return id;
}

afterAll(async () => {
  if (!devcloudHealthy()) faults.up();
  for (const id of created) {
    await waitUnlocked(id, 10_000);
    await deleteImage(id);
  }
}, 300_000);


/** Resolves when `text()` matches, checked every 100 ms, or rejects after `timeoutMs`. */
const seen = (what: string, text: () => string, pattern: RegExp, timeoutMs: number) =>
  until(what, () => Promise.resolve(pattern.test(text()) ? true : undefined), timeoutMs);

describe('process faults during a copy', () => {
  it('glance-api killed mid-copy and restarted: ferry says Glance is unreachable, then FERRY_COPY_STUCK (32) in seconds; aged → takeover, exit 0',
    async () => {
      const id = await image('glance-kill', BIG_MIB);
      const before = await originalCopy(id);
      let stderr = '';
      const running = ferryChild(['ensure', id, '--store', 'site-b', '--json', '--timeout', '300'],
        { onStderr: (text) => { stderr = text; }, killAfterMs: 120_000 });
      const task = await lockedBy(id);
      await until('the copy task to process', async () => ((await tasksOf(id)).find((t) => t.id === task)?.status === 'processing' ? true : undefined), 20_000);
      faults.kill('glance');
      const killedAt = Date.now();
      // while Glance is down the running ensure says so (its log on stderr, at the default level warn) and keeps waiting
      const said = await seen('ferry to report Glance unreachable', () => stderr, /unreachable|cannot reach/i, 20_000)
        .then(() => '', (e: unknown) => String(e));
      faults.up();
      const upAt = Date.now();
      expect(said, stderr).toBe('');
      const run = await running;
      expect(run.code, run.stdout + run.stderr).toBe(32);
      const error = errorOf(run);
      expect(error.code).toBe('FERRY_COPY_STUCK');
      const diagnosis = stuckDiagnosis(error);
      expect(diagnosis.text).toContain(task);
      expect(diagnosis.releaseAt).toBeGreaterThan(Date.now());
      expect(diagnosis.ageSeconds).toBeGreaterThanOrEqual(0);
      // promptly once Glance is back: seconds, not the 300 s --timeout
      expect(Date.now() - upAt).toBeLessThan(30_000);
      // and long before its --timeout of 300 s
      expect(Date.now() - killedAt).toBeLessThan(90_000);
      expect(await lostSince(before)).toEqual([]);
      expect((await readImage(id)).os_glance_import_task).toBe(task);

      faults.ageTask(task, 61);
      // ferry knows site-b's ceph.conf here, so that a partial RBD image left by the killed copy is named as such
      const conf = ['--ceph-conf', devcloud().ceph['site-b'].conf, '--rbd-user', 'nova'];
      const again = await ferryChild(['ensure', id, '--store', 'site-b', '--json', '--timeout', '120', ...conf]);
      // Glance busted the expired lock for ferry's import either way
      expect((await tasksOf(id)).find((t) => t.id === task)).toMatchObject({ status: 'failure' });
      if (again.code === 33) {
        // the kill hit the RBD write: Glance left images/ID in site-b's pool and fails every copy until it is removed
        expect(errorOf(again).message).toContain(`images/${id}`);
        faults.rbdRemove('site-b', id);
        const third = await ferryChild(['ensure', id, '--store', 'site-b', '--json', '--timeout', '120', ...conf]);
        expect(third.code, third.stdout + third.stderr).toBe(0);
        expect(third.json).toMatchObject({ image: id, store: 'site-b', copied: true });
      } else {
        // the kill hit the staging: nothing in the pool, the takeover copies at once
        expect(again.code, again.stdout + again.stderr).toBe(0);
        expect(again.json).toMatchObject({ image: id, store: 'site-b', copied: true, took_over: task });
        expect(again.json.task).not.toBe(task);
      }
      expect(await notConverged(id, 'site-b')).toEqual([]);
      expect(await successfulCopies(id)).toEqual({ 'site-b': 1 });
      expect(await lostSince(before)).toEqual([]);
    }, 300_000);

  it('the target OSD killed mid-copy → the copy fails with a clear code within Ceph\'s op timeout + margin; restarted → re-run converges',
    async () => {
      const id = await image('osd-kill', BIG_MIB);
      const before = await originalCopy(id);
      const running = ferryChild(['ensure', id, '--store', 'site-b', '--json', '--timeout', '120'], { killAfterMs: 200_000 });
      const task = await lockedBy(id);
      await until('the copy task to process', async () => ((await tasksOf(id)).find((t) => t.id === task)?.status === 'processing' ? true : undefined), 20_000);
      faults.kill('ceph-site-b-osd');
      const killedAt = Date.now();
      const run = await running;
      const error = errorOf(run);
      // Glance's rbd client gives up after the cluster's 30 s op timeout: the copy fails (30). The write and then
      // Glance's clean-up of the partial image can each wait out one op timeout (65 s seen in one CI rehearsal), so
      // the bound is two timeouts plus a margin, still short of ferry's own --timeout of 120 s.
      expect(run.code, run.stdout + run.stderr).toBe(30);
      expect(error.code).toBe('FERRY_COPY_FAILED');
      expect(error.message).toContain('site-b');
      expect(Date.now() - killedAt).toBeLessThan(2 * 30_000 + 25_000);
      expect(run.stderr).not.toMatch(/\n\s+at /);

      faults.up();
      expect(await lostSince(before)).toEqual([]);
      // with site-b's ceph.conf, so that a partial RBD image the failed write left (when its clean-up timed out too)
      // is named as such
      const conf = ['--ceph-conf', devcloud().ceph['site-b'].conf, '--rbd-user', 'nova'];
      let again = await ferryChild(['ensure', id, '--store', 'site-b', '--json', '--timeout', '120', ...conf]);
      if (again.code === 33) {
        expect(errorOf(again).message).toContain(`images/${id}`);
        faults.rbdRemove('site-b', id);
        again = await ferryChild(['ensure', id, '--store', 'site-b', '--json', '--timeout', '120', ...conf]);
      }
      expect(again.code, again.stdout + again.stderr).toBe(0);
      expect(again.json).toMatchObject({ image: id, store: 'site-b', copied: true });
      expect(await notConverged(id, 'site-b')).toEqual([]);
      expect(await lostSince(before)).toEqual([]);
    }, 300_000);
});
