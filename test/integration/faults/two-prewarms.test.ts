// Two `ferry prewarm` processes on the same images at once (issue 11: this failed 2 of 5 runs when ferry adopted
// whatever task held the lock after its 202). Per (image, store) exactly one process reports `copied`, Glance ran
// exactly one successful copy task per store, both exit 0. Run it 20 times in a row: see the report of issue 11.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { prewarmJsonSchema, type PrewarmJson } from '../../../src/contract/prewarm-document.js';
import { CEPH_MS } from '../../helpers/devcloud.js';
import { INTEGRATION_TEST_MS } from '../../helpers/spawn-budget.js';
import { FERRY_CHILD_MS, ferryChild, lostSince, notConverged, originalCopy, successfulCopies, type OriginalCopy } from '../../helpers/devcloud-faults.js';
import { imagesDeletedAfterAll, uploadImage } from '../../helpers/glance-admin.js';

const RUN = `it-faults-2pw-${randomBytes(3).toString('hex')}`;
const created = imagesDeletedAfterAll();

// the reports of the first test, for the second
let reports: PrewarmJson[] = [];

describe('two prewarms of the same images', () => {
  it('prewarm ×2 at once: per (image, store) exactly one copied, one successful Glance copy task per store, both exit 0', async () => {
    const originals: OriginalCopy[] = [];
    for (let i = 0; i < 20; i += 1) {
      const id = await uploadImage({ name: `${RUN}-${i}`, store: 'central', sizeBytes: (1 + (i % 2)) * 1024 * 1024, properties: { ferry_it: RUN } });
      created.push(id);
      originals.push(await originalCopy(id));
    }
    const args = ['prewarm', '--property', `ferry_it=${RUN}`, '--store', 'site-a', '--store', 'site-b', '--json'];
    const runs = await Promise.all([ferryChild(args), ferryChild(args)]);
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    reports = runs.map((run) => prewarmJsonSchema.parse(run.json));
    for (const report of reports) {
      expect(report.items).toHaveLength(40);
      expect(report.counts.failed + report.counts.skipped + report.counts.interrupted).toBe(0);
    }
    const twice: string[] = [];
    for (const { id } of originals) {
      for (const store of ['site-a', 'site-b']) {
        const outcomes = reports.map((r) => r.items.find((item) => item.image === id && item.store === store)?.outcome);
        // exactly one process copied it; the other waited for that copy or found it there
        if (outcomes.filter((o) => o === 'copied').length !== 1 || !outcomes.every((o) => o === 'copied' || o === 'joined' || o === 'present')) {
          twice.push(`${id} ${store}: ${outcomes.join(', ')}`);
        }
      }
      expect(await successfulCopies(id), id).toEqual({ 'site-a': 1, 'site-b': 1 });
    }
    expect(twice).toEqual([]);
    // the two runs overlapped: at least one copy was waited for rather than made
    expect(reports[0]!.counts.joined + reports[1]!.counts.joined).toBeGreaterThan(0);
    for (const original of originals.slice(0, 3)) {
      expect(await notConverged(original.id, 'site-a')).toEqual([]);
      expect(await notConverged(original.id, 'site-b')).toEqual([]);
      expect(await lostSince(original)).toEqual([]);
    }
    // The two prewarms run side by side; notConverged asks rbd once per rbd store, for 3 images.
  }, INTEGRATION_TEST_MS + FERRY_CHILD_MS + 6 * CEPH_MS);

  it('prewarm ×2 at once: an item a process joined names the task the other process\'s import ran', () => {
    expect(reports, 'the first test ran').toHaveLength(2);
    const unnamed: string[] = [];
    for (const item of reports.flatMap((r) => r.items)) {
      if (item.outcome !== 'joined') continue;
      const copiedBy = reports.flatMap((r) => r.items).find((other) => other.image === item.image && other.store === item.store && other.outcome === 'copied')?.task;
      if (item.task !== copiedBy) unnamed.push(`${item.image} ${item.store}: joined task ${String(item.task)}, copied by ${String(copiedBy)}`);
    }
    expect(unnamed).toEqual([]);
  });
});
