// The planning process of bench/fleet-plan.ts, run once per plan and round in a process of its own (bundled by esbuild
// like the CLI), so that its CPU and RSS are ferry's alone: the simulated cloud's answers are files written by the
// parent, served as text (Glance's pages as their JSON bodies, each pool's rbd_store_copies.py answer as its stdout).
// Argv: MODE (sync | evict) DIR NOW_MS. Prints one JSON line: requests, processes, CPU per phase, RSS.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NO_PINS } from '../../src/fleet/copy-pins.js';
import { planEviction } from '../../src/evict/plan-eviction.js';
import { imageIdsOf, readImageListing } from '../../src/fleet/read-fleet.js';
import { storeUsageOf } from '../../src/fleet/store-usage.js';
import type { GlanceClient } from '../../src/glance/glance-client.js';
import type { GlanceImage } from '../../src/glance/image.js';
import { parseImageList } from '../../src/glance/image-list.js';
import type { StoreCatalogue } from '../../src/fleet/store-catalogue.js';
import type { CommandRunner } from '../../src/rbd/command-runner.js';
import { COPY_SNAPSHOT, readStoreCopies } from '../../src/rbd/store-copies.js';
import type { PoolListing } from '../../src/rbd/store-copy-listing.js';
import { parseSyncPolicy } from '../../src/fleet/parse-sync-policy.js';
import { planFleet } from '../../src/sync/plan-fleet.js';
import { planPrewarm } from '../../src/prewarm/plan-prewarm.js';

const [mode, dir, nowArg] = process.argv.slice(2);
if ((mode !== 'sync' && mode !== 'evict') || dir === undefined || nowArg === undefined) throw new Error('usage: fleet-plan-worker sync|evict DIR NOW_MS');
const NOW = Number(nowArg);
const fleet = JSON.parse(readFileSync(join(dir, 'fleet.json'), 'utf8')) as { stores: string[]; pageSize: number; policy: string };

const cpuMs = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};
const rssMb = (): number => process.memoryUsage().rss / 2 ** 20;

let requests = 0;
/** Glance's listing: page k is DIR/page-k.json, the body Glance 25 sends; JSON.parse stands in for the client's. */
const glance = {
  listImages(query: { limit?: number; marker?: string } = {}) {
    requests += 1;
    // The marker is the previous page's last id; the bench's ids end in the image's number.
    const page = query.marker === undefined ? 0 : (Number(query.marker.slice(-12)) + 1) / fleet.pageSize;
    return Promise.resolve(parseImageList(JSON.parse(readFileSync(join(dir, `page-${page}.json`), 'utf8'))));
  },
} as unknown as GlanceClient;

let processes = 0;
/** rbd_store_copies.py's `list` for a store: DIR/pool-STORE.json as its stdout (its arguments end with POOL SNAPSHOT list). */
const runner: CommandRunner = {
  run(_file, args) {
    processes += 1;
    const pool = args.at(-3) ?? '';
    return Promise.resolve({ outcome: 'exited', exitCode: 0, signal: null, stdout: readFileSync(join(dir, `pool-${pool}.json`), 'utf8'), stderr: '' });
  },
};

const rssStart = rssMb();
const cpuStart = cpuMs();
let start = cpuMs();
const images: readonly GlanceImage[] = await readImageListing(glance);
// ferry's credential is in the images' project (as ferry-evict's is on the dev cloud): the images' own pins count, and
// the project's own community images are seen by name.
const VIEWER = images[0]?.owner ?? undefined;
const glanceCpu = cpuMs() - start;
start = cpuMs();
const pools = new Map<string, PoolListing>();
const knownNames = imageIdsOf(images);
for (const store of fleet.stores) {
  pools.set(store, await readStoreCopies({ confFile: `/etc/ceph/${store}.conf`, user: 'ferry', pool: store, snapshot: COPY_SNAPSHOT }, { runner }, knownNames));
}
const cephCpu = cpuMs() - start;
const rssRead = rssMb();
start = cpuMs();
const policy = mode === 'sync' ? parseSyncPolicy(fleet.policy, 'fleet.yaml') : undefined;
const policyCpu = cpuMs() - start;
start = cpuMs();
let evictions = 0;
let wanted = 0;
if (policy !== undefined) {
  const catalogue: StoreCatalogue = { typesKnown: true, stores: [{ id: 'central', type: 'file', readOnly: false, isDefault: true },
    ...fleet.stores.map((id) => ({ id, type: 'rbd', readOnly: false, isDefault: false }))] };
  const plan = planFleet({ policy, images, catalogue, pools, wallNowMs: NOW, run: 'bench', viewerProject: VIEWER },
    { prewarm: { plan: planPrewarm }, evict: { plan: planEviction } });
  wanted = plan.copy.items.length;
  for (const store of plan.evictions) evictions += store.plan?.copies.filter((entry) => entry.action === 'evict').length ?? 0;
} else {
  // `ferry evict --store S --budget 10M --idle 7d` for every store, on one image listing.
  const inStore = new Map<string, GlanceImage[]>([...pools.keys()].map((store) => [store, []]));
  for (const image of images) for (const store of image.stores) inStore.get(store)?.push(image);
  for (const [store, listing] of pools) {
    const usage = storeUsageOf(store, inStore.get(store) ?? [], listing, { ...NO_PINS, owners: new Set(VIEWER === undefined ? [] : [VIEWER]) });
    const plan = planEviction({ store, copies: usage.copies, poolBytes: usage.poolBytes, budgetBytes: 10 * 2 ** 20, idleMs: 7 * 86_400_000, wallNowMs: NOW, run: 'bench' });
    evictions += plan.copies.filter((entry) => entry.action === 'evict').length;
  }
}
const planCpu = cpuMs() - start;
console.log(JSON.stringify({ mode, requests, processes, glanceCpu, cephCpu, policyCpu, planCpu, totalCpu: cpuMs() - cpuStart, wanted, evictions,
  rssStartMb: rssStart, rssReadMb: rssRead, rssEndMb: rssMb(), maxRssMb: process.resourceUsage().maxRSS / 1024, images: images.length }));
