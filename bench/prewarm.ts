// Benchmark: pre-warm many images into two stores with ferry, against what Glance allows and the operator's loop.
// Goals: ferry ≥ 5× faster than the glance-CLI loop; ferry's wall time ≥ 0.8 of the bound Glance allows
// (bound = Σ copy time Glance needs per image when alone ÷ the concurrency Glance sustains).
// Run: npx tsx bench/prewarm.ts [--images 50] [--size-mib 4] [--source central] [--stores site-a,site-b] [--repeat 3]
//      [--bound-k 4,8] [--ferry-concurrency 1,2,4,8,16] [--cli-modes store,image] [--cli-poll-s 2] [--raw-tick-ms 200]
//      [--skip-cli] [--adaptive-rounds N]
// --adaptive-rounds N: only N rounds of (raw serial, ferry fixed c=4, ferry adaptive, raw with each --bound-k), each
// giving both ferry runs' fraction of that round's bound; results in bench/results/prewarm-adaptive.json.
// One set of images is uploaded once (plain fetch) to --source; between phases their copies in the target stores are
// deleted (DELETE /v2/stores/{store}/{id}), so every phase starts from the same images in the same state.
// Phases: (1) raw serial, one request per image naming both stores: Glance's copy time per image, alone (Σ alone);
// (2) raw serial, one request per store; (3) raw with k imports kept submitted (--bound-k): Glance's busy time then;
// (4) ferry prewarm() per --ferry-concurrency, request mode image; (5) ferry, request mode store; (6) the glance CLI
// loop, per store and per image (--cli-modes).
// The concurrency Glance sustains with k in flight is C_k = Σ alone ÷ busy_k, so bound = Σ alone ÷ max C_k
// = min(Σ alone, busy_k over k).
// The machine is shared and its load varies by the minute, so the verdict compares runs made back to back: --repeat
// rounds of (raw serial, ferry's default, raw with each --bound-k), each giving bound ÷ ferry; the median of those is
// the fraction of the bound. Each CLI loop runs between two runs of ferry's default, and is compared with their mean.
// Calibration phases (request modes, other concurrencies) run once.
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
  stores: { type: 'string', default: 'site-a,site-b' }, 'bound-k': { type: 'string', default: '4,8' },
  'ferry-concurrency': { type: 'string', default: '1,2,4,8,16' }, 'cli-poll-s': { type: 'string', default: '2' },
  'cli-modes': { type: 'string', default: 'store,image' },
  'skip-cli': { type: 'boolean', default: false }, 'adaptive-rounds': { type: 'string', default: '0' }, repeat: { type: 'string', default: '3' }, 'raw-tick-ms': { type: 'string', default: '200' },
} });
const tickMs = Number(args['raw-tick-ms']);
const count = Number(args.images);
const stores = String(args.stores).split(',');
const numbers = (value: string | undefined): number[] => String(value).split(',').filter(Boolean).map(Number);

const devcloud = readBenchDevcloud();
const admin = createGlanceAdmin(devcloud);
const controller = new AbortController();
process.once('SIGINT', () => controller.abort(new Error('interrupted')));
process.once('SIGTERM', () => controller.abort(new Error('terminated')));
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

/** concurrency undefined: prewarm's adaptive concurrency. */
async function ferryPhase(ids: readonly string[], concurrency: number | undefined, requestMode: RequestMode): Promise<Phase> {
  const transport = createRecordingTransport();
  const cloud = await connectBenchCloud(devcloud, transport);
  const load1 = load();
  const started = performance.now();
  const report = await prewarm(cloud, { images: ids }, { stores, ...(concurrency === undefined ? {} : { concurrency, perStoreConcurrency: concurrency }),
    requestMode, signal: controller.signal });
  const wallMs = performance.now() - started;
  await transport.close();
  return { name: `ferry ${requestMode} c=${concurrency ?? 'adaptive'}`, wallS: s(wallMs), copies: report.counts.copied, load1,
    failed: report.counts.failed + report.counts.interrupted,
    requests: { imageGets: transport.matching('GET', IMAGE_GET).length, importPosts: transport.matching('POST', IMPORT_POST).length,
      all: transport.sent.length },
    extra: { copyS: roundSummary(summarizeSamples(report.items.flatMap((i) => (i.elapsedMs === undefined ? [] : [i.elapsedMs / 1000]))), 3),
      concurrencyReached: report.concurrencyReached, concurrencyChanges: report.concurrencyChanges } };
}

let ok = false;
/** Ends the --adaptive-rounds mode through the finally that deletes the images. */
class AdaptiveDone extends Error {}
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

  const raw = (name: string, k: number, mode: 'image' | 'store') => async (): Promise<Phase> => {
    const load1 = load();
    return rawPhase(name, await rawCopies(devcloud, admin, ids, stores, { concurrency: k, mode, tickMs }), load1);
  };
  const defaultName = `ferry image c=${PREWARM_DEFAULTS.concurrency}`;

  const adaptiveRounds = Number(args['adaptive-rounds']);
  if (adaptiveRounds > 0) {
    const boundK = numbers(args['bound-k']);
    const rounds: Record<string, unknown>[] = [];
    for (let round = 1; round <= adaptiveRounds; round += 1) {
      const serial = await step(`raw image k=1 #${round}`, raw('raw image k=1', 1, 'image'));
      const fixed = await step(`${defaultName} #${round}`, () => ferryPhase(ids, PREWARM_DEFAULTS.concurrency, 'image'));
      const adaptive = await step(`ferry image adaptive #${round}`, () => ferryPhase(ids, undefined, 'image'));
      const busy: number[] = [];
      for (const k of boundK) busy.push((await step(`raw image k=${k} #${round}`, raw(`raw image k=${k}`, k, 'image'))).glance?.busyS ?? Number.NaN);
      const bound = Math.min(serial.glance?.sumTaskS ?? Number.NaN, ...busy);
      rounds.push({ round, bound, fixedS: fixed.wallS, adaptiveS: adaptive.wallS, fixedFraction: Math.round((bound / fixed.wallS) * 100) / 100,
        adaptiveFraction: Math.round((bound / adaptive.wallS) * 100) / 100, reached: adaptive.extra?.concurrencyReached,
        changes: adaptive.extra?.concurrencyChanges });
    }
    ok = phases.every((p) => p.failed === 0);
    console.log(formatTable(['round', 'bound s', `${defaultName} s`, 'fraction', 'adaptive s', 'fraction', 'reached'],
      rounds.map((r) => [String(r.round), Number(r.bound).toFixed(2), Number(r.fixedS).toFixed(2), String(r.fixedFraction), Number(r.adaptiveS).toFixed(2),
        String(r.adaptiveFraction), String(r.reached)])));
    const file = writeBenchResult('prewarm-adaptive', { options: args, rounds, phases });
    console.log(`→ ${file}`);
    throw new AdaptiveDone();
  }

  // Calibration, once each: request modes, and what more or less concurrency does.
  await step('raw store k=1', raw('raw store k=1', 1, 'store'));
  await step(`ferry store c=${PREWARM_DEFAULTS.concurrency}`, () => ferryPhase(ids, PREWARM_DEFAULTS.concurrency, 'store'));
  for (const c of numbers(args['ferry-concurrency'])) {
    if (c !== PREWARM_DEFAULTS.concurrency) await step(`ferry image c=${c}`, () => ferryPhase(ids, c, 'image'));
  }

  // The verdict's rounds: the bound and ferry's default measured back to back, so that both see the same load.
  const boundK = numbers(args['bound-k']);
  const rounds: { bound: number; ferry: number; sumSerial: number; busy: Record<string, number>; sustained: number }[] = [];
  for (let round = 1; round <= Number(args.repeat); round += 1) {
    const serial = await step(`raw image k=1 #${round}`, raw('raw image k=1', 1, 'image'));
    const ferry = await step(`${defaultName} #${round}`, () => ferryPhase(ids, PREWARM_DEFAULTS.concurrency, 'image'));
    const busy: Record<string, number> = {};
    for (const k of boundK) {
      const phase = await step(`raw image k=${k} #${round}`, raw(`raw image k=${k}`, k, 'image'));
      busy[`k=${k}`] = phase.glance?.busyS ?? Number.NaN;
    }
    const sumSerial = serial.glance?.sumTaskS ?? Number.NaN;
    // Σ task time alone ÷ the best sustained concurrency (C_1 = 1, C_k = Σ ÷ busy time with k in flight) = min(Σ, busy_k)
    const bound = Math.min(sumSerial, ...Object.values(busy));
    rounds.push({ bound, ferry: ferry.wallS, sumSerial, busy, sustained: Math.round((sumSerial / bound) * 100) / 100 });
  }

  // The operator's loops, each between two runs of ferry's default (the run after one loop is the run before the next).
  const loops: { mode: string; wallS: number; ferryBeforeS: number; ferryAfterS: number; speedup: number }[] = [];
  let before = await step(`${defaultName} (before the CLI loops)`, () => ferryPhase(ids, PREWARM_DEFAULTS.concurrency, 'image'));
  for (const mode of args['skip-cli'] ? [] : String(args['cli-modes']).split(',').filter(Boolean) as ('store' | 'image')[]) {
    const name = `glance CLI loop per ${mode} (poll ${String(args['cli-poll-s'])} s)`;
    const cli = await step(name, async () => {
      const load1 = load();
      const run = await glanceCliLoop(devcloud, ids, stores, Number(args['cli-poll-s']), mode, controller.signal);
      const images = await Promise.all(ids.map((id) => admin.readImage(id)));
      const missing = images.reduce((sum, image) => sum + stores.filter((st) => !String(image.stores).split(',').includes(st)).length, 0);
      return { name, wallS: s(run.wallMs), copies: count * stores.length - missing, load1,
        failed: missing + (run.exitCode === 0 ? 0 : 1), requests: { glanceCommands: run.commands } };
    });
    const after = await step(`${defaultName} (after the CLI loop per ${mode})`, () => ferryPhase(ids, PREWARM_DEFAULTS.concurrency, 'image'));
    loops.push({ mode, wallS: cli.wallS, ferryBeforeS: before.wallS, ferryAfterS: after.wallS,
      speedup: Math.round((cli.wallS / ((before.wallS + after.wallS) / 2)) * 10) / 10 });
    before = after;
  }

  const median = (values: readonly number[]): number => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1 ? sorted[mid]! : ((sorted[mid - 1]! + sorted[mid]!) / 2);
  };
  const fractions = rounds.map((r) => r.bound / r.ferry);
  const fraction = median(fractions);
  ok = phases.every((p) => p.failed === 0) && fraction >= GOAL.fractionOfBound && loops.every((l) => l.speedup >= GOAL.speedupOverCliLoop);

  console.log(`\nprewarm: ${count} images of ${String(args['size-mib'])} MiB from ${String(args.source)} into ${stores.join(', ')}\n`);
  console.log(formatTable(['phase', 'wall s', 'copies', 'failed', 'load1', 'tasks', 'Σ task s', 'busy s', 'running mean/max', 'requests'],
    phases.map((p) => [p.name, p.wallS.toFixed(2), p.copies, p.failed, p.load1, p.glance?.tasks ?? '', p.glance?.sumTaskS.toFixed(2) ?? '',
      p.glance?.busyS.toFixed(2) ?? '', p.glance ? `${p.glance.meanRunning}/${p.glance.maxRunning}` : '', JSON.stringify(p.requests ?? {})])));
  console.log(`\nrounds (bound = min(Σ task time alone, Glance busy time with k imports in flight), k in ${boundK.join(', ')}):\n`);
  console.log(formatTable(['round', 'Σ task alone s', ...boundK.map((k) => `busy k=${k} s`), 'bound s', 'sustained', `${defaultName} s`, 'fraction'],
    rounds.map((r, i) => [i + 1, r.sumSerial.toFixed(2), ...boundK.map((k) => (r.busy[`k=${k}`] ?? Number.NaN).toFixed(2)), r.bound.toFixed(2),
      r.sustained, r.ferry.toFixed(2), (r.bound / r.ferry).toFixed(2)])));
  console.log(`\n${defaultName} (the default): median fraction of the bound ${fraction.toFixed(2)} (goal ≥ ${GOAL.fractionOfBound})`);
  for (const l of loops) {
    console.log(`glance CLI loop per ${l.mode}: ${l.wallS} s; ferry ${l.ferryBeforeS} s before it and ${l.ferryAfterS} s after: `
      + `${l.speedup.toFixed(1)}× (goal ≥ ${GOAL.speedupOverCliLoop}×)`);
  }
  const file = writeBenchResult('prewarm', {
    goal: GOAL, options: args, verdict: ok ? 'met' : 'NOT MET',
    rounds: rounds.map((r) => ({ ...r, fraction: Math.round((r.bound / r.ferry) * 100) / 100 })),
    fractionOfBound: Math.round(fraction * 100) / 100,
    cliLoops: loops,
    phases,
  });
  console.log(`\nverdict: ${ok ? 'met' : 'NOT MET'}  → ${file}`);
} catch (error) {
  if (!(error instanceof AdaptiveDone)) throw error;
} finally {
  await admin.deleteAll();
}
if (!ok) process.exitCode = 1;
