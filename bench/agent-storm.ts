// Benchmark: a boot storm on one host: 200 concurrent ensure() from 10 Python processes (20 threads each) for an image
// that is not yet local (only in site-a). Goal: exactly one Glance import task to site-b, every caller the same target.
// Run: npx tsx bench/agent-storm.ts [--images 3] [--processes 10] [--threads 20]
import { parseArgs } from 'node:util';
import { startBenchAgent, runPython } from './lib/bench-agent.js';
import { readBenchDevcloud } from './lib/devcloud-facts.js';
import { formatTable } from './lib/format-table.js';
import { createGlanceAdmin } from './lib/glance-admin.js';
import { writeBenchResult } from './lib/write-bench-result.js';

const { values: args } = parseArgs({ options: { images: { type: 'string', default: '3' }, processes: { type: 'string', default: '10' },
  threads: { type: 'string', default: '20' } } });
const images = Number(args.images);
const processes = Number(args.processes);
const threads = Number(args.threads);
const devcloud = readBenchDevcloud();
const admin = createGlanceAdmin(devcloud);

const storm = (id: string) => `
import json, threading, time, ferry_agent
out = []
start = threading.Event()
def one():
    start.wait()
    t = time.perf_counter()
    try:
        doc = ferry_agent.ensure(${JSON.stringify(id)})
        out.append({'url': doc['target']['url'], 'copied': doc['copied'], 'ms': (time.perf_counter() - t) * 1000})
    except ferry_agent.FerryAgentError as e:
        out.append({'error': e.code, 'ms': (time.perf_counter() - t) * 1000})
threads = [threading.Thread(target=one) for _ in range(${threads})]
[t.start() for t in threads]
start.set()
[t.join() for t in threads]
print(json.dumps(out))`;

interface Answer { readonly url?: string; readonly error?: string; readonly ms: number }
const rows: Record<string, unknown>[] = [];
const agent = await startBenchAgent(devcloud);
try {
  for (let i = 0; i < images; i += 1) {
    const id = await admin.uploadImage({ name: `bench-agent-storm-${i}`, store: 'site-a', sizeBytes: 16 * 1024 * 1024 });
    const started = performance.now();
    const answers = (await Promise.all(Array.from({ length: processes }, () =>
      runPython(storm(id), { FERRY_AGENT_SOCKET: agent.socket })))).flat() as Answer[];
    const wallSeconds = (performance.now() - started) / 1000;
    const tasks = (await admin.copyTasks(id)).filter((task) => task.backend.includes('site-b'));
    const targets = new Set(answers.map((a) => a.url ?? `error ${a.error ?? '?'}`));
    rows.push({ image: id, callers: answers.length, errors: answers.filter((a) => a.error !== undefined).length, distinctTargets: targets.size,
      importTasks: tasks.length, wallSeconds: Math.round(wallSeconds * 100) / 100,
      slowestCallerSeconds: Math.round(Math.max(...answers.map((a) => a.ms))) / 1000 });
    await admin.deleteImage(id);
  }
} finally {
  await agent.stop();
  await admin.deleteAll();
}
console.log(`\nagent-storm: ${processes} Python processes × ${threads} threads = ${processes * threads} concurrent ensure() per image (16 MiB, site-a → site-b)\n`);
console.log(formatTable(['image', 'callers', 'errors', 'distinct targets', 'import tasks', 'wall s', 'slowest caller s'],
  rows.map((r) => [String(r.image).slice(0, 8), r.callers as number, r.errors as number, r.distinctTargets as number, r.importTasks as number,
    r.wallSeconds as number, r.slowestCallerSeconds as number])));
const met = rows.every((r) => r.callers === processes * threads && r.errors === 0 && r.distinctTargets === 1 && r.importTasks === 1);
console.log(`\nresult: ${writeBenchResult('agent-storm', { goal: 'one Glance import task per image, every caller the same target', options: { images, processes, threads },
  verdict: met ? 'met' : 'NOT MET', rows })}`);
process.exitCode = met ? 0 : 1;
