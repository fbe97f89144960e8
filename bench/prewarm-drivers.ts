// Helpers of bench/prewarm.ts (not a benchmark itself): a minimal copy driver that measures what Glance allows, the
// operator's glance-CLI loop, and the reset between phases. Plain fetch and the glance CLI, independent of ferry.
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { BenchDevcloud } from './lib/devcloud-facts.js';
import type { GlanceAdmin } from './lib/glance-admin.js';

type Wire = Record<string, unknown>;

const listOf = (value: unknown): string[] => (typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter(Boolean) : []);

async function headers(admin: GlanceAdmin): Promise<Record<string, string>> {
  return { 'x-auth-token': await admin.token(), accept: 'application/json' };
}

// Imports go on fresh connections (`connection: close`, no pool: node:http's `agent: false`), as ferry sends them: the
// copy runs in the glance-api worker that accepts the connection, and a pooled one pins every copy to one worker.
function postOnFreshConnection(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', agent: false, headers: { ...headers, connection: 'close',
      'content-length': String(Buffer.byteLength(body)) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** One copy-image request, as the API takes it; throws unless 202. */
export async function requestCopy(devcloud: BenchDevcloud, admin: GlanceAdmin, id: string, stores: readonly string[]): Promise<void> {
  const body = { method: { name: 'copy-image' }, stores, ...(stores.length > 1 ? { all_stores_must_succeed: false } : {}) };
  const response = await postOnFreshConnection(`${devcloud.glance.url}/v2/images/${id}/import`,
    { ...(await headers(admin)), 'content-type': 'application/json' }, JSON.stringify(body));
  if (response.status !== 202) throw new Error(`import ${id} → ${stores.join(',')}: ${response.status} ${response.text}`);
}

/** Several images in one GET (`id=in:`), so polling costs one request per tick however many copies run. */
export async function readImages(devcloud: BenchDevcloud, admin: GlanceAdmin, ids: readonly string[]): Promise<Map<string, Wire>> {
  const found = new Map<string, Wire>();
  // one image: the plain GET, cheaper for Glance than a filtered listing
  if (ids.length === 1) {
    const image = await admin.readImage(ids[0]!);
    return found.set(String(image.id), image);
  }
  for (let i = 0; i < ids.length; i += 40) {
    const chunk = ids.slice(i, i + 40);
    const response = await fetch(`${devcloud.glance.url}/v2/images?limit=100&id=in:${chunk.join(',')}`, { headers: await headers(admin) });
    if (response.status !== 200) throw new Error(`list images: ${response.status}`);
    for (const image of ((await response.json()) as { images: Wire[] }).images) found.set(String(image.id), image);
  }
  return found;
}

export interface RawRun {
  readonly wallMs: number;
  /** Per image: from sending the import POST to the first poll that saw the lock gone (the lock's lifetime, ±tick). */
  readonly copyMs: readonly number[];
  /** At each tick: imports holding a lock, and those of them writing a store (os_glance_importing_to_stores set). */
  readonly inFlight: readonly { readonly locked: number; readonly writing: number }[];
  readonly polls: number;
  readonly failedStores: number;
}

/**
 * The least a client can do: keep `concurrency` imports submitted, poll all of them with one list GET per `tickMs`,
 * submit the next as soon as one ends. `mode` image = one request per image naming all stores (allow-failure);
 * store = one request per store, one after the other. With concurrency 1 and a short tick, copyMs is the time Glance
 * needs per image when it does nothing else.
 */
export async function rawCopies(devcloud: BenchDevcloud, admin: GlanceAdmin, ids: readonly string[], stores: readonly string[],
  options: { concurrency: number; mode: 'image' | 'store'; tickMs: number }): Promise<RawRun> {
  const queue = ids.flatMap((id) => (options.mode === 'image' ? [{ id, stores }] : stores.map((store) => ({ id, stores: [store] }))));
  // store mode: one image's requests must follow one another (one import per image at a time)
  const running = new Map<string, { sentAt: number; stores: readonly string[] }>();
  const copyMs: number[] = [];
  const inFlight: { locked: number; writing: number }[] = [];
  let polls = 0;
  let failedStores = 0;
  const started = performance.now();
  const submit = async (): Promise<void> => {
    while (running.size < options.concurrency) {
      const index = queue.findIndex((job) => !running.has(job.id));
      if (index < 0) return;
      const [job] = queue.splice(index, 1);
      if (job === undefined) return;
      running.set(job.id, { sentAt: performance.now(), stores: job.stores });
      await requestCopy(devcloud, admin, job.id, job.stores);
    }
  };
  await submit();
  while (running.size > 0) {
    await sleep(options.tickMs);
    polls += 1;
    const images = await readImages(devcloud, admin, [...running.keys()]);
    let locked = 0;
    let writing = 0;
    for (const [id, copy] of [...running]) {
      const image = images.get(id);
      if (image?.os_glance_import_task !== undefined) {
        locked += 1;
        if (listOf(image.os_glance_importing_to_stores).length > 0) writing += 1;
        continue;
      }
      running.delete(id);
      copyMs.push(performance.now() - copy.sentAt);
      failedStores += copy.stores.filter((store) => !listOf(image?.stores).includes(store)).length;
    }
    inFlight.push({ locked, writing });
    await submit();
  }
  return { wallMs: performance.now() - started, copyMs, inFlight, polls, failedStores };
}

/**
 * The loop an operator writes with the glance CLI: `glance image-import --import-method copy-image --stores S ID`,
 * then `glance image-show ID` until the import lock is gone, every `pollS` seconds (checking at once, the kindest
 * version for the loop). `mode` store: one import per image and store, S = one store; image: one import per image,
 * S = all stores comma-separated (the CLI sends all_stores_must_succeed false by default, as ferry does). Returns the wall
 * time and the glance commands run.
 */
export async function glanceCliLoop(devcloud: BenchDevcloud, ids: readonly string[], stores: readonly string[], pollS: number,
  mode: 'store' | 'image', signal: AbortSignal): Promise<{ wallMs: number; commands: number; exitCode: number | null }> {
  const user = devcloud.users.admin;
  const targets = mode === 'store' ? stores.join(' ') : `${stores.join(',')}`;
  const script = `set -e
n=0
for id in ${ids.join(' ')}; do
  for store in ${targets}; do
    glance image-import --import-method copy-image --stores "$store" "$id" > /dev/null; n=$((n+1))
    while glance image-show "$id" | grep -q os_glance_import_task; do n=$((n+1)); sleep ${pollS}; done; n=$((n+1))
  done
done
echo "$n"`;
  const env = { ...process.env, OS_AUTH_URL: devcloud.keystone.url, OS_USERNAME: user.name, OS_PASSWORD: user.password,
    OS_PROJECT_NAME: user.project, OS_USER_DOMAIN_NAME: 'Default', OS_PROJECT_DOMAIN_NAME: 'Default', OS_IDENTITY_API_VERSION: '3',
    OS_IMAGE_API_VERSION: '2' };
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { env, stdio: ['ignore', 'pipe', 'inherit'], signal });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ wallMs: performance.now() - started, commands: Number(out.trim()) || 0, exitCode: code }));
  });
}

/** Put the images back to their source store only: delete their copies in `stores` (no import may be running). */
export async function removeCopies(devcloud: BenchDevcloud, admin: GlanceAdmin, ids: readonly string[], stores: readonly string[]): Promise<void> {
  for (const id of ids) {
    for (let i = 0; i < 600; i += 1) {
      const image = await admin.readImage(id);
      if (image.os_glance_import_task === undefined) break;
      await sleep(100);
    }
    for (const store of stores) {
      const response = await fetch(`${devcloud.glance.url}/v2/stores/${store}/${id}`, { method: 'DELETE', headers: await headers(admin) });
      if (response.status !== 204 && response.status !== 404) throw new Error(`delete ${id} from ${store}: ${response.status} ${await response.text()}`);
    }
  }
}

/** One import task as Glance's own log tells it: from `pending to processing` to `… of api_image_import completed`. */
export interface TaskSpan {
  readonly id: string;
  readonly startMs: number;
  readonly endMs: number;
}

const STARTED = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) \d+ INFO glance\.domain \[-\] Task \[([0-9a-f-]{36})\] status changing from pending to processing/;
const ENDED = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) \d+ INFO glance\.(?:async_\.flows\.api_image_import \[-\] ([0-9a-f-]{36}) of api_image_import completed|domain \[-\] Task \[([0-9a-f-]{36})\] status changing from processing to failure)/;

/**
 * The spans of the given tasks from glance-api's log (millisecond timestamps, written by Glance itself): what each
 * copy cost Glance, free of any client's polling granularity. The log is shared; only the named tasks are read.
 */
export function readTaskSpans(logFile: string, taskIds: ReadonlySet<string>): TaskSpan[] {
  const starts = new Map<string, number>();
  const spans: TaskSpan[] = [];
  const time = (stamp: string): number => Date.parse(stamp.replace(' ', 'T'));
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    const started = STARTED.exec(line);
    if (started !== null && taskIds.has(started[2]!)) starts.set(started[2]!, time(started[1]!));
    const ended = ENDED.exec(line);
    const id = ended?.[2] ?? ended?.[3];
    if (ended !== null && id !== undefined && taskIds.has(id) && starts.has(id)) {
      spans.push({ id, startMs: starts.get(id)!, endMs: time(ended[1]!) });
      starts.delete(id);
    }
  }
  return spans;
}

/** How many tasks Glance ran at once: time-weighted over the time at least one ran (busy), and the peak. */
export function taskOverlap(spans: readonly TaskSpan[]): { sumMs: number; busyMs: number; meanRunning: number; maxRunning: number } {
  const events = spans.flatMap((span) => [{ at: span.startMs, delta: 1 }, { at: span.endMs, delta: -1 }])
    .sort((a, b) => a.at - b.at || a.delta - b.delta);
  let running = 0;
  let busyMs = 0;
  let weighted = 0;
  let maxRunning = 0;
  let last = events[0]?.at ?? 0;
  for (const event of events) {
    if (running > 0) {
      busyMs += event.at - last;
      weighted += running * (event.at - last);
    }
    running += event.delta;
    maxRunning = Math.max(maxRunning, running);
    last = event.at;
  }
  const sumMs = spans.reduce((sum, span) => sum + span.endMs - span.startMs, 0);
  return { sumMs, busyMs, meanRunning: busyMs === 0 ? 0 : weighted / busyMs, maxRunning };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.error('bench/prewarm-drivers.ts: helpers of bench/prewarm.ts; nothing to run');
