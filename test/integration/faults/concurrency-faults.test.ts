// Many processes on the same work, with Glance's lock race (two imports a few ms apart on two glance-api workers
// both get 202, one task aborts): per (image, store) exactly one process reports `copied`, Glance ran exactly one
// successful copy task per store, every process exits 0.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CEPH_MS } from '../../helpers/devcloud.js';
import { INTEGRATION_TEST_MS } from '../../helpers/spawn-budget.js';
import { FERRY_CHILD_MS, ferryChild, lostSince, notConverged, originalCopy, successfulCopies, tasksOf } from '../../helpers/devcloud-faults.js';
import { imagesDeletedAfterAll, uploadImage } from '../../helpers/glance-admin.js';

const RUN = `it-faults-conc-${randomBytes(3).toString('hex')}`;
const created = imagesDeletedAfterAll();

describe('processes racing on the same work', () => {
  it('ensure ×10 of one image: every process exits 0, exactly one reports copied, Glance copied once', async () => {
    const id = await uploadImage({ name: `${RUN}-ten`, store: 'central', sizeBytes: 16 * 1024 * 1024 });
    created.push(id);
    const before = await originalCopy(id);
    const runs = await Promise.all(Array.from({ length: 10 }, () => ferryChild(['ensure', id, '--store', 'site-b', '--json', '--timeout', '120'])));
    for (const run of runs) expect(run.code, run.stdout + run.stderr).toBe(0);
    const copied = runs.filter((run) => run.json.copied === true);
    expect(copied, runs.map((r) => `copied=${String(r.json.copied)} joined=${String(r.json.joined)} task=${String(r.json.task)}`).join('\n'))
      .toHaveLength(1);
    // every process names the same task: the one that brought the store (or null when it found it there)
    for (const run of runs) expect(run.json).toHaveProperty('task');
    const tasks = [...new Set(runs.map((run) => run.json.task).filter((task) => task !== null))];
    expect(tasks).toHaveLength(1);
    expect((await tasksOf(id)).find((t) => t.id === tasks[0])).toMatchObject({ status: 'success', backend: ['site-b'] });
    expect(await successfulCopies(id)).toEqual({ 'site-b': 1 });
    expect(await notConverged(id, 'site-b')).toEqual([]);
    expect(await lostSince(before)).toEqual([]);
    // The 10 ensures run side by side; notConverged asks rbd once.
  }, INTEGRATION_TEST_MS + FERRY_CHILD_MS + CEPH_MS);
});
