// SIGINT and SIGTERM during `ferry prewarm`: exit 130, the report names the copies Glance goes on with, and a
// re-run converges with every store copied exactly once.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { prewarmJsonSchema } from '../../../src/cli/render/prewarm-json.js';
import { ferryChild, lostSince, notConverged, originalCopy, successfulCopies, tasksOf, type OriginalCopy } from '../../helpers/devcloud-faults.js';
import { deleteImage, uploadImage, waitUnlocked } from '../../helpers/glance-admin.js';

const RUN = `it-faults-sig-${randomBytes(3).toString('hex')}`;
const created: string[] = [];

afterAll(async () => {
  for (const id of created) {
    await waitUnlocked(id, 30_000);
    await deleteImage(id);
  }
}, 120_000);

describe('signals during prewarm', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('prewarm: %s → exit 130, running copies named with their tasks; re-run converges, each store once', async (signal) => {
    const group = `${RUN}-${signal}`;
    const originals: OriginalCopy[] = [];
    for (let i = 0; i < 6; i += 1) {
      const id = await uploadImage({ name: `${group}-${i}`, store: 'central', sizeBytes: 8 * 1024 * 1024, properties: { ferry_it: group } });
      created.push(id);
      originals.push(await originalCopy(id));
    }
    const args = ['prewarm', '--property', `ferry_it=${group}`, '--store', 'site-a', '--store', 'site-b', '--concurrency', '2', '--json'];
    let sent = 0;
    const stopped = await ferryChild(args, {
      onStderr: (stderr, child) => {
        if (sent === 0 && /^copied /m.test(stderr)) {
          sent = Date.now();
          child.kill(signal);
        }
      },
    });
    expect(sent, 'the run copied something before the signal').toBeGreaterThan(0);
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(Date.now() - sent).toBeLessThan(5_000);
    const report = prewarmJsonSchema.parse(stopped.json);
    expect(report.aborted).toBe(true);
    expect(report.counts.interrupted).toBeGreaterThan(0);
    expect(report.running_in_glance.length).toBeGreaterThan(0);
    for (const copy of report.running_in_glance) {
      expect(originals.map((o) => o.id)).toContain(copy.image);
      // the named task is a real import task of that image, for those stores
      const task = (await tasksOf(copy.image)).find((t) => t.id === copy.task);
      expect(task, `task ${copy.task}`).toBeDefined();
      expect([...(task?.backend ?? [])].sort()).toEqual([...copy.stores].sort());
    }

    const again = await ferryChild(args);
    expect(again.code, again.stderr).toBe(0);
    const second = prewarmJsonSchema.parse(again.json);
    expect(second.counts.failed + second.counts.interrupted).toBe(0);
    for (const original of originals) {
      expect(await successfulCopies(original.id)).toEqual({ 'site-a': 1, 'site-b': 1 });
      expect(await notConverged(original.id, 'site-a')).toEqual([]);
      expect(await notConverged(original.id, 'site-b')).toEqual([]);
      expect(await lostSince(original)).toEqual([]);
    }
  }, 240_000);
});
