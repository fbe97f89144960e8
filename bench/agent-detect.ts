// Benchmark: from Glance finishing a copy (its import lock released) to the agent answering the caller.
// Goal: p50 ≤ 0.2 s (as `ferry ensure` in process: bench ensure-latency). An observer in this process polls the image
// every 20 ms with plain fetch to bracket the release; the agent is a separate `bin/ferry agent` process.
// Run: npx tsx bench/agent-detect.ts [--copies 10]
import { parseArgs } from 'node:util';
import { callAgent } from '../src/agent/agent-client.js';
import { startBenchAgent } from './lib/bench-agent.js';
import { readBenchDevcloud } from './lib/devcloud-facts.js';
import { formatTable } from './lib/format-table.js';
import { createGlanceAdmin } from './lib/glance-admin.js';
import { observeImportLock } from './lib/observe-import-lock.js';
import { roundSummary, summarizeSamples } from './lib/summarize-samples.js';
import { writeBenchResult } from './lib/write-bench-result.js';

const { values: args } = parseArgs({ options: { copies: { type: 'string', default: '10' } } });
const copies = Number(args.copies);
const SIZES_MIB = [8, 64, 16, 128, 32, 8, 64, 16, 128, 32];
const devcloud = readBenchDevcloud();
const admin = createGlanceAdmin(devcloud);

interface Row { readonly sizeMiB: number; readonly copySeconds: number; readonly detectMs: number; readonly uncertaintyMs: number; readonly imageReads: number }
const rows: Row[] = [];
const agent = await startBenchAgent(devcloud);
try {
  for (let i = 0; i < copies; i += 1) {
    const sizeMiB = SIZES_MIB[i % SIZES_MIB.length] ?? 16;
    const id = await admin.uploadImage({ name: `bench-agent-detect-${i}`, store: 'site-a', sizeBytes: sizeMiB * 1024 * 1024 });
    const observer = observeImportLock(admin, id);
    const started = performance.now();
    const answer = await callAgent(agent.socket, { method: 'POST', path: '/v1/ensure', body: { image: id } });
    const answeredAt = performance.now();
    const { release } = await observer.stop(2_000);
    const doc = answer.body as { copied?: boolean; image_reads?: number };
    if (answer.status !== 200 || doc.copied !== true || release === undefined) {
      console.error(`copy ${i}: status ${answer.status}, copied ${String(doc.copied)}, release ${release ? 'seen' : 'not seen'}: skipped`);
    } else {
      rows.push({ sizeMiB, copySeconds: Math.round((release.releasedAt - started) / 10) / 100, detectMs: Math.round(answeredAt - release.releasedAt),
        uncertaintyMs: Math.round(release.uncertaintyMs), imageReads: doc.image_reads ?? -1 });
    }
    await admin.deleteImage(id);
  }
} finally {
  await agent.stop();
  await admin.deleteAll();
}
const detect = roundSummary(summarizeSamples(rows.map((r) => r.detectMs)), 0);
console.log(`\nagent-detect: ${rows.length} copies site-a → site-b through the agent; lock release → agent's answer\n`);
console.log(formatTable(['MiB', 'copy s', 'release → answer ms', '± ms', 'image reads'], rows.map((r) => [r.sizeMiB, r.copySeconds, r.detectMs, r.uncertaintyMs, r.imageReads])));
console.log(`\nrelease → answer: p50 ${detect.p50} ms, p90 ${detect.p90} ms, max ${detect.max} ms`);
const met = rows.length === copies && detect.p50 <= 200;
console.log(`result: ${writeBenchResult('agent-detect', { goal: 'lock release → agent answer p50 ≤ 0.2 s', options: { copies }, verdict: met ? 'met' : 'NOT MET', detectMs: detect, rows })}`);
process.exitCode = met ? 0 : 1;
