// Benchmark (issue 28): the sync and evict plans for a whole fleet, on a simulated cloud built from recorded answers.
// 200 stores × IMAGES images (default 10 000), each store holding 5 % of them; every image also in `central`.
// Glance: the image listing as Glance 25 pages it (fixtures/glance/image-after-copy.json's body, one per image, parsed
// by ferry's own parser), served by a stand-in GlanceClient that counts its requests. Ceph: each store's pool listing
// in rbd_store_copies.py's format (fixtures/rbd/store-listing-site-b.json's copy entry, one per copy), read through
// ferry's own runner interface by a stand-in runner that counts its processes.
// Goals: the sync plan (planFleet) and the evict plans (storeUsageOf + planEviction per store) each ≤ 1 s of CPU, and
// the process ≤ 200 MB RSS; Glance reads O(pages), Ceph O(1) processes per store.
// Run: npx tsx bench/fleet-plan.ts [--images 10000] [--stores 200] [--share 0.05] [--rounds 3]. Exits 1 on a missed goal.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { planEviction } from '../src/evict/plan-eviction.js';
import { readImageListing } from '../src/evict/read-store-usage.js';
import { storeUsageOf } from '../src/evict/store-usage.js';
import { NO_PINS } from '../src/evict/copy-pins.js';
import type { GlanceClient } from '../src/glance/glance-client.js';
import { parseImageList } from '../src/glance/image-list.js';
import type { GlanceImage } from '../src/glance/image.js';
import type { StoreCatalogue } from '../src/prewarm/store-catalogue.js';
import type { CommandRunner } from '../src/rbd/command-runner.js';
import { COPY_SNAPSHOT, readStoreCopies } from '../src/rbd/store-copies.js';
import type { PoolListing } from '../src/rbd/store-copy-listing.js';
import { parseSyncPolicy } from '../src/sync/parse-sync-policy.js';
import { planFleet } from '../src/sync/plan-fleet.js';

const { values } = parseArgs({ options: { images: { type: 'string', default: '10000' }, stores: { type: 'string', default: '200' },
  share: { type: 'string', default: '0.05' }, rounds: { type: 'string', default: '3' } } });
const IMAGES = Number(values.images);
const STORES = Number(values.stores);
const SHARE = Number(values.share);
const ROUNDS = Number(values.rounds);
const GOAL_CPU_MS = 1000;
const GOAL_RSS_MB = 200;
const NOW = Date.UTC(2026, 10, 27, 4, 0, 0);

const recordedImage = (JSON.parse(readFileSync('fixtures/glance/image-after-copy.json', 'utf8')) as { body: Record<string, unknown> }).body;
const recordedListing = JSON.parse(readFileSync('fixtures/rbd/store-listing-site-b.json', 'utf8')) as { images: Record<string, unknown>[] };
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

/** Glance 25's listing, paged by `limit` with `next`, every image parsed by ferry's parser; counts requests. */
function glanceStandIn(): { glance: GlanceClient; requests: () => number } {
  let requests = 0;
  const bodies = Array.from({ length: IMAGES }, (_, i) => imageBody(i));
  const glance = {
    listImages(query: { limit?: number; marker?: string } = {}) {
      requests += 1;
      const limit = query.limit ?? 25;
      const start = query.marker === undefined ? 0 : bodies.findIndex((body) => body.id === query.marker) + 1;
      const page = bodies.slice(start, start + limit);
      const next = start + limit < bodies.length ? `/v2/images?limit=${limit}&marker=${String(page.at(-1)?.id)}` : undefined;
      return Promise.resolve(parseImageList({ images: page, ...(next === undefined ? {} : { next }), first: '/v2/images', schema: '/v2/schemas/images' }));
    },
  } as unknown as GlanceClient;
  return { glance, requests: () => requests };
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

function cephStandIn(): { runner: CommandRunner; processes: () => number } {
  let processes = 0;
  const runner: CommandRunner = {
    run(_file, args) {
      processes += 1;
      // rbd_store_copies.py's arguments end with POOL SNAPSHOT list; the bench names each store's pool after it.
      const pool = args.at(-3) ?? '';
      return Promise.resolve({ outcome: 'exited', exitCode: 0, signal: null, stdout: listingText(Number(pool.slice('edge-'.length))), stderr: '' });
    },
  };
  return { runner, processes: () => processes };
}

const cpuMs = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};
const rssMb = (): number => process.memoryUsage().rss / 2 ** 20;

const policy = parseSyncPolicy(`version: 1
placements:
  - {name: golden everywhere, images: {tag: golden}, stores: [${Array.from({ length: STORES }, (_, s) => storeName(s)).join(', ')}]}
stores:
${Array.from({ length: STORES }, (_, s) => `  ${storeName(s)}: {budget: 10M, idle: 7d, ceph_conf: /etc/ceph/${storeName(s)}.conf}`).join('\n')}
usage:
  - {name: top 20, keep_most_used: '20', by: clones}
`, 'fleet.yaml');
const catalogue: StoreCatalogue = { typesKnown: true, stores: [{ id: 'central', type: 'file', readOnly: false, isDefault: true },
  ...Array.from({ length: STORES }, (_, s) => ({ id: storeName(s), type: 'rbd', readOnly: false, isDefault: false }))] };

console.log(`node ${process.version}, ${STORES} stores × ${IMAGES} images, ${SHARE * 100} % each (${Math.round(IMAGES * SHARE)} copies per store), `
  + `${ROUNDS} rounds, load ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}`);
let missed = false;
for (let round = 1; round <= ROUNDS; round += 1) {
  const { glance, requests } = glanceStandIn();
  const { runner, processes } = cephStandIn();
  // Reads: what sync (readFleet) and evict (readStoreUsage) do, through the stand-ins.
  let start = cpuMs();
  const images: readonly GlanceImage[] = await readImageListing(glance);
  const glanceCpu = cpuMs() - start;
  start = cpuMs();
  const pools = new Map<string, PoolListing>();
  for (let s = 0; s < STORES; s += 1) {
    pools.set(storeName(s), await readStoreCopies({ confFile: `/etc/ceph/${storeName(s)}.conf`, user: 'ferry', pool: storeName(s), snapshot: COPY_SNAPSHOT }, { runner }));
  }
  const cephCpu = cpuMs() - start;
  // The sync plan: the whole fleet at once.
  start = cpuMs();
  const fleet = planFleet({ policy, images, catalogue, pools, wallNowMs: NOW, run: 'bench' });
  const syncCpu = cpuMs() - start;
  // The evict plans: one per store, as `ferry evict --store S --budget 1G` plans it.
  start = cpuMs();
  let evictable = 0;
  const inStore = new Map<string, GlanceImage[]>([...pools.keys()].map((store) => [store, []]));
  for (const image of images) for (const store of image.stores) inStore.get(store)?.push(image);
  for (const [store, listing] of pools) {
    const usage = storeUsageOf(store, inStore.get(store) ?? [], listing, NO_PINS);
    const plan = planEviction({ store, copies: usage.copies, poolBytes: usage.poolBytes, budgetBytes: 10 * 2 ** 20, idleMs: 7 * 86_400_000, wallNowMs: NOW, run: 'bench' });
    evictable += plan.copies.filter((entry) => entry.action === 'evict').length;
  }
  const evictCpu = cpuMs() - start;
  const rss = rssMb();
  const pages = Math.ceil(IMAGES / 200);
  const ok = syncCpu <= GOAL_CPU_MS && evictCpu <= GOAL_CPU_MS && rss <= GOAL_RSS_MB && requests() <= pages && processes() === STORES;
  missed ||= !ok;
  console.log(`round ${round}: glance ${requests()} requests (${pages} pages of 200) ${glanceCpu.toFixed(0)} ms CPU · ceph ${processes()} processes `
    + `${cephCpu.toFixed(0)} ms CPU · sync plan ${syncCpu.toFixed(0)} ms CPU (${fleet.copy.items.length} wanted pairs, `
    + `${fleet.evictions.reduce((n, e) => n + (e.plan?.copies.filter((c) => c.action === 'evict').length ?? 0), 0)} evictions) · `
    + `evict plans ${evictCpu.toFixed(0)} ms CPU (${evictable} evictions) · RSS ${rss.toFixed(0)} MB ${ok ? 'ok' : 'MISSED'}`);
}
if (missed) {
  console.error(`a goal was missed: ≤ ${GOAL_CPU_MS} ms CPU per plan, ≤ ${GOAL_RSS_MB} MB RSS, O(pages) Glance requests, one Ceph process per store`);
  process.exit(1);
}
