// Benchmark: nova 26's real Rbd.clone() (Debian's python3-nova), unpatched vs patched to ask the ferry agent, default
// settings (images_rbd_glance_copy_poll_interval 15 s, timeout 600 s), one boot per fresh image only in site-a.
// Reports: clone ready time (clone() call → return) and Glance requests per boot (a counting proxy sits in front of
// Glance for nova and for the agent). The unpatched failure case (a copy Glance fails) is not run: nova waits for
// its 600 s timeout there (reference: nova-behaviour.md §15).
// Run: npx tsx bench/agent-nova.ts [--sizes 16,64,128] [--nova-dir DIR]
//   --nova-dir: a newer nova prepared by `scripts/nova-newer-check --fetch` (its nova-tree.json: nova 34 and its patch)
//   instead of Debian 12's nova 26.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { startBenchAgent } from './lib/bench-agent.js';
import { startCountingProxy } from './lib/counting-proxy.js';
import { readBenchDevcloud, REPO_ROOT } from './lib/devcloud-facts.js';
import { formatTable } from './lib/format-table.js';
import { createGlanceAdmin } from './lib/glance-admin.js';
import { writeBenchResult } from './lib/write-bench-result.js';

const { values: args } = parseArgs({ options: { sizes: { type: 'string', default: '16,64,128' }, 'nova-dir': { type: 'string' } } });
const sizes = args.sizes.split(',').map(Number);
const devcloud = readBenchDevcloud();
const admin = createGlanceAdmin(devcloud);
// The nova to measure: Debian 12's (26.2.2), or the newer one of --nova-dir (test/integration/agent/nova-tree.ts shape).
const tree = args['nova-dir']
  ? JSON.parse(readFileSync(join(args['nova-dir'], 'nova-tree.json'), 'utf8')) as { version: string; source: string; patch: string; libs: string[] }
  : { version: '26.2.2', source: '/usr/lib/python3/dist-packages/nova', patch: 'integrations/nova/nova-26-imagebackend.patch', libs: [] };
const SYSTEM = dirname(tree.source);

const work = mkdtempSync(join(tmpdir(), 'ferry-bench-nova-'));
cpSync(tree.source, join(work, 'patched', 'nova'), { recursive: true });
const patch = spawnSync('patch', ['-p1', '--batch', '-d', join(work, 'patched'), '-i', join(REPO_ROOT, tree.patch)]);
if (patch.status !== 0) throw new Error(`${tree.patch} does not apply to nova ${tree.version}`);

const proxy = await startCountingProxy(devcloud.glance.url);
const conf = join(work, 'nova.conf');
// images_rbd_ferry_agent_socket turns the patch on (unset, the patched nova runs nova's own copy); the unpatched nova
// does not know the option and ignores it.
const writeConf = (socket: string): void => writeFileSync(conf, ['[DEFAULT]', `state_path = ${work}/state`, '[libvirt]', 'images_type = rbd',
  'images_rbd_pool = vms', `images_rbd_ceph_conf = ${devcloud.ceph['site-b'].conf}`, 'rbd_user = nova', 'images_rbd_glance_store_name = site-b',
  `images_rbd_ferry_agent_socket = ${socket}`, '[glance]', `api_servers = ${proxy.url}`, ''].join('\n'));

function clone(root: string, image: string, name: string, token: string, socket: string): Promise<{ ok: boolean; seconds: number; message?: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('timeout', ['900', '/usr/bin/python3', join(REPO_ROOT, 'test/integration/agent/nova_clone.py'), root, conf, image, name], {
      env: { ...process.env, OS_TOKEN: token, FERRY_AGENT_SOCKET: socket, PYTHONPATH: [join(REPO_ROOT, 'integrations/nova'), ...tree.libs].join(':') }, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as { ok: boolean; seconds: number })
      : reject(new Error(`nova_clone.py exited ${code}`))));
  });
}

const rbd = (args: readonly string[]) => spawnSync('timeout', ['60', 'rbd', '-c', devcloud.ceph['site-b'].conf, '--id', 'nova', ...args]);
const rows: { nova: string; sizeMiB: number; ok: boolean; cloneSeconds: number; glanceRequests: number; detail: Record<string, number> }[] = [];
const agent = await startBenchAgent(devcloud, ['--glance-endpoint', proxy.url]);
writeConf(agent.socket);
try {
  const token = await admin.token();
  for (const sizeMiB of sizes) {
    for (const variant of ['unpatched', 'patched'] as const) {
      const id = await admin.uploadImage({ name: `bench-agent-nova-${variant}-${sizeMiB}`, store: 'site-a', sizeBytes: sizeMiB * 1024 * 1024 });
      const name = `bench-nova-${variant}-${id.slice(0, 8)}`;
      proxy.reset();
      const result = await clone(variant === 'patched' ? join(work, 'patched') : SYSTEM, id, name, token, agent.socket);
      const counts = proxy.counts();
      rows.push({ nova: variant, sizeMiB, ok: result.ok, cloneSeconds: result.seconds, glanceRequests: Object.values(counts).reduce((a, b) => a + b, 0), detail: counts });
      if (result.ok) rbd(['rm', '--no-progress', `vms/${name}`]);
      await admin.deleteImage(id);
    }
  }
} finally {
  await agent.stop();
  await proxy.close();
  await admin.deleteAll();
  rmSync(work, { recursive: true, force: true });
}
console.log(`\nagent-nova: nova ${tree.version} Rbd.clone() of an image only in site-a, at site-b; default poll interval 15 s\n`);
console.log(formatTable(['nova', 'MiB', 'ok', 'clone ready s', 'Glance requests', 'by kind'],
  rows.map((r) => [r.nova, r.sizeMiB, String(r.ok), r.cloneSeconds, r.glanceRequests, Object.entries(r.detail).map(([k, v]) => `${v}× ${k}`).join(', ')])));
const met = rows.every((r) => r.ok);
console.log(`\nresult: ${writeBenchResult(args['nova-dir'] ? `agent-nova-${tree.version}` : 'agent-nova', { goal: 'side by side: clone ready time and Glance requests per boot', options: { sizes, nova: tree.version },
  verdict: met ? 'measured' : 'A BOOT FAILED', rows })}`);
process.exitCode = met ? 0 : 1;
