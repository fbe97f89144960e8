// Benchmark: the agent's answer for an already-local image with and without the booting user's token, side by side
// in one run (issue 34). With X-Auth-Token every request first looks at the image with the user's token and ferry's
// own as the service token: Glance's keystonemiddleware then validates two tokens instead of one.
// Run: npx tsx bench/agent-acting.ts [--calls 300]
import { parseArgs } from 'node:util';
import { callAgent } from '../src/agent/agent-client.js';
import { startBenchAgent } from './lib/bench-agent.js';
import { readBenchDevcloud } from './lib/devcloud-facts.js';
import { formatTable } from './lib/format-table.js';
import { createGlanceAdmin } from './lib/glance-admin.js';
import { roundSummary, summarizeSamples } from './lib/summarize-samples.js';
import { writeBenchResult } from './lib/write-bench-result.js';

const { values: args } = parseArgs({ options: { calls: { type: 'string', default: '300' }, warmup: { type: 'string', default: '20' } } });
const calls = Number(args.calls);
const warmup = Number(args.warmup);
const devcloud = readBenchDevcloud();
const admin = createGlanceAdmin(devcloud);
// The deployed identity: roles ferry and service on project ferry, through its application credential.
const CLOUD = 'devcloud-ferry-appcred';

/** A tenant member's token (the dev cloud's tenant-a: docs/devcloud.md). */
async function tenantToken(): Promise<string> {
  const user = (devcloud.users as unknown as Record<string, { name: string; password: string; project: string }>)['tenant-a'];
  if (user === undefined) throw new Error('no tenant-a in devcloud.json: run scripts/devcloud/up again (it adds the tenants)');
  const response = await fetch(`${devcloud.keystone.url}/auth/tokens`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ auth: { identity: { methods: ['password'], password: { user: { name: user.name, domain: { id: 'default' }, password: user.password } } },
      scope: { project: { name: user.project, domain: { id: 'default' } } } } }),
  });
  if (response.status !== 201) throw new Error(`keystone auth as tenant-a: ${response.status}`);
  return response.headers.get('x-subject-token') ?? '';
}

let result: Record<string, unknown> = {};
const agent = await startBenchAgent(devcloud, [], undefined, CLOUD);
try {
  const id = await admin.uploadImage({ name: 'bench-agent-acting', store: 'site-b', sizeBytes: 4 * 1024 * 1024 });
  const token = await tenantToken();
  const ask = async (withToken: boolean): Promise<number> => {
    const started = performance.now();
    const answer = await callAgent(agent.socket, { method: 'POST', path: '/v1/ensure', body: { image: id },
      ...(withToken ? { headers: { 'x-auth-token': token } } : {}) });
    const ms = performance.now() - started;
    if (answer.status !== 200 || (answer.body as { copied?: boolean }).copied !== false) throw new Error(`agent answered ${answer.status}`);
    return ms;
  };
  for (let i = 0; i < warmup; i += 1) await ask(i % 2 === 0);
  const own: number[] = [];
  const acting: number[] = [];
  // Interleaved, the order flipped every call: both see the same Glance, the same load, the same minute.
  for (let i = 0; i < calls; i += 1) {
    if (i % 2 === 0) { own.push(await ask(false)); acting.push(await ask(true)); } else { acting.push(await ask(true)); own.push(await ask(false)); }
  }
  const ownMs = roundSummary(summarizeSamples(own), 1);
  const actingMs = roundSummary(summarizeSamples(acting), 1);
  console.log(`\nagent-acting (agent as ${CLOUD}): image already in site-b; ${calls} calls each, interleaved, from node's client\n`);
  console.log(formatTable(['request', 'calls', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms'], [
    ['no token (ferry\'s own identity)', own.length, ownMs.p50, ownMs.p90, ownMs.p99, ownMs.max],
    ['X-Auth-Token (user + service token)', acting.length, actingMs.p50, actingMs.p90, actingMs.p99, actingMs.max],
  ]));
  result = { options: { calls, warmup, cloud: CLOUD }, latency: { ownMs, actingMs } };
} finally {
  await agent.stop();
  await admin.deleteAll();
}
console.log(`\nresult: ${writeBenchResult('agent-acting', result)}`);
