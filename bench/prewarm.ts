// Benchmark: pre-warm many images into two stores with ferry, against what Glance allows and the operator's loop.
// Goals: ferry ≥ 5× faster than the glance-CLI loop; ferry's wall time ≥ 0.8 of the bound Glance allows
// (bound = Σ copy time Glance needs per image when alone ÷ the concurrency Glance sustains).
// Run: npx tsx bench/prewarm.ts [--images 50] [--size-mib 4] [--source central] [--stores site-a,site-b] [--repeat 2]
//      [--raw-concurrency 2,4,8] [--ferry-concurrency 1,2,4,8] [--cli-poll-s 2] [--raw-tick-ms 200] [--skip-cli]
// One set of images is uploaded once (plain fetch) to --source; between phases their copies in the target stores are
// deleted (DELETE /v2/stores/{store}/{id}), so every phase starts from the same images in the same state.
// Phases: (1) raw serial, one request per image naming both stores: Glance's copy time per image, alone;
// (2) raw serial, one request per store; (3) raw with k imports submitted at once: the concurrency Glance sustains;
// (4) ferry prewarm() per --ferry-concurrency, request mode image; (5) ferry, request mode store; (6) the glance CLI loop.
// Phases (1), (3) and (4) run --repeat times, interleaved (the machine is shared: load varies); the verdict uses medians.
// Glance's own log gives each import task's running time (ms stamps), free of any client's polling granularity; the raw
// driver polls lightly (--raw-tick-ms) because every read costs the single-process Glance CPU that a copy then lacks.
// Results: bench/results/prewarm.json. Exits 1 when a goal is missed.
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { prewarm } from '../src/prewarm/prewarm.js';
import { PREWARM_DEFAULTS, type RequestMode } from '../src/prewarm/prewarm-options.js';
import { connectBenchCloud } from './lib/connect-bench-cloud.js';
import { readBenchDevcloud } from './lib/devcloud-facts.js';
import { formatTable } from './lib/format-table.js';
import { createGlanceAdmin } from './lib/glance-admin.js';
import { createRecordingTransport, IMAGE_GET, IMPORT_POST } from './lib/recording-transport.js';
import { roundSummary, summarizeSamples } from './lib/summarize-samples.js';
import { writeBenchResult } from './lib/write-bench-result.js';
import { glanceCliLoop, rawCopies, readTaskSpans, removeCopies, taskOverlap, type RawRun } from './prewarm-drivers.js';

const GOAL = { speedupOverCliLoop: 5, fractionOfBound: 0.8 } as const;
const MIB = 1024 * 1024;

const { values: args } = parseArgs({ options: {
  images: { type: 'string', default: '50' }, 'size-mib': { type: 'string', default: '4' }, source: { type: 'string', default: 'central' },
  stores: { type: 'string', default: 'site-a,site-b' }, 'raw-concurrency': { type: 'string', default: '2,4,8' },
  'ferry-concurrency': { type: 'string', default: '1,2,4,8' }, 'cli-poll-s': { type: 'string', default: '2' },
  'skip-cli': { type: 'boolean', default: false }, repeat: { type: 'string', default: '2' }, 'raw-tick-ms': { type: 'string', default: '200' },
} });
const tickMs = Number(args['raw-tick-ms']);
const count = Number(args.images);
const stores = String(args.stores).split(',');
const numbers = (value: string | undefined): number[] => String(value).split(',').filter(Boolean).map(Number);

const devcloud = readBenchDevcloud();
const admin = createGlanceAdmin(devcloud);
const controller = new AbortController();
process.once('SIGINT', () => controller.abort(new Error('interrupted')));
const s = (ms: number): number => Math.round(ms) / 1000;
const load = (): number => Math.round(loadavg()[0]! * 100) / 100;

interface Phase {
  readonly name: string;
  readonly wallS: number;
  readonly copies: number;
  readonly load1: number;
  readonly requests?: Record<string, number>;
  readonly failed: number;
  readonly extra?: Record<string, unknown>;
  /** From glance-api's log: the phase's import tasks, their summed and overlapping running time. */
  glance?: { tasks: number; sumTaskS: number; busyS: number; meanRunning: number; maxRunning: number };
}
const phases: Phase[] = [];
const glanceLog = (devcloud.glance as { log?: string }).log ?? `${devcloud.dir}/glance/glance-api.log`;
const seenTasks = new Set<string>();

/** The import tasks the images got since the last call, measured in Glance's own log. */
async function newTaskSpans(ids: readonly string[]): Promise<Phase['glance']> {
  const fresh = new Set<string>();
  for (const id of ids) {
    for (const task of await admin.copyTasks(id)) {
      if (!seenTasks.has(task.id)) fresh.add(task.id);
      seenTasks.add(task.id);
    }
  }
  const overlap = taskOverlap(readTaskSpans(glanceLog, fresh));
  return { tasks: fresh.size, sumTaskS: s(overlap.sumMs), busyS: s(overlap.busyMs), meanRunning: Math.round(overlap.meanRunning * 100) / 100,
    maxRunning: overlap.maxRunning };
}

function rawPhase(name: string, run: RawRun, load1: number): Phase {
  const locked = summarizeSamples(run.inFlight.map((t) => t.locked));
  const writing = summarizeSamples(run.inFlight.map((t) => t.writing));
  return { name, wallS: s(run.wallMs), copies: count * stores.length, load1, failed: run.failedStores,
    requests: { listPolls: run.polls },
    extra: { copyS: roundSummary(summarizeSamples(run.copyMs.map((ms) => ms / 1000)), 3), sumCopyS: s(run.copyMs.reduce((a, b) => a + b, 0)),
      locksHeldMean: Math.round(locked.mean * 100) / 100, writingMean: Math.round(writing.mean * 100) / 100, writingMax: writing.max } };
}

async function ferryPhase(ids: readonly string[], concurrency: number, requestMode: RequestMode): Promise<Phase> {
  const transport = createRecordingTransport();
  const cloud = await connectBenchCloud(devcloud, transport);
  const load1 = load();
  const started = performance.now();
  const report = await prewarm(cloud, { images: ids }, { stores, concurrency, perStoreConcurrency: concurrency, requestMode,
    signal: controller.signal });
  const wallMs = performance.now() - started;
  await transport.close();
  return { name: `ferry ${requestMode} c=${concurrency}`, wallS: s(wallMs), copies: report.counts.copied, load1,
    failed: report.counts.failed + report.counts.interrupted,
    requests: { imageGets: transport.matching('GET', IMAGE_GET).length, importPosts: transport.matching('POST', IMPORT_POST).length,
      all: transport.sent.length },
    extra: { copyS: roundSummary(summarizeSamples(report.items.flatMap((i) => (i.elapsedMs === undefined ? [] : [i.elapsedMs / 1000]))), 3) } };
}

let ok = false;
try {
  const ids: string[] = [];
  await newTaskSpans([]);
  const tag = Math.random().toString(36).slice(2, 8);
  for (let i = 0; i < count; i += 1) {
    ids.push(await admin.uploadImage({ name: `bench-prewarm-${tag}-${i}`, store: String(args.source), sizeBytes: Number(args['size-mib']) * MIB }));
  }
  const reset = (): Promise<void> => removeCopies(devcloud, admin, ids, stores);
  const step = async (name: string, run: () => Promise<Phase>): Promise<Phase> => {
    if (controller.signal.aborted) throw new Error('interrupted');
    const phase = await run();
    phase.glance = await newTaskSpans(ids);
    phases.push(phase);
    console.error(`${name}: ${phase.wallS} s, ${phase.copies} copies, failed ${phase.failed}, load ${phase.load1}, glance ${JSON.stringify(phase.glance)}`);
    await reset();
    return phase;
  };

  for (let round = 1; round <= Number(args.repeat); round += 1) {
    await step(`raw serial (image) #${round}`, async () => {
      const load1 = load();
      return rawPhase('raw image k=1', await rawCopies(devcloud, admin, ids, stores, { concurrency: 1, mode: 'image', tickMs }), load1);
    });
    for (const k of numbers(args['raw-concurrency'])) {
      await step(`raw k=${k} #${round}`, async () => {
        const load1 = load();
        return rawPhase(`raw image k=${k}`, await rawCopies(devcloud, admin, ids, stores, { concurrency: k, mode: 'image', tickMs }), load1);
      });
    }
    for (const c of numbers(args['ferry-concurrency'])) await step(`ferry image c=${c} #${round}`, () => ferryPhase(ids, c, 'image'));
  }
  await step('raw serial (store)', async () => {
    const load1 = load();
    return rawPhase('raw store k=1', await rawCopies(devcloud, admin, ids, stores, { concurrency: 1, mode: 'store', tickMs }), load1);
  });
  await step(`ferry store c=${PREWARM_DEFAULTS.concurrency}`, () => ferryPhase(ids, PREWARM_DEFAULTS.concurrency, 'store'));
  if (!args['skip-cli']) {
    await step('glance CLI loop', async () => {
      const load1 = load();
      const run = await glanceCliLoop(devcloud, ids, stores, Number(args['cli-poll-s']), controller.signal);
      const images = await Promise.all(ids.map((id) => admin.readImage(id)));
      const missing = images.reduce((sum, image) => sum + stores.filter((st) => !String(image.stores).split(',').includes(st)).length, 0);
      return { name: `glance CLI loop (poll ${String(args['cli-poll-s'])} s)`, wallS: s(run.wallMs), copies: count * stores.length - missing, load1,
        failed: missing + (run.exitCode === 0 ? 0 : 1), requests: { glanceCommands: run.commands } };
    });
  }

  // Medians per phase name over the repeats.
  // A true median: with 2 repeats, the mean of both (a nearest-rank p50 would report the better run).
  const median = (values: readonly number[]): number => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1 ? sorted[mid]! : ((sorted[mid - 1]! + sorted[mid]!) / 2);
  };
  const names = [...new Set(phases.map((p) => p.name))];
  const summary = names.map((name) => {
    const runs = phases.filter((p) => p.name === name);
    return { name, runs: runs.length, wallS: median(runs.map((p) => p.wallS)), sumTaskS: median(runs.map((p) => p.glance?.sumTaskS ?? Number.NaN)),
      busyS: median(runs.map((p) => p.glance?.busyS ?? Number.NaN)), meanRunning: median(runs.map((p) => p.glance?.meanRunning ?? Number.NaN)) };
  });
  const of = (name: string) => summary.find((row) => row.name === name);

  // The bound, from Glance's own log: Σ task time when Glance copies one image at a time (raw serial), divided by the
  // best concurrency it sustained, C_k = that Σ ÷ the time Glance was busy (≥ 1 task running) in the raw run with k
  // imports submitted (C_1 = 1). Σ / max C_k = the least busy time any raw run needed.
  const sumSerialS = of('raw image k=1')?.sumTaskS ?? Number.NaN;
  const raws = summary.filter((row) => row.name.startsWith('raw image'));
  const sustained = Math.max(...raws.map((row) => sumSerialS / row.busyS));
  const boundS = sumSerialS / sustained;
  const ferryRuns = summary.filter((row) => row.name.startsWith('ferry image'));
  const best = ferryRuns.reduce((a, b) => (b.wallS < a.wallS ? b : a));
  const defaultRun = of(`ferry image c=${PREWARM_DEFAULTS.concurrency}`) ?? best;
  const cli = summary.find((row) => row.name.startsWith('glance CLI'));
  const speedup = cli === undefined ? undefined : cli.wallS / defaultRun.wallS;
  const fraction = boundS / defaultRun.wallS;
  ok = phases.every((p) => p.failed === 0) && fraction >= GOAL.fractionOfBound && (speedup === undefined || speedup >= GOAL.speedupOverCliLoop);

  console.log(`\nprewarm: ${count} images of ${String(args['size-mib'])} MiB from ${String(args.source)} into ${stores.join(', ')}\n`);
  console.log(formatTable(['phase', 'wall s', 'copies', 'failed', 'load1', 'tasks', 'Σ task s', 'busy s', 'running mean/max', 'requests'],
    phases.map((p) => [p.name, p.wallS.toFixed(2), p.copies, p.failed, p.load1, p.glance?.tasks ?? '', p.glance?.sumTaskS.toFixed(2) ?? '',
      p.glance?.busyS.toFixed(2) ?? '', p.glance ? `${p.glance.meanRunning}/${p.glance.maxRunning}` : '', JSON.stringify(p.requests ?? {})])));
  console.log('\nmedians over the repeats:\n');
  console.log(formatTable(['phase', 'runs', 'wall s', 'Σ task s', 'busy s', 'running mean'],
    summary.map((row) => [row.name, row.runs, row.wallS.toFixed(2), row.sumTaskS.toFixed(2), row.busyS.toFixed(2), row.meanRunning.toFixed(2)])));
  console.log(`\nΣ task time, one image at a time (raw serial): ${sumSerialS.toFixed(2)} s; best sustained concurrency ${sustained.toFixed(2)}; `
    + `bound ${boundS.toFixed(2)} s`);
  console.log(`${defaultRun.name} (the default): ${defaultRun.wallS} s = ${fraction.toFixed(2)} of the bound (goal ≥ ${GOAL.fractionOfBound}); `
    + (speedup === undefined ? 'CLI loop skipped' : `${speedup.toFixed(1)}× the glance CLI loop (goal ≥ ${GOAL.speedupOverCliLoop}×)`));
  const file = writeBenchResult('prewarm', {
    goal: GOAL, options: args, verdict: ok ? 'met' : 'NOT MET',
    bound: { sumSerialCopyS: sumSerialS, sustainedConcurrency: Math.round(sustained * 100) / 100, boundS: Math.round(boundS * 100) / 100 },
    ferry: { default: defaultRun.name, wallS: defaultRun.wallS, fractionOfBound: Math.round(fraction * 100) / 100,
      speedupOverCliLoop: speedup === undefined ? null : Math.round(speedup * 10) / 10, best: best.name },
    medians: summary,
    phases,
  });
  console.log(`\nverdict: ${ok ? 'met' : 'NOT MET'}  → ${file}`);
} finally {
  await admin.deleteAll();
}
if (!ok) process.exitCode = 1;
