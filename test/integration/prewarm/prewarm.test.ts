import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { prewarmJsonSchema, type PrewarmJson } from '../../../src/contract/prewarm-document.js';
import { prewarm } from '../../../src/prewarm/prewarm.js';
import type { PrewarmEvent } from '../../../src/fleet/prewarm-events.js';
import { readStoreMatrix } from '../../../src/prewarm/store-matrix.js';
import { cloudEnv, countingTransport, devCloud, devcloud, markReached } from '../../helpers/devcloud.js';
import { INTEGRATION_TEST_MS } from '../../helpers/spawn-budget.js';
import { deleteImage, imageTasks, readImage, uploadImage, waitUnlocked } from '../../helpers/glance-admin.js';

// Other people run tests on the same cloud: every image of this file carries this run's name prefix and property.
const RUN = `it-prewarm-${randomBytes(4).toString('hex')}`;
const created = new Set<string>();

async function images(group: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    // 1–2 MiB: the OSDs are 2 GiB memstores shared by everyone.
    const id = await uploadImage({ name: `${RUN}-${group}-${i}`, store: 'central', sizeBytes: (1 + (i % 2)) * 1024 * 1024,
      properties: { ferry_it: `${RUN}-${group}` } });
    created.add(id);
    ids.push(id);
  }
  return ids;
}

afterAll(async () => {
  for (const id of created) {
    await waitUnlocked(id);
    await deleteImage(id);
  }
}, 300_000);

/** Copy tasks per store of one image, from Glance's own task list. */
/**
 * Copy tasks per store that did work. A task Glance aborted because another import took its lock ("Task was aborted
 * externally": the lock race between two API workers, reference/glance-multistore.md) wrote nothing and is not
 * counted; `raced` lists them.
 */
async function copyTasksPerStore(id: string, raced: string[] = []): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const task of await imageTasks(id)) {
    if (task.status === 'failure' && /aborted externally/i.test(task.message ?? '')) {
      raced.push(task.id);
      continue;
    }
    for (const store of task.input.backend ?? []) counts[store] = (counts[store] ?? 0) + 1;
  }
  return counts;
}

interface ChildRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `bin/ferry …` as a separate process (tsx when dist/ is older than src/). `onStderr` may send it signals. */
/** One ferry prewarm of these tests: killed after 240 s. */
const PREWARM_MS = 240_000;
function ferry(args: readonly string[], onStderr?: (text: string, child: ReturnType<typeof spawn>) => void): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`${process.cwd()}/bin/ferry`, ...args], {
      env: { ...process.env, ...cloudEnv(), FERRY_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'], timeout: PREWARM_MS, killSignal: 'SIGKILL' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      onStderr?.(stderr, child);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

const parse = (run: ChildRun): PrewarmJson => prewarmJsonSchema.parse(JSON.parse(run.stdout));

describe('prewarm against real Glance (central, site-a, site-b, broken; site-c left missing)', () => {
  it('prewarm: 21 images into site-a, site-b and broken: rbd copies land, broken fails, a deleted image is reported, nothing is copied twice',
    async () => {
      const ids = await images('main', 21);
      let doomed = '';
      const transport = countingTransport();
      const cloud = await devCloud({ transport });
      const events: PrewarmEvent[] = [];
      let deleting: Promise<number> | undefined;
      const report = await prewarm(cloud, { properties: { ferry_it: `${RUN}-main` } }, {
        stores: ['site-a', 'site-b', 'broken'], concurrency: 2,
        onProgress: (event) => {
          events.push(event);
          // Delete the image planned last once copies are under way: with 2 at a time its job has not started.
          if (event.type === 'planned') doomed = event.plan.jobs.at(-1)?.imageId ?? '';
          if (event.type === 'item-done' && deleting === undefined) deleting = deleteImage(doomed);
        },
      });
      await deleting;
      created.delete(doomed);
      markReached('glance');

      expect(report.items).toHaveLength(21 * 3);
      const byImage = (id: string) => report.items.filter((item) => item.imageId === id);
      expect(ids).toContain(doomed);
      const kept = ids.filter((id) => id !== doomed);
      for (const id of kept) {
        expect(byImage(id).map((item) => [item.store, item.outcome, item.failure])).toEqual([
          ['site-a', 'copied', undefined], ['site-b', 'copied', undefined], ['broken', 'failed', 'failed']]);
      }
      expect(byImage(doomed).map((item) => [item.outcome, item.failure, item.code])).toEqual([
        ['failed', 'image-deleted', 'FERRY_IMAGE_NOT_FOUND'], ['failed', 'image-deleted', 'FERRY_IMAGE_NOT_FOUND'],
        ['failed', 'image-deleted', 'FERRY_IMAGE_NOT_FOUND']]);
      expect(report.counts).toEqual({ copied: 40, joined: 0, present: 0, failed: 23, skipped: 0, interrupted: 0 });
      // one import per image (multi-store, allow-failure); the deleted image's request (made on the plan's snapshot) got 404.
      // Glance ran one task per kept image.
      expect(report.requests.importRequests).toBe(21);
      expect(transport.count('POST', /\/import$/)).toBe(21);
      for (const id of kept) expect(await copyTasksPerStore(id)).toEqual({ 'site-a': 1, 'site-b': 1, broken: 1 });
      expect(events.filter((e) => e.type === 'job-done')).toHaveLength(21);

      const matrix = await readStoreMatrix(cloud, { properties: { ferry_it: `${RUN}-main` } });
      expect(matrix.rows).toHaveLength(20);
      // central (the source), site-a and site-b hold them, broken failed; every other store of the dev cloud (site-c) misses them.
      const others = devcloud().glance.stores.filter((store) => !['central', 'site-a', 'site-b', 'broken'].includes(store)).length;
      expect(matrix.counts).toEqual({ present: 60, copying: 0, failed: 20, missing: 20 * others });
      await transport.close();
    }, 300_000);

  it('prewarm: two ferry processes run the same prewarm at once: every copy is made once, both reports are right', async () => {
    const ids = await images('twice', 20);
    const args = ['prewarm', '--property', `ferry_it=${RUN}-twice`, '--store', 'site-a', '--store', 'site-b', '--json'];
    const [one, two] = await Promise.all([ferry(args), ferry(args)]);
    markReached('glance');
    expect(one.code, one.stderr).toBe(0);
    expect(two.code, two.stderr).toBe(0);
    const reports = [parse(one), parse(two)];
    for (const report of reports) {
      expect(report.items).toHaveLength(40);
      expect(report.counts.failed + report.counts.skipped + report.counts.interrupted).toBe(0);
    }
    const raced: string[] = [];
    // the two runs overlapped: at least one copy was waited for rather than made
    expect(reports[0]!.counts.joined + reports[1]!.counts.joined).toBeGreaterThan(0);
    for (const id of ids) {
      for (const store of ['site-a', 'site-b']) {
        const outcomes = reports.map((r) => r.items.find((item) => item.image === id && item.store === store)?.outcome);
        // exactly one process copied it; the other waited for that copy or found it there
        expect(outcomes.filter((o) => o === 'copied'), `${id} ${store}: ${outcomes.join(', ')}`).toHaveLength(1);
        expect(outcomes.every((o) => o === 'copied' || o === 'joined' || o === 'present')).toBe(true);
      }
      // Glance copied each store once; a task it aborted in the lock race (both clients got 202) wrote nothing.
      expect(await copyTasksPerStore(id, raced)).toEqual({ 'site-a': 1, 'site-b': 1 });
    }
    if (raced.length > 0) console.info(`prewarm twice: Glance's lock race aborted ${raced.length} import task(s); each was told apart by its request id`);
  }, 300_000);

  it('prewarm: Ctrl-C stops new copies and names those running inside Glance; running it again picks up without copying twice', async () => {
    const ids = await images('resume', 8);
    const args = ['prewarm', '--property', `ferry_it=${RUN}-resume`, '--store', 'site-a', '--store', 'site-b', '--concurrency', '2', '--json'];
    let sent = false;
    const stopped = await ferry(args, (stderr, child) => {
      if (!sent && /^copied /m.test(stderr)) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    expect(stopped.code, stopped.stderr).toBe(130);
    const first = parse(stopped);
    expect(first.aborted).toBe(true);
    expect(first.counts.copied).toBeGreaterThan(0);
    expect(first.counts.interrupted).toBeGreaterThan(0);
    for (const copy of first.running_in_glance) {
      expect(ids).toContain(copy.image);
      expect(copy.task).toMatch(/^[0-9a-f-]{36}$/);
    }

    const again = await ferry(args);
    expect(again.code, again.stderr).toBe(0);
    const second = parse(again);
    expect(second.counts.failed).toBe(0);
    const copiedFirst = first.items.filter((item) => item.outcome === 'copied').map((item) => `${item.image} ${item.store}`);
    for (const item of second.items) {
      expect(['present', 'joined', 'copied']).toContain(item.outcome);
      if (copiedFirst.includes(`${item.image} ${item.store}`)) expect(item.outcome).toBe('present');
    }
    for (const id of ids) {
      expect(await copyTasksPerStore(id)).toEqual({ 'site-a': 1, 'site-b': 1 });
      expect((await readImage(id)).stores).toMatch(/site-a/);
    }
  }, INTEGRATION_TEST_MS + 2 * PREWARM_MS);
});
