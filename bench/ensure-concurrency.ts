// Benchmark: 100 concurrent ensure() for one image in one process share one copy.
// Goal: exactly 1 import POST per burst (and 1 copy task in Glance); image GETs and token POSTs as for a single call.
// Run: npx tsx bench/ensure-concurrency.ts [--callers 100] [--repeats 5] [--size-mib 32]
// Each repeat: upload a fresh image to site-a (plain fetch), connect a new cloud (so the token is fetched inside the
// burst too), start all callers at once, count what ferry's transport sent, ask Glance how many copy tasks it ran,
// delete the image. Exits 1 when a burst made other than one import request or one copy task.
import { setMaxListeners } from 'node:events';
import { parseArgs } from 'node:util';
import { ensure } from '../src/copy/ensure.js';
import type { EnsureResult } from '../src/copy/ensure-result.js';
import { connectBenchCloud } from './lib/connect-bench-cloud.js';
import { readBenchDevcloud } from './lib/devcloud-facts.js';
import { formatTable } from './lib/format-table.js';
import { createGlanceAdmin } from './lib/glance-admin.js';
import { createRecordingTransport, IMAGE_GET, IMAGE_TASKS_GET, IMPORT_POST, TOKEN_POST } from './lib/recording-transport.js';
import { roundSummary, summarizeSamples } from './lib/summarize-samples.js';
import { writeBenchResult } from './lib/write-bench-result.js';

const { values: args } = parseArgs({ options: {
  callers: { type: 'string', default: '100' }, repeats: { type: 'string', default: '5' }, 'size-mib': { type: 'string', default: '32' },
} });
const callers = Number(args.callers);
const repeats = Number(args.repeats);
const sizeMiB = Number(args['size-mib']);

interface Burst {
  readonly importPosts: number;
  readonly imageGets: number;
  readonly taskGets: number;
  readonly tokenPosts: number;
  readonly otherRequests: number;
  readonly copyTasks: number;
  readonly wallMs: number;
  readonly distinctTargets: number;
  readonly allCopied: boolean;
  readonly failures: number;
}

const devcloud = readBenchDevcloud();
const admin = createGlanceAdmin(devcloud);
const controller = new AbortController();
// every caller listens on this one signal (single-flight adds one abort listener per caller and removes it after)
setMaxListeners(callers + 10, controller.signal);
process.once('SIGINT', () => controller.abort(new Error('interrupted')));
process.once('SIGTERM', () => controller.abort(new Error('terminated')));

async function burst(index: number): Promise<Burst> {
  const id = await admin.uploadImage({ name: `bench-ensure-concurrency-${index}`, store: 'site-a', sizeBytes: sizeMiB * 1024 * 1024 });
  const transport = createRecordingTransport();
  try {
    const cloud = await connectBenchCloud(devcloud, transport);
    const started = performance.now();
    const settled = await Promise.allSettled(Array.from({ length: callers },
      () => ensure(cloud, id, { store: 'site-b', timeoutMs: 180_000, signal: controller.signal })));
    const wallMs = performance.now() - started;
    const results = settled.filter((s): s is PromiseFulfilledResult<EnsureResult> => s.status === 'fulfilled').map((s) => s.value);
    for (const s of settled) if (s.status === 'rejected') console.error(`burst ${index}: ${String(s.reason)}`);
    const counted = [IMPORT_POST, IMAGE_GET, IMAGE_TASKS_GET, TOKEN_POST];
    const copyTasks = (await admin.copyTasks(id)).filter((task) => task.backend.includes('site-b')).length;
    return {
      importPosts: transport.matching('POST', IMPORT_POST).length,
      imageGets: transport.matching('GET', IMAGE_GET).length,
      taskGets: transport.matching('GET', IMAGE_TASKS_GET).length,
      tokenPosts: transport.matching('POST', TOKEN_POST).length,
      otherRequests: transport.sent.filter((r) => !counted.some((pattern) => pattern.test(r.path))).length,
      copyTasks, wallMs,
      distinctTargets: new Set(results.map((r) => r.target.url)).size,
      allCopied: results.length === callers && results.every((r) => r.copied),
      failures: callers - results.length,
    };
  } finally {
    await transport.close();
    await admin.deleteImage(id);
  }
}

const bursts: Burst[] = [];
try {
  for (let i = 0; i < repeats && !controller.signal.aborted; i += 1) {
    const b = await burst(i);
    bursts.push(b);
    console.error(`burst ${i + 1}/${repeats}: ${b.importPosts} import POST, ${b.imageGets} image GETs, ${b.tokenPosts} token POST, `
      + `${(b.wallMs / 1000).toFixed(2)} s`);
  }
} finally {
  await admin.deleteAll();
}

console.log(`\nensure-concurrency: ${callers} concurrent ensure() of one ${sizeMiB} MiB image site-a → site-b, one cloud per burst\n`);
console.log(formatTable(['burst', 'import POSTs', 'copy tasks', 'image GETs', 'task GETs', 'token POSTs', 'other', 'wall s', 'targets', 'all copied', 'failed'],
  bursts.map((b, i) => [i + 1, b.importPosts, b.copyTasks, b.imageGets, b.taskGets, b.tokenPosts, b.otherRequests, (b.wallMs / 1000).toFixed(2),
    b.distinctTargets, String(b.allCopied), b.failures])));
const wall = roundSummary(summarizeSamples(bursts.map((b) => b.wallMs / 1000)), 2);
const ok = bursts.length === repeats && bursts.every((b) => b.importPosts === 1 && b.copyTasks === 1 && b.allCopied && b.distinctTargets === 1);
const file = writeBenchResult('ensure-concurrency', {
  goal: 'exactly 1 import POST and 1 Glance copy task per burst of concurrent ensure() in one process',
  options: { callers, repeats, sizeMiB }, verdict: ok ? 'met' : 'NOT MET', wallS: wall,
  bursts: bursts.map((b) => ({ ...b, wallMs: Math.round(b.wallMs) })),
});
console.log(`\nverdict: ${ok ? 'met' : 'NOT MET'}  → ${file}`);
if (!ok) process.exitCode = 1;
