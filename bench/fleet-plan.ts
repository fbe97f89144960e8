// Benchmark (issue 28): the sync and evict plans for a whole fleet, on a simulated cloud built from recorded answers.
// 200 stores × IMAGES images (default 10 000), each store holding 5 % of them; every image also in `central`.
// Glance: the image listing as Glance 25 pages it (fixtures/glance/image-after-copy.json's body, one per image), each
// page's JSON body a file. Ceph: each store's pool listing in rbd_store_copies.py's format
// (fixtures/rbd/store-listing-site-b.json's copy entry, one per copy, a third with a clone), each a file.
// The planning runs in a process of its own per plan and round (bench/lib/fleet-plan-worker.ts, bundled by esbuild as
// the CLI is): it reads the pages and listings as text through stand-ins of ferry's GlanceClient and command runner
// that count requests and processes, parses them with ferry's parsers and plans; its CPU (process.cpuUsage: user +
// sys) and its RSS (peak: getrusage's maxrss) are ferry's alone, the simulated cloud's generation is not in them.
// Goals: the sync plan (planFleet) and the evict plans (storeUsageOf + planEviction per store) each ≤ 1 s of CPU,
// the process (its reads, the policy, the plan) ≤ 200 MB RSS at its peak; Glance reads O(pages), Ceph one process per
// store. The process's whole CPU (the reads parsed, the policy read, the plan) is printed too, against the same 1 s.
// Run: npx tsx bench/fleet-plan.ts [--images 10000] [--stores 200] [--share 0.05] [--rounds 3] [--keep]. Exits 1 on a missed goal.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const { values } = parseArgs({ options: { images: { type: 'string', default: '10000' }, stores: { type: 'string', default: '200' },
  share: { type: 'string', default: '0.05' }, rounds: { type: 'string', default: '3' },
  keep: { type: 'boolean', default: false } } });
const IMAGES = Number(values.images);
const STORES = Number(values.stores);
const SHARE = Number(values.share);
const ROUNDS = Number(values.rounds);
const PAGE_SIZE = 200;
const GOAL_CPU_MS = 1000;
const GOAL_RSS_MB = 200;
const NOW = Date.UTC(2026, 10, 27, 4, 0, 0);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/**
 * How ferry-sync.service runs `ferry sync` (its NODE_OPTIONS, read from the unit so that the two cannot drift): the sync
 * plan is judged as shipped, and also printed as a shell runs it (Node's defaults). `ferry evict` has no unit: defaults.
 */
const SYNC_UNIT_NODE_OPTIONS = /^Environment=NODE_OPTIONS=(.*)$/m.exec(readFileSync(join(root, 'packaging/systemd/ferry-sync.service'), 'utf8'))?.[1]
  ?.split(' ').filter((flag) => flag !== '') ?? [];

const recordedImage = (JSON.parse(readFileSync(join(root, 'fixtures/glance/image-after-copy.json'), 'utf8')) as { body: Record<string, unknown> }).body;
const recordedListing = JSON.parse(readFileSync(join(root, 'fixtures/rbd/store-listing-site-b.json'), 'utf8')) as { images: Record<string, unknown>[] };
const recordedCopy = recordedListing.images[0] ?? {};

const storeName = (s: number): string => `edge-${String(s).padStart(3, '0')}`;
const imageId = (i: number): string => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
const fsidOf = (s: number): string => `00000000-0000-4000-9000-${String(s).padStart(12, '0')}`;
/** Store s holds image i when (i + s·k) mod 1/share is 0: every store 5 %, spread evenly. */
const holds = (s: number, i: number): boolean => (i + s * 7) % Math.round(1 / SHARE) === 0;

function imageBody(i: number): Record<string, unknown> {
  const stores = ['central', ...Array.from({ length: STORES }, (_, s) => s).filter((s) => holds(s, i)).map(storeName)];
  return { ...recordedImage, id: imageId(i), name: `image-${i}`, tags: i % 100 === 0 ? ['golden'] : [], stores: stores.join(','),
    os_glance_importing_to_stores: '', os_glance_failed_import: '',
    locations: stores.map((store, k) => (k === 0 ? { url: `file:///var/lib/glance/images/${imageId(i)}`, metadata: { store } }
      : { url: `rbd://${fsidOf(Number(store.slice(5)))}/images/${imageId(i)}/snap`, metadata: { store } })) };
}

/** rbd_store_copies.py's `list` for store s: one entry per copy (the recorded copy renamed; a third with one clone). */
function listingText(s: number): string {
  const images = [];
  for (let i = 0; i < IMAGES; i += 1) {
    if (!holds(s, i)) continue;
    const created = (NOW - ((i % 30) + 1) * 86_400_000) / 1000;
    images.push({ ...recordedCopy, name: imageId(i), id: `rbd${i}`, created, accessed: created, modified: created,
      children: i % 3 === 0 ? [{ pool: 'vms', namespace: '', image: `vm-${i}`, id: `c${i}`, trash: false, created: created + 3600 }] : [] });
  }
  return JSON.stringify({ pool: 'images', snapshot: 'snap', quota_bytes: 0, replicas: 3, capacity: null, images, trash: [] });
}

/** The simulated cloud's answers as files: Glance's pages (with `next` as Glance 25 writes it) and every pool's listing. */
function writeFleet(dir: string): void {
  const stores = Array.from({ length: STORES }, (_, s) => storeName(s));
  const policy = `version: 1
placements:
  - {name: golden everywhere, images: {tag: golden}, stores: [${stores.join(', ')}]}
stores:
${stores.map((store) => `  ${store}: {budget: 10M, idle: 7d, ceph_conf: /etc/ceph/${store}.conf}`).join('\n')}
usage:
  - {name: top 20, keep_most_used: '20', by: clones}
`;
  writeFileSync(join(dir, 'fleet.json'), JSON.stringify({ stores, pageSize: PAGE_SIZE, policy }));
  for (let start = 0, page = 0; start < IMAGES; start += PAGE_SIZE, page += 1) {
    const images = Array.from({ length: Math.min(PAGE_SIZE, IMAGES - start) }, (_, k) => imageBody(start + k));
    const next = start + PAGE_SIZE < IMAGES ? `/v2/images?limit=${PAGE_SIZE}&marker=${imageId(start + images.length - 1)}` : undefined;
    writeFileSync(join(dir, `page-${page}.json`), JSON.stringify({ images, ...(next === undefined ? {} : { next }), first: '/v2/images', schema: '/v2/schemas/images' }));
  }
  for (let s = 0; s < STORES; s += 1) writeFileSync(join(dir, `pool-${storeName(s)}.json`), listingText(s));
}

interface WorkerResult {
  readonly mode: 'sync' | 'evict'; readonly requests: number; readonly processes: number; readonly glanceCpu: number; readonly cephCpu: number;
  readonly policyCpu: number; readonly planCpu: number; readonly totalCpu: number; readonly wanted: number; readonly evictions: number; readonly rssStartMb: number;
  readonly rssReadMb: number; readonly maxRssMb: number; readonly images: number;
}

const dir = mkdtempSync(join(tmpdir(), 'ferry-fleet-'));
try {
  mkdirSync(join(dir, 'worker'));
  const worker = join(dir, 'worker', 'fleet-plan-worker.mjs');
  await build({ entryPoints: [join(root, 'bench/lib/fleet-plan-worker.ts')], outfile: worker, bundle: true, format: 'esm', platform: 'node',
    target: 'node20', logLevel: 'warning', define: { FERRY_EMBEDDED_PYTHON: JSON.stringify({ rbd_store_copies: readFileSync(join(root, 'src/rbd/python/rbd_store_copies.py'), 'utf8') }) },
    banner: { js: "import { createRequire as __ferryCreateRequire } from 'node:module'; const require = __ferryCreateRequire(import.meta.url);" } });
  writeFleet(dir);
  console.log(`node ${process.version}, ${STORES} stores × ${IMAGES} images, ${SHARE * 100} % each (${Math.round(IMAGES * SHARE)} copies per store, `
    + `${Math.round(IMAGES * SHARE) * STORES} in all), ${ROUNDS} rounds, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const pages = Math.ceil(IMAGES / PAGE_SIZE);
  let missed = false;
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const [mode, how] of [['sync', 'unit'], ['sync', 'defaults'], ['evict', 'defaults']] as const) {
      const nodeFlags = how === 'unit' ? SYNC_UNIT_NODE_OPTIONS : [];
      const run = spawnSync(process.execPath, [...nodeFlags, worker, mode, dir, String(NOW)], { encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`the ${mode} worker failed (${String(run.status)}): ${run.stderr}`);
      const r = JSON.parse(run.stdout) as WorkerResult;
      // The goal judged: the plan's CPU (planFleet; storeUsageOf + planEviction per store) and the process's peak RSS.
      // The whole process's CPU (the reads' parsing and the policy's too) is printed beside it, judged apart.
      // Judged: sync as ferry-sync.service runs it, evict as a shell does; sync with Node's defaults is printed beside.
      const judged = !(mode === 'sync' && how === 'defaults');
      const ok = r.planCpu <= GOAL_CPU_MS && r.maxRssMb <= GOAL_RSS_MB && r.requests <= pages && r.processes === STORES && r.images === IMAGES;
      if (judged) missed ||= !ok;
      const label = mode === 'evict' ? 'evict' : how === 'unit' ? 'sync (ferry-sync.service)' : 'sync (Node defaults, not judged)';
      console.log(`round ${round} ${label}: CPU ${r.totalCpu.toFixed(0)} ms ${r.totalCpu <= GOAL_CPU_MS ? '≤' : '>'} 1 s in all (glance ${r.requests} requests ${r.glanceCpu.toFixed(0)} ms · `
        + `ceph ${r.processes} processes ${r.cephCpu.toFixed(0)} ms · ${mode === 'sync' ? `policy ${r.policyCpu.toFixed(0)} ms · ` : ''}plan ${r.planCpu.toFixed(0)} ms: `
        + `${mode === 'sync' ? `${r.wanted} wanted pairs, ` : ''}${r.evictions} evictions) · RSS start ${r.rssStartMb.toFixed(0)}, `
        + `after reads ${r.rssReadMb.toFixed(0)}, peak ${r.maxRssMb.toFixed(0)} MB ${ok ? 'ok' : judged ? 'MISSED' : 'over'} · load ${loadavg()[0]?.toFixed(1) ?? '?'}`);
    }
  }
  if (missed) {
    console.error(`a goal was missed: ≤ ${GOAL_CPU_MS} ms CPU per plan, ≤ ${GOAL_RSS_MB} MB peak RSS per process, O(pages) Glance requests, one Ceph process per store`);
    process.exitCode = 1;
  }
} finally {
  // --keep leaves the answers and the bundled worker for a profile: node --cpu-prof DIR/worker/fleet-plan-worker.mjs sync DIR NOW_MS
  if (values.keep) console.log(`kept ${dir} (now ${NOW})`);
  else rmSync(dir, { recursive: true, force: true });
}
