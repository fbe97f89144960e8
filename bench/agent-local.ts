// Benchmark: an already-local image through the agent, from the Python client nova uses; and the agent's memory.
// Goals: p50 ≤ 10 ms, p99 ≤ 50 ms per ensure() from Python; RSS idle ≤ 80 MB and no growth over 10,000 requests.
// Run: npx tsx bench/agent-local.ts [--calls 500] [--requests 10000]
// Also measured for comparison: a bare Glance image GET from Python (what one agent answer must include), and
// `bin/ferry ensure --no-agent` per call (a process per boot, as before the agent).
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { callAgent } from '../src/agent/agent-client.js';
import { BENCH_AGENT_CLOUD, startBenchAgent, runPython } from './lib/bench-agent.js';
import { readBenchDevcloud, REPO_ROOT } from './lib/devcloud-facts.js';
import { formatTable } from './lib/format-table.js';
import { createGlanceAdmin } from './lib/glance-admin.js';
import { roundSummary, summarizeSamples } from './lib/summarize-samples.js';
import { writeBenchResult } from './lib/write-bench-result.js';

const { values: args } = parseArgs({ options: { calls: { type: 'string', default: '500' }, requests: { type: 'string', default: '10000' },
  cli: { type: 'string', default: '5' } } });
const calls = Number(args.calls);
const requests = Number(args.requests);
const cliCalls = Number(args.cli);
const devcloud = readBenchDevcloud();
const admin = createGlanceAdmin(devcloud);

const timedLoop = (body: string) => `
import json, time, ferry_agent, http.client
xs = []
${body}
print(json.dumps(xs))`;

let result: Record<string, unknown> = {};
// As the systemd unit runs it (packaging/systemd/ferry-agent.service sets this NODE_OPTIONS).
const nodeOptions = process.env.BENCH_AGENT_NODE_OPTIONS ?? '--max-semi-space-size=1 --max-old-space-size=64';
const agent = await startBenchAgent(devcloud, [], nodeOptions);
try {
  const id = await admin.uploadImage({ name: 'bench-agent-local', store: 'site-b', sizeBytes: 4 * 1024 * 1024 });
  await callAgent(agent.socket, { method: 'POST', path: '/v1/ensure', body: { image: id } });
  const viaAgent = await runPython(timedLoop(`
for i in range(${calls}):
    t = time.perf_counter(); doc = ferry_agent.ensure(${JSON.stringify(id)}); xs.append((time.perf_counter() - t) * 1000)
    assert doc['copied'] is False and doc['target'] is not None`), { FERRY_AGENT_SOCKET: agent.socket }) as number[];
  const token = await admin.token();
  const glanceHost = new URL(devcloud.glance.url);
  const bareGlance = await runPython(timedLoop(`
c = http.client.HTTPConnection(${JSON.stringify(glanceHost.hostname)}, ${glanceHost.port})
for i in range(${calls}):
    t = time.perf_counter(); c.request('GET', '/v2/images/${id}', headers={'X-Auth-Token': ${JSON.stringify(token)}}); r = c.getresponse(); r.read()
    xs.append((time.perf_counter() - t) * 1000)
    assert r.status == 200`)) as number[];
  const cli: number[] = [];
  for (let i = 0; i < cliCalls; i += 1) {
    const started = performance.now();
    const run = spawnSync(process.execPath, [`${REPO_ROOT}/bin/ferry`, 'ensure', id, '--store', 'site-b', '--no-agent', '--fsid',
      devcloud.ceph['site-b'].fsid, '--json'], { env: { ...process.env, OS_CLOUD: 'devcloud-admin', OS_CLIENT_CONFIG_FILE: devcloud.cloudsYaml } });
    if (run.status !== 0) throw new Error(`ferry ensure --no-agent exited ${run.status}`);
    cli.push(performance.now() - started);
  }

  const rssIdle = agent.rssMiB();
  const loadStarted = performance.now();
  const rssSamples: { after: number; rssMiB: number }[] = [];
  let sent = 0;
  let answered = 0;
  const worker = async (): Promise<void> => {
    while (sent < requests) {
      sent += 1;
      const answer = await callAgent(agent.socket, { method: 'POST', path: '/v1/ensure', body: { image: id } });
      if (answer.status !== 200) throw new Error(`agent answered ${answer.status}`);
      answered += 1;
      if (answered % 2000 === 0) rssSamples.push({ after: answered, rssMiB: Math.round(agent.rssMiB() * 10) / 10 });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const rssAfter = agent.rssMiB();

  const agentMs = roundSummary(summarizeSamples(viaAgent), 1);
  const glanceMs = roundSummary(summarizeSamples(bareGlance), 1);
  const cliMs = roundSummary(summarizeSamples(cli), 0);
  console.log(`\nagent-local (agent as ${BENCH_AGENT_CLOUD}): image already in site-b; ${calls} sequential ensure() from Python; ${requests} requests (8 at a time) for memory\n`);
  console.log(formatTable(['path', 'calls', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms'], [
    ['Python ferry_agent.ensure() → agent', viaAgent.length, agentMs.p50, agentMs.p90, agentMs.p99, agentMs.max],
    ['Python bare Glance GET image (keep-alive)', bareGlance.length, glanceMs.p50, glanceMs.p90, glanceMs.p99, glanceMs.max],
    ['bin/ferry ensure --no-agent (process per call)', cli.length, cliMs.p50, cliMs.p90, cliMs.p99, cliMs.max],
  ]));
  console.log(`\nRSS idle ${rssIdle.toFixed(1)} MiB; after ${requests} requests (${loadSeconds.toFixed(1)} s) ${rssAfter.toFixed(1)} MiB; samples ${JSON.stringify(rssSamples)}`);
  const latencyMet = agentMs.p50 <= 10 && agentMs.p99 <= 50;
  const memoryMet = rssIdle <= 80 && rssAfter - rssIdle <= 10;
  result = { goal: 'Python → agent p50 ≤ 10 ms, p99 ≤ 50 ms; RSS idle ≤ 80 MB, no growth over 10,000 requests',
    options: { calls, requests, cliCalls, nodeOptions, cloud: BENCH_AGENT_CLOUD }, latency: { agentMs, bareGlanceMs: glanceMs, cliMs },
    memory: { rssIdleMiB: rssIdle, rssAfterMiB: rssAfter, samples: rssSamples, loadSeconds },
    verdict: { latency: latencyMet ? 'met' : 'NOT MET', memory: memoryMet ? 'met' : 'NOT MET' } };
} finally {
  await agent.stop();
  await admin.deleteAll();
}
console.log(`\nresult: ${writeBenchResult('agent-local', result)}`);
process.exitCode = (result.verdict as { latency: string; memory: string }).memory === 'met' && (result.verdict as { latency: string }).latency === 'met' ? 0 : 1;
