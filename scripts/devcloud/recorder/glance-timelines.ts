// Property timelines of copy-image: GET the image every ~30 ms from the POST until the import lock is gone, and keep
// the snapshots where status, stores or an os_glance_* field changed (plus the first and the last).
import { setTimeout as sleep } from 'node:timers/promises';
import type { GlanceSession } from './glance-session.js';
import { expectStatus, field } from './recorder.js';

const POLL_INTERVAL_MS = 30;
const TIMELINE_DEADLINE_MS = 180_000;
const WATCHED = ['status', 'stores', 'os_glance_importing_to_stores', 'os_glance_failed_import', 'os_glance_import_task'];

interface Snapshot {
  readonly t_ms: number;
  readonly status: number;
  readonly body: unknown;
}

function watchedKey(status: number, body: unknown): string {
  return JSON.stringify([status, ...WATCHED.map((k) => field(body, k) ?? null)]);
}

async function recordTimeline(g: GlanceSession, name: string, id: string, request: Record<string, unknown>): Promise<void> {
  const spec = {
    method: 'POST',
    url: `${g.imageUrl(id)}/import`,
    token: g.admin,
    json: { method: { name: 'copy-image' }, ...request },
  };
  const t0 = performance.now();
  const post = await g.rec.call(spec);
  const postMs = Math.round(performance.now() - t0);
  expectStatus(post, 202, `timeline ${name}`);

  const kept: Snapshot[] = [];
  let lastKey = '';
  let last: Snapshot | undefined;
  let lastKept = false;
  while (performance.now() - t0 < TIMELINE_DEADLINE_MS) {
    const answer = await g.get(id);
    const snapshot: Snapshot = { t_ms: Math.round(performance.now() - t0), status: answer.status, body: answer.body };
    const key = watchedKey(answer.status, answer.body);
    lastKept = key !== lastKey;
    if (lastKept) kept.push(snapshot);
    lastKey = key;
    last = snapshot;
    if (answer.status !== 200 || field(answer.body, 'os_glance_import_task') === undefined) break;
    await sleep(POLL_INTERVAL_MS);
  }
  if (last === undefined) throw new Error(`timeline ${name}: no snapshot`);
  if (!lastKept) kept.push(last);
  if (field(last.body, 'os_glance_import_task') !== undefined) throw new Error(`timeline ${name}: lock still held at the deadline`);

  g.rec.saveDocument('glance', `timeline-${name}`, {
    store: request.stores,
    request: { method: spec.method, path: new URL(spec.url).pathname, body: spec.json },
    post: { status: post.status, t_ms: postMs },
    poll_interval_ms: POLL_INTERVAL_MS,
    snapshots: kept,
  });
}

export async function recordGlanceTimelines(g: GlanceSession): Promise<void> {
  const success = await g.activeImage('timeline-success', 32, 'site-a');
  await recordTimeline(g, 'success', success, { stores: ['site-b'] });
  await g.delete(success);

  // The retry goes to the same store as the failure: the old failure is visible until the new flow starts.
  const failing = await g.activeImage('timeline-failure', 16, 'site-a');
  await recordTimeline(g, 'failure', failing, { stores: ['broken'] });
  await recordTimeline(g, 'retry', failing, { stores: ['broken'] });
  await g.delete(failing);

  // site-b is written first and then rolled back because broken fails; afterwards a copy to site-b alone succeeds
  // while broken stays in os_glance_failed_import.
  const rollback = await g.activeImage('timeline-rollback', 16, 'site-a');
  await recordTimeline(g, 'rollback', rollback, { stores: ['site-b', 'broken'], all_stores_must_succeed: true });
  await recordTimeline(g, 'retry-other-store', rollback, { stores: ['site-b'] });
  await g.delete(rollback);
}
