// Benchmark: ensure() of an image that already has a clonable location in the local cluster (the common boot).
// Goal: cold (a new cloud: token + 1 image GET), warm (1 image GET); latency p50/p99 reported.
// Run: npx tsx bench/ensure-local.ts [--cold 20] [--warm 200]
// The image is uploaded straight to site-b (plain fetch) and deleted at the end. Cold = a new transport and cloud per
// call, as one `ferry ensure` process would have; warm = sequential calls on one cloud after one warm-up call.
// Exits 1 when a call made other requests than expected.
import { parseArgs } from 'node:util';
import { ensure } from '../src/copy/ensure.js';
import { connectBenchCloud } from './lib/connect-bench-cloud.js';
import { readBenchDevcloud } from './lib/devcloud-facts.js';
import { formatTable } from './lib/format-table.js';
import { createGlanceAdmin } from './lib/glance-admin.js';
import { createRecordingTransport, IMAGE_GET, TOKEN_POST, type RecordingTransport } from './lib/recording-transport.js';
import { roundSummary, summarizeSamples } from './lib/summarize-samples.js';
import { writeBenchResult } from './lib/write-bench-result.js';

const { values: args } = parseArgs({ options: { cold: { type: 'string', default: '20' }, warm: { type: 'string', default: '200' } } });
const coldCalls = Number(args.cold);
const warmCalls = Number(args.warm);

interface CallSample {
  readonly ms: number;
  readonly requests: number;
  readonly tokenPosts: number;
  readonly imageGets: number;
  readonly copied: boolean;
}

const devcloud = readBenchDevcloud();
const admin = createGlanceAdmin(devcloud);

async function timedEnsure(transport: RecordingTransport, call: () => ReturnType<typeof ensure>): Promise<CallSample> {
  const from = transport.sent.length;
  const started = performance.now();
  const result = await call();
  const ms = performance.now() - started;
  const sent = transport.sent.slice(from);
  return { ms, requests: sent.length, tokenPosts: sent.filter((r) => r.method === 'POST' && TOKEN_POST.test(r.path)).length,
    imageGets: sent.filter((r) => r.method === 'GET' && IMAGE_GET.test(r.path)).length, copied: result.copied };
}

const cold: CallSample[] = [];
const warm: CallSample[] = [];
try {
  const id = await admin.uploadImage({ name: 'bench-ensure-local', store: 'site-b', sizeBytes: 4 * 1024 * 1024 });
  for (let i = 0; i < coldCalls; i += 1) {
    const transport = createRecordingTransport();
    const cloud = await connectBenchCloud(devcloud, transport);
    cold.push(await timedEnsure(transport, () => ensure(cloud, id, { store: 'site-b' })));
    await transport.close();
  }
  const transport = createRecordingTransport();
  const cloud = await connectBenchCloud(devcloud, transport);
  await ensure(cloud, id, { store: 'site-b' });
  for (let i = 0; i < warmCalls; i += 1) warm.push(await timedEnsure(transport, () => ensure(cloud, id, { store: 'site-b' })));
  await transport.close();
} finally {
  await admin.deleteAll();
}

const expect = { cold: { requests: 2, tokenPosts: 1, imageGets: 1 }, warm: { requests: 1, tokenPosts: 0, imageGets: 1 } };
const rows = (['cold', 'warm'] as const).map((kind) => {
  const samples = kind === 'cold' ? cold : warm;
  const latency = roundSummary(summarizeSamples(samples.map((s) => s.ms)), 1);
  const wanted = expect[kind];
  const asExpected = samples.filter((s) => s.requests === wanted.requests && s.tokenPosts === wanted.tokenPosts
    && s.imageGets === wanted.imageGets && !s.copied).length;
  return { kind, calls: samples.length, asExpected, expected: wanted, latencyMs: latency,
    requestsMax: Math.max(...samples.map((s) => s.requests)), tokenPosts: samples.reduce((n, s) => n + s.tokenPosts, 0),
    imageGets: samples.reduce((n, s) => n + s.imageGets, 0) };
});

console.log(`\nensure-local: image already in site-b (clonable), ${coldCalls} cold calls (new cloud each), ${warmCalls} warm calls (one cloud)\n`);
console.log(formatTable(['', 'calls', 'as expected', 'expected', 'token POSTs', 'image GETs', 'max req/call', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms'],
  rows.map((r) => [r.kind, r.calls, r.asExpected, `${r.expected.tokenPosts} token + ${r.expected.imageGets} GET`, r.tokenPosts, r.imageGets,
    r.requestsMax, r.latencyMs.p50, r.latencyMs.p90, r.latencyMs.p99, r.latencyMs.max])));
const ok = rows.every((r) => r.calls > 0 && r.asExpected === r.calls);
const file = writeBenchResult('ensure-local', {
  goal: 'cold: 1 token POST + 1 image GET; warm: 1 image GET; no import request', options: { coldCalls, warmCalls },
  verdict: ok ? 'met' : 'NOT MET', rows,
});
console.log(`\nverdict: ${ok ? 'met' : 'NOT MET'}  → ${file}`);
if (!ok) process.exitCode = 1;
