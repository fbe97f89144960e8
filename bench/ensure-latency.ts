// Benchmark: delay from Glance finishing a copy to ensure() returning, and image reads per copy.
// Goal: delay p50 ≤ 0.2 s, p99 ≤ 1 s; at most ~15 image reads per copy of up to a minute (nova: one read per 15 s).
// Run: npx tsx bench/ensure-latency.ts [--copies 30] [--min-mib 4] [--max-mib 256] [--observer-ms 20]
//      [--fresh-cloud] [--budget-s 900] [--seeds 200] [--simulate-only]
// Results: bench/results/ensure-latency.json (one cloud for all copies, as a long-running compute service), or
// ensure-latency-fresh-cloud.json with --fresh-cloud (a new cloud per copy, as one `ferry ensure` process each), or
// ensure-latency-simulated.json with --simulate-only.
// Each copy: upload to site-a (plain fetch), then ensure(…, { store: 'site-b' }) while an observer in this process
// polls the image every 20 ms and brackets the moment os_glance_import_task disappears. Then the image is deleted
// (the site-b memstore OSD holds 2 GiB). A simulation of the real delay policy on a fake clock extrapolates to
// copies the memstore cluster cannot produce (30 s – 5 min). Exits 1 when a goal is missed.
import { copyShared } from '../src/copy/copy-context.js';
import { parseArgs } from 'node:util';
import type { Cloud } from '../src/cloud/cloud.js';
import { COPY_RATE_DEFAULTS } from '../src/copy/copy-duration-estimator.js';
import { ensure } from '../src/copy/ensure.js';
import { ENSURE_DEFAULTS } from '../src/copy/ensure-options.js';
import { DELAY_DEFAULTS } from '../src/wait/next-delay.js';
import { connectBenchCloud } from './lib/connect-bench-cloud.js';
import { readBenchDevcloud } from './lib/devcloud-facts.js';
import { fixedIntervalCost, NOVA_POLL_INTERVAL_MS } from './lib/fixed-interval-cost.js';
import { formatTable } from './lib/format-table.js';
import { createGlanceAdmin } from './lib/glance-admin.js';
import { observeImportLock } from './lib/observe-import-lock.js';
import { createRecordingTransport, IMAGE_GET, IMAGE_TASKS_GET, IMPORT_POST, type RecordingTransport } from './lib/recording-transport.js';
import { seededRandom } from './lib/simulate-ensure-wait.js';
import { simulateWaitTable } from './lib/simulate-wait-table.js';
import { roundSummary, summarizeSamples } from './lib/summarize-samples.js';
import { writeBenchResult } from './lib/write-bench-result.js';

const GOAL = { p50DelayMs: 200, p99DelayMs: 1000, maxReadsPerMinuteCopy: 15 } as const;
const MIB = 1024 * 1024;

const { values: args } = parseArgs({ options: {
  copies: { type: 'string', default: '30' }, 'min-mib': { type: 'string', default: '4' }, 'max-mib': { type: 'string', default: '256' },
  'observer-ms': { type: 'string', default: '20' }, 'fresh-cloud': { type: 'boolean', default: false },
  'budget-s': { type: 'string', default: '900' }, seeds: { type: 'string', default: '200' }, 'simulate-only': { type: 'boolean', default: false },
} });
const copies = Number(args.copies);
const observerMs = Number(args['observer-ms']);

interface CopySample {
  readonly sizeMiB: number;
  readonly expectedMs: number | undefined;
  readonly durationMs: number;
  /** ensure's return − the middle of the observer's bracket around the lock release. */
  readonly delayMs: number;
  /** The same from the bracket's ends: the true delay lies between these. */
  readonly delayLowMs: number;
  readonly delayHighMs: number;
  readonly uncertaintyMs: number;
  /** The GET that saw the end was sent this long after the release (negative: sent before, answered after). */
  readonly detectingGetSentAfterMs: number;
  readonly detectingGetRttMs: number;
  readonly imageReads: number;
  readonly imageReadsAfterRequest: number;
  readonly taskReads: number;
  readonly observerPolls: number;
}

/** Log-uniform sizes from min to max MiB, in a fixed shuffled order (so the estimator does not just see a ramp). */
function copySizes(n: number, minMiB: number, maxMiB: number): number[] {
  const sizes = Array.from({ length: n }, (_, i) => Math.round(minMiB * (maxMiB / minMiB) ** (n === 1 ? 0 : i / (n - 1))));
  const random = seededRandom(42);
  for (let i = sizes.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [sizes[i], sizes[j]] = [sizes[j]!, sizes[i]!];
  }
  return sizes;
}

async function measureCopy(cloud: Cloud, transport: RecordingTransport, admin: ReturnType<typeof createGlanceAdmin>, sizeMiB: number,
  index: number, signal: AbortSignal): Promise<CopySample | string> {
  const id = await admin.uploadImage({ name: `bench-ensure-latency-${index}`, store: 'site-a', sizeBytes: sizeMiB * MIB });
  try {
    const expectedMs = copyShared(cloud).copyDurations.expectedMs('site-b', sizeMiB * MIB);
    const observer = observeImportLock(admin, id, observerMs);
    const started = performance.now();
    const result = await ensure(cloud, id, { store: 'site-b', timeoutMs: 180_000, signal });
    const returnedAt = performance.now();
    const observed = await observer.stop(3000);
    const release = observed.release;
    if (!release) return `copy ${index} (${sizeMiB} MiB): the observer never saw the lock set and then gone (${observed.samples} polls)`;
    const post = transport.matching('POST', IMPORT_POST, started, returnedAt)[0];
    const reads = transport.matching('GET', IMAGE_GET, started, returnedAt);
    const detecting = reads[reads.length - 1];
    if (!post || !detecting || !result.copied) return `copy ${index}: ensure did not request a copy (copied=${result.copied})`;
    if (result.imageReads !== reads.length) console.error(`copy ${index}: ensure reports ${result.imageReads} reads, the transport saw ${reads.length}`);
    return {
      sizeMiB, expectedMs, durationMs: release.releasedAt - post.sentAt, delayMs: returnedAt - release.releasedAt,
      delayLowMs: returnedAt - release.firstUnlockedDoneAt, delayHighMs: returnedAt - release.lastLockedSentAt,
      uncertaintyMs: release.uncertaintyMs, detectingGetSentAfterMs: detecting.sentAt - release.releasedAt,
      detectingGetRttMs: (detecting.doneAt ?? Number.NaN) - detecting.sentAt, imageReads: reads.length,
      imageReadsAfterRequest: reads.filter((r) => r.sentAt > post.sentAt).length,
      taskReads: transport.matching('GET', IMAGE_TASKS_GET, started, returnedAt).length, observerPolls: observed.samples,
    };
  } finally {
    await admin.deleteImage(id);
  }
}

async function measure(signal: AbortSignal): Promise<{ samples: CopySample[]; problems: string[] }> {
  const devcloud = readBenchDevcloud();
  const admin = createGlanceAdmin(devcloud);
  const samples: CopySample[] = [];
  const problems: string[] = [];
  const budgetEnd = performance.now() + Number(args['budget-s']) * 1000;
  const transport = createRecordingTransport();
  let cloud = await connectBenchCloud(devcloud, transport);
  try {
    for (const [index, sizeMiB] of copySizes(copies, Number(args['min-mib']), Number(args['max-mib'])).entries()) {
      if (signal.aborted || performance.now() > budgetEnd) break;
      if (args['fresh-cloud'] && index > 0) cloud = await connectBenchCloud(devcloud, transport);
      const sample = await measureCopy(cloud, transport, admin, sizeMiB, index, signal);
      if (typeof sample === 'string') problems.push(sample);
      else samples.push(sample);
      const line = typeof sample === 'string' ? sample : `${String(index + 1).padStart(3)}/${copies} ${String(sizeMiB).padStart(4)} MiB `
        + `copy ${(sample.durationMs / 1000).toFixed(2)} s (expected ${((sample.expectedMs ?? Number.NaN) / 1000).toFixed(2)} s)  `
        + `delay ${sample.delayMs.toFixed(0)} ±${sample.uncertaintyMs.toFixed(0)} ms  reads ${sample.imageReads}`;
      console.error(line);
    }
  } finally {
    await admin.deleteAll();
    await transport.close();
  }
  return { samples, problems };
}

const controller = new AbortController();
process.once('SIGINT', () => controller.abort(new Error('interrupted')));
process.once('SIGTERM', () => controller.abort(new Error('terminated')));

const { samples, problems } = args['simulate-only'] ? { samples: [], problems: [] } : await measure(controller.signal);
const delay = roundSummary(summarizeSamples(samples.map((s) => s.delayMs)), 0);
const delayLow = roundSummary(summarizeSamples(samples.map((s) => s.delayLowMs)), 0);
const delayHigh = roundSummary(summarizeSamples(samples.map((s) => s.delayHighMs)), 0);
const duration = roundSummary(summarizeSamples(samples.map((s) => s.durationMs / 1000)), 2);
const reads = roundSummary(summarizeSamples(samples.map((s) => s.imageReads)), 1);
const uncertainty = roundSummary(summarizeSamples(samples.map((s) => s.uncertaintyMs)), 0);
const readRtt = roundSummary(summarizeSamples(samples.map((s) => s.detectingGetRttMs)), 0);
const strategies = [{ name: 'ferry (measured)', reads: samples.map((s) => s.imageReadsAfterRequest), delays: samples.map((s) => s.delayMs) },
  ...[NOVA_POLL_INTERVAL_MS, 1000, 200].map((interval) => {
    const costs = samples.map((s) => fixedIntervalCost(s.durationMs, interval));
    return { name: `fixed ${interval / 1000} s (computed)`, reads: costs.map((c) => c.reads), delays: costs.map((c) => c.delayMs) };
  })].map(({ name, reads: r, delays }) => ({ name, readsAfterRequest: roundSummary(summarizeSamples(r), 1),
  delayMs: roundSummary(summarizeSamples(delays), 0) }));

/** Least squares of copy duration on size: the fixed cost per copy and the throughput the estimator should learn. */
function fitDuration(points: readonly CopySample[]): { fixedMs: number; mibPerS: number } | undefined {
  if (points.length < 2) return undefined;
  const n = points.length;
  const mx = points.reduce((a, p) => a + p.sizeMiB, 0) / n;
  const my = points.reduce((a, p) => a + p.durationMs, 0) / n;
  const sxx = points.reduce((a, p) => a + (p.sizeMiB - mx) ** 2, 0);
  const slope = points.reduce((a, p) => a + (p.sizeMiB - mx) * (p.durationMs - my), 0) / sxx;
  return { fixedMs: Math.round(my - slope * mx), mibPerS: Math.round(1000 / slope) };
}
const fit = fitDuration(samples);

if (samples.length > 0) {
  console.log(`\nensure-latency: ${samples.length} copies site-a → site-b, ${args['min-mib']}–${args['max-mib']} MiB, `
    + `${args['fresh-cloud'] ? 'a new cloud per copy' : 'one cloud for all copies'}; observer every ${observerMs} ms `
    + `(release bracketed to ±${uncertainty.p50} ms median, ±${uncertainty.max} ms max)\n`);
  console.log(formatTable(['', 'n', 'min', 'p50', 'p90', 'p99', 'max', 'mean'], [
    ['delay ms', delay.n, delay.min, delay.p50, delay.p90, delay.p99, delay.max, delay.mean],
    ['delay, low end ms', delayLow.n, delayLow.min, delayLow.p50, delayLow.p90, delayLow.p99, delayLow.max, delayLow.mean],
    ['delay, high end ms', delayHigh.n, delayHigh.min, delayHigh.p50, delayHigh.p90, delayHigh.p99, delayHigh.max, delayHigh.mean],
    ['copy s', duration.n, duration.min, duration.p50, duration.p90, duration.p99, duration.max, duration.mean],
    ['image reads', reads.n, reads.min, reads.p50, reads.p90, reads.p99, reads.max, reads.mean],
    ['detecting GET ms', readRtt.n, readRtt.min, readRtt.p50, readRtt.p90, readRtt.p99, readRtt.max, readRtt.mean],
  ]));
  if (fit) console.log(`\ncopy duration ≈ ${fit.fixedMs} ms + size / ${fit.mibPerS} MiB/s (least squares; the estimator assumes `
    + `${COPY_RATE_DEFAULTS.overheadMs} ms + size / ${Math.round(COPY_RATE_DEFAULTS.bytesPerMs * 1000 / MIB)} MiB/s until it learns)`);
  console.log('\nsame copy durations, image reads after the request and detection delay per strategy:\n');
  console.log(formatTable(['strategy', 'reads mean', 'reads max', 'delay p50 ms', 'delay mean ms', 'delay max ms'],
    strategies.map((s) => [s.name, s.readsAfterRequest.mean, s.readsAfterRequest.max, s.delayMs.p50, s.delayMs.mean, s.delayMs.max])));
}

const readLatencyMs = Number.isFinite(readRtt.p50) ? readRtt.p50 : 15;
const simulated = await simulateWaitTable({ seeds: Number(args.seeds), readLatencyMs });
console.log(`\nSIMULATED (real ensure/waiter/nextDelay/estimator on a fake clock, ${args.seeds} seeds per row, ${readLatencyMs} ms per read;`
  + ' estimate = ferry\'s expected duration ÷ the real one; nova reads include one read before the request, as ferry\'s do):\n');
console.log(formatTable(['copy s', 'estimate', 'reads p50', 'reads max', 'task reads max', 'delay p50 ms', 'delay p99 ms', 'delay max ms',
  'nova reads', 'nova delay mean', 'nova delay max'],
simulated.map((r) => [r.durationS, r.estimate, r.imageReads.p50, r.imageReads.max, r.taskReads.max, r.delayMs.p50, r.delayMs.p99, r.delayMs.max,
  r.nova.readsMean, r.nova.delayMeanMs, r.nova.delayMaxMs])));

const verdict = samples.length === 0 ? 'not measured' : {
  p50: delay.p50 <= GOAL.p50DelayMs, p99: delay.p99 <= GOAL.p99DelayMs,
  p50EvenAtHighEnd: delayHigh.p50 <= GOAL.p50DelayMs, p99EvenAtHighEnd: delayHigh.p99 <= GOAL.p99DelayMs,
  reads: samples.filter((s) => s.durationMs <= 60_000).every((s) => s.imageReads <= GOAL.maxReadsPerMinuteCopy),
};
const resultName = args['simulate-only'] ? 'ensure-latency-simulated' : args['fresh-cloud'] ? 'ensure-latency-fresh-cloud' : 'ensure-latency';
const file = writeBenchResult(resultName, {
  goal: GOAL, options: { ...args, copies }, verdict, problems,
  policy: { ENSURE_DEFAULTS, DELAY_DEFAULTS, COPY_RATE_DEFAULTS }, durationFit: fit,
  measured: { delayMs: delay, delayLowMs: delayLow, delayHighMs: delayHigh, copyDurationS: duration, imageReads: reads, releaseUncertaintyMs: uncertainty, detectingGetRttMs: readRtt,
    strategies, copies: samples.map((s) => Object.fromEntries(Object.entries(s).map(([k, v]) => [k, typeof v === 'number' ? Math.round(v * 10) / 10 : v]))) },
  simulated: { readLatencyMs, seeds: Number(args.seeds), rows: simulated },
});
console.log(`\nverdict: ${JSON.stringify(verdict)}  problems: ${problems.length}  → ${file}`);
if (problems.length > 0 || (typeof verdict === 'object' && !(verdict.p50 && verdict.p99 && verdict.reads))) process.exitCode = 1;
