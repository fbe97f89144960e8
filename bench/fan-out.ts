// `npm run bench -- fan-out [--size 128] [--rate 4]`: one new image at several sites (issue 37 part 4), each site's
// link shaped (bench/lib/shaped-links.ts: HTB on lo, by this dev cloud's OSD ports, `--rate` MiB/s each direction).
// Sites: site-c is the central site holding the image (pool images-c of cluster B: its uplink is cluster B's sport);
// site-a (cluster A) and site-b (pool images of cluster B: its downlink is cluster B's dport) want it. Runs `ferry
// prewarm --transfer rbd` for: one site alone; both as a star (--fan-out 2: two reads of site-c at once); both as a
// tree (--fan-out 1: site-c → site-a, then site-a → site-b); and the default (no --fan-out: one read, written to both
// by the one ferry host, whose own link is not shaped here). Each site's ready time is when Glance first lists its
// store (a proven, registered copy), polled every 0.25 s. Then the model (bench/lib/fan-out-model.ts) with the hop
// overhead fitted on the one-site run is checked against star and tree, and used for 40 sites on WAN links.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { planFanOut } from '../src/copy/transfer/plan-fan-out.js';
import { readBenchDevcloud, REPO_ROOT } from './lib/devcloud-facts.js';
import { modelFanOut, modelPipelinedChain, type SiteLink } from './lib/fan-out-model.js';
import { formatTable } from './lib/format-table.js';
import { numberFlag } from './lib/number-flag.js';
import { createGlanceAdmin } from './lib/glance-admin.js';
import { linkBytes, shapeLinks, unshapeLinks, type ShapedLink } from './lib/shaped-links.js';
import { uploadBytes } from './lib/upload-bytes.js';
import { writeBenchResult } from './lib/write-bench-result.js';

const MiB = 1024 * 1024;
const devcloud = readBenchDevcloud();
const admin = createGlanceAdmin(devcloud);
const size = numberFlag('--size', 128);
const rate = numberFlag('--rate', 4) * MiB;
const A = devcloud.ceph['site-a'].conf;
const B = devcloud.ceph['site-b'].conf;
const env = { ...process.env, OS_CLOUD: 'devcloud-admin', OS_CLIENT_CONFIG_FILE: devcloud.cloudsYaml, FERRY_LOG_LEVEL: 'silent' };
const RBD = ['--transfer', 'rbd', '--rbd-user', 'glance', '--source-ceph-conf', `site-a=${A}`, '--source-ceph-conf', `site-b=${B}`,
  '--source-ceph-conf', `site-c=${B}`];

/** The OSD's ports of a cluster (its public addresses, v2 and v1). */
function osdPorts(conf: string): number[] {
  const run = spawnSync('ceph', ['-c', conf, 'osd', 'dump', '-f', 'json'], { encoding: 'utf8' });
  const dump = JSON.parse(run.stdout) as { osds: { public_addrs: { addrvec: { addr: string }[] } }[] };
  return dump.osds.flatMap((osd) => osd.public_addrs.addrvec.map((entry) => Number(entry.addr.split(':').at(-1))));
}
const portsA = osdPorts(A);
const portsB = osdPorts(B);
const links: ShapedLink[] = [
  { name: 'site-c up (central)', direction: 'up', ports: portsB, bytesPerSecond: rate },
  { name: 'site-a down', direction: 'down', ports: portsA, bytesPerSecond: rate },
  { name: 'site-a up', direction: 'up', ports: portsA, bytesPerSecond: rate },
  { name: 'site-b down', direction: 'down', ports: portsB, bytesPerSecond: rate },
];
// The shaping never outlives the bench: finally below, and on a signal.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    unshapeLinks();
    process.exit(130);
  });
}

interface Scenario { readonly name: string; readonly stores: readonly string[]; readonly extra: readonly string[] }
interface Measured {
  readonly name: string; readonly ok: boolean; readonly wallS: number; readonly readyS: Record<string, number>; readonly bytes: Record<string, number>;
  /** prewarm's own seconds per store (its item: the job, from the first look to the registered copy). */
  readonly itemS: Record<string, number>;
}

const storesOf = (image: Record<string, unknown>): string[] => (typeof image.stores === 'string' ? image.stores.split(',') : []);

async function measure(scenario: Scenario): Promise<Measured> {
  const id = await uploadBytes(devcloud, admin, `bench-fan-out-${scenario.name}`, randomBytes(size * MiB), 'site-c');
  shapeLinks(links);
  try {
    const started = performance.now();
    const readyS: Record<string, number> = {};
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/ferry'), 'prewarm', id, ...scenario.stores.flatMap((s) => ['--store', s]), '--json',
      ...RBD, ...scenario.extra], { env, cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
    let done = false;
    void exited.then(() => { done = true; });
    while (!done) {
      const image = await admin.readImage(id);
      const stores = storesOf(image);
      for (const store of scenario.stores) if (stores.includes(store) && readyS[store] === undefined) readyS[store] = (performance.now() - started) / 1000;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const code = await exited;
    const wallS = (performance.now() - started) / 1000;
    const image = await admin.readImage(id);
    const stores = storesOf(image);
    for (const store of scenario.stores) if (stores.includes(store) && readyS[store] === undefined) readyS[store] = wallS;
    const json = JSON.parse(stdout || '{}') as { counts?: { copied: number }; items?: { store: string; seconds: number | null }[] };
    const itemS = Object.fromEntries((json.items ?? []).map((item) => [item.store, item.seconds ?? Number.NaN]));
    const ok = code === 0 && json.counts?.copied === scenario.stores.length;
    if (!ok) console.error(`${scenario.name}: exit ${code}: ${stderr.slice(-600)} ${stdout.slice(0, 600)}`);
    return { name: scenario.name, ok, wallS, readyS, bytes: linkBytes(links), itemS };
  } finally {
    unshapeLinks();
    await admin.deleteImage(id).catch(() => undefined);
  }
}

const scenarios: Scenario[] = [
  { name: 'one site', stores: ['site-a'], extra: [] },
  { name: 'star (--fan-out 2)', stores: ['site-a', 'site-b'], extra: ['--fan-out', '2'] },
  { name: 'tree (--fan-out 1)', stores: ['site-a', 'site-b'], extra: ['--fan-out', '1'] },
  { name: 'default (one read, tee)', stores: ['site-a', 'site-b'], extra: [] },
  // The limiter: half the link's rate asked, on the one-site copy.
  { name: 'one site, --rate-limit half the link', stores: ['site-a'], extra: ['--rate-limit', String(Math.round(rate / 2))] },
];
const measured: Measured[] = [];
try {
  for (const scenario of scenarios) measured.push(await measure(scenario));
} finally {
  unshapeLinks();
  await admin.deleteAll();
}

const bytes = size * MiB;
const copies = (m: Measured, link: string): string => ((m.bytes[link] ?? Number.NaN) / bytes).toFixed(2);
console.log(`${size} MiB dense image at site-c; every link ${rate / MiB} MiB/s each way`);
console.log(formatTable(['scenario', 'site-a ready s', 'site-b ready s', 'last ÷ one site', 'site-c up ×', 'site-a up ×', 'all copied'],
  measured.map((m) => [m.name, m.readyS['site-a']?.toFixed(1) ?? '-', m.readyS['site-b']?.toFixed(1) ?? '-',
    (Math.max(...Object.values(m.readyS)) / (measured[0]?.readyS['site-a'] ?? Number.NaN)).toFixed(2),
    copies(m, 'site-c up (central)'), copies(m, 'site-a up'), m.ok ? 'yes' : 'NO'])));

// The model, fitted on the one-site run alone: its job's seconds are one hop (bytes ÷ rate + the hop's overhead), the
// rest of its ready time is the run's start. Then star and tree are predicted and compared.
const oneS = measured[0]?.readyS['site-a'] ?? Number.NaN;
const oneHopS = measured[0]?.itemS['site-a'] ?? Number.NaN;
const hopOverheadS = oneHopS - bytes / rate;
const startS = oneS - oneHopS;
const even = (): SiteLink => ({ upBps: rate, downBps: rate });
const predict = (perHolder: number) => modelFanOut({ waves: planFanOut(['site-c'], ['site-a', 'site-b'], { perHolder, originCopies: perHolder }),
  bytes, links: even, hopOverheadS, startS });
const checks = [
  { name: 'star (--fan-out 2)', model: predict(2) },
  { name: 'tree (--fan-out 1)', model: predict(1) },
].map(({ name, model }) => {
  const m = measured.find((each) => each.name === name);
  const lastMeasured = m ? Math.max(...Object.values(m.readyS)) : Number.NaN;
  return { name, modelS: model.lastS, measuredS: lastMeasured, error: (lastMeasured - model.lastS) / lastMeasured };
});
console.log(`model fitted on one site: run start ${startS.toFixed(1)} s, hop overhead ${hopOverheadS.toFixed(1)} s`);
console.log(formatTable(['scenario', 'model last s', 'measured last s', 'error'],
  checks.map((c) => [c.name, c.modelS.toFixed(1), c.measuredS.toFixed(1), `${(c.error * 100).toFixed(0)} %`])));

// 40 sites on WAN links: a 10 GiB image; the central site and every edge on 1 Gbit/s each way (125 MB/s); the hop
// overhead as measured here scaled by nothing (its parts are round trips and the read-back look, not bytes).
const wan = { bytes: 10 * 1024 * MiB, link: { upBps: 125e6, downBps: 125e6 }, sites: 40 };
const edges = Array.from({ length: wan.sites }, (_, i) => `edge-${i + 1}`);
const wanLinks = (): SiteLink => wan.link;
const oneWanS = startS + wan.bytes / wan.link.upBps + hopOverheadS;
const forty = [1, 2, 3, 4].map((k) => {
  const result = modelFanOut({ waves: planFanOut(['central'], edges, { perHolder: k, originCopies: k }), bytes: wan.bytes, links: wanLinks, hopOverheadS, startS });
  return [`tree, fan-out ${k}`, result.lastS.toFixed(0), (result.lastS / oneWanS).toFixed(2), String(result.uplinkCopies.get('central') ?? 0)];
});
const star = modelFanOut({ waves: [edges.map((to) => ({ from: 'central', to }))], bytes: wan.bytes, links: wanLinks, hopOverheadS, startS });
const chainS = startS + modelPipelinedChain(wan.sites, wan.bytes, wan.link, 64 * MiB, hopOverheadS);
const fortyRows = [
  ['one site', oneWanS.toFixed(0), '1.00', '1'],
  ['Glance copy-image, one import, 40 stores (serial)', (startS + wan.sites * (oneWanS - startS)).toFixed(0),
    ((startS + wan.sites * (oneWanS - startS)) / oneWanS).toFixed(2), String(wan.sites)],
  ['star: every site from the central one at once', star.lastS.toFixed(0), (star.lastS / oneWanS).toFixed(2), String(wan.sites)],
  ...forty,
  ['pipelined chain, 64 MiB pieces (NOT BUILT)', chainS.toFixed(0), (chainS / oneWanS).toFixed(2), '1'],
];
console.log('40 sites, 10 GiB image, every link 1 Gbit/s each way (model):');
console.log(formatTable(['scheme', 'last site s', 'last ÷ one site', 'central uplink ×'], fortyRows));
const file = writeBenchResult('fan-out', { sizeMiB: size, rateMiBps: rate / MiB, portsA, portsB, measured, startS, hopOverheadS, checks, forty: fortyRows });
console.log(`written: ${file}`);
const failed = measured.some((m) => !m.ok);
process.exitCode = failed ? 1 : 0;
