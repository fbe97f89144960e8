/**
 * A seeded, generated fleet for the plans' equivalence test (test/unit/sync/fleet-plan-equivalence.test.ts): Glance
 * pages and rbd_store_copies.py listings as the text the services send, with every case the plans judge mixed in
 * (clones trashed or not, unreadable and absent entries, other runs' fences, imports, pins by tag and property,
 * percent-encoded and renamed locations, leftovers and trash in the pools, sizes with and without fast-diff).
 */
import { seededRandom } from '../../bench/lib/simulate-ensure-wait.js';

export const FLEET_NOW = Date.UTC(2026, 10, 27, 4, 0, 0);
const DAY = 86_400_000;

export interface GeneratedFleet {
  readonly stores: readonly string[];
  /** Glance's listing, page by page (200 per page), as JSON text. */
  readonly pages: readonly string[];
  /** Each store's pool listing (rbd_store_copies.py `list`), as JSON text. */
  readonly listings: ReadonlyMap<string, string>;
  readonly policy: string;
}

export function generateFleet(images: number, storeCount: number, seed: number): GeneratedFleet {
  const rnd = seededRandom(seed);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(rnd() * values.length)] as T;
  const stores = Array.from({ length: storeCount }, (_, s) => `edge-${String(s).padStart(3, '0')}`);
  const id = (i: number): string => `${(i * 2_654_435_761 % 4_294_967_296).toString(16).padStart(8, '0')}-0000-4000-8000-${String(i).padStart(12, '0')}`;
  const entries = new Map<string, Record<string, unknown>[]>(stores.map((store) => [store, []]));
  const bodies: Record<string, unknown>[] = [];
  for (let i = 0; i < images; i += 1) {
    const held = stores.filter(() => rnd() < 0.05);
    const inStores = rnd() < 0.9 ? ['central', ...held] : held;
    const rbdName = (store: string): string => (i % 97 === 5 && store !== 'central' ? `${id(i)}_copy` : id(i));
    const locations = inStores.map((store) => (store === 'central' ? { url: `file:///var/lib/glance/images/${id(i)}`, metadata: { store } }
      : { url: i % 89 === 3 ? `rbd://fsid-${store}/images/${encodeURIComponent(rbdName(store)).replace(/-/g, '%2D')}/snap`
        : `rbd://fsid-${store}/images/${rbdName(store)}/snap`, metadata: { store } }));
    const status = rnd() < 0.02 ? pick(['queued', 'importing', 'deactivated']) : 'active';
    const properties: Record<string, unknown> = {};
    if (rnd() < 0.03) properties['ferry_pin'] = rnd() < 0.5 ? '*' : held.slice(0, 1).join(',');
    if (rnd() < 0.1) properties['hw_disk_bus'] = 'scsi';
    bodies.push({
      id: id(i), name: rnd() < 0.02 ? null : `image-${i}`, status, disk_format: pick(['raw', 'raw', 'raw', 'qcow2']), container_format: 'bare',
      visibility: pick(['public', 'shared', 'private']), size: Math.floor(rnd() * 8) * 2 ** 30 + 2 ** 20, virtual_size: null,
      checksum: 'd9a1e5e8b755591e5a5bfa04504319df', protected: false, min_ram: 0, min_disk: 0, owner: '58e7212814a0491c9b864d64b784fb3e',
      os_hidden: false, tags: [...(i % 50 === 0 ? ['golden'] : []), ...(rnd() < 0.02 ? ['ferry-pin'] : [])],
      created_at: '2026-11-01T10:00:00Z', updated_at: '2026-11-02T10:00:00.123456',
      self: `/v2/images/${id(i)}`, file: `/v2/images/${id(i)}/file`, schema: '/v2/schemas/image',
      locations, direct_url: locations[0]?.url, stores: inStores.join(','),
      os_glance_importing_to_stores: rnd() < 0.01 ? held.slice(0, 1).join(',') : '', os_glance_failed_import: '',
      ...(rnd() < 0.01 ? { os_glance_import_task: 'task-1' } : {}), ...properties,
    });
    for (const store of held) {
      const listed = entries.get(store) ?? [];
      const roll = rnd();
      if (roll < 0.02) continue;
      if (roll < 0.03) {
        listed.push({ name: rbdName(store), error: 'Permission denied', errno: 13 });
        continue;
      }
      const created = (FLEET_NOW - Math.floor(rnd() * 40 * DAY)) / 1000;
      const accessed = rnd() < 0.2 ? null : created + Math.floor(rnd() * 10 * DAY) / 1000;
      const clones = Array.from({ length: rnd() < 0.7 ? 0 : 1 + Math.floor(rnd() * 3) }, (_, k) => ({ pool: 'vms', namespace: '',
        image: `vm-${i}-${k}`, id: `c${i}${k}`, trash: rnd() < 0.2, created: rnd() < 0.05 ? null : created + Math.floor(rnd() * 5 * DAY) / 1000 }));
      const size = (1 + Math.floor(rnd() * 4)) * 2 ** 30;
      const meta: Record<string, string> = rnd() < 0.03
        ? { 'ferry.evicting': JSON.stringify({ run: rnd() < 0.5 ? 'other' : 'bench', recheck_at: new Date(FLEET_NOW + (rnd() < 0.5 ? 60_000 : -DAY)).toISOString(), by: 'host', since: new Date(FLEET_NOW - 20_000).toISOString() }) }
        : rnd() < 0.01 ? { 'ferry.evicting': 'garbage' } : {};
      listed.push({ name: rbdName(store), id: `rbd${i}`, size, used: rnd() < 0.3 ? null : Math.floor(size * rnd()), created, accessed,
        modified: created, protected: rnd() < 0.98, children: clones, meta });
    }
  }
  const listings = new Map<string, string>();
  for (const [s, store] of stores.entries()) {
    const listed = entries.get(store) ?? [];
    for (let k = 0; k < 3; k += 1) {
      listed.push({ name: `leftover-${s}-${k}`, id: `lo${s}${k}`, size: 2 ** 28, used: 2 ** 27, created: null, accessed: null, modified: null,
        protected: null, children: [], meta: {} });
    }
    const trash = s % 4 === 0 ? [{ name: `trashed-${s}`, id: `tr${s}`, size: 2 ** 29, used: null, created: null, accessed: null, modified: null,
      protected: false, children: [], meta: {}, deleted: FLEET_NOW / 1000 - 3600 }] : [];
    listings.set(store, JSON.stringify({ pool: 'images', snapshot: 'snap', quota_bytes: s % 3 === 0 ? 0 : 50 * 2 ** 30, replicas: 3,
      capacity: s % 5 === 0 ? null : { cluster_bytes: 3 * 2 ** 40, pool_stored_bytes: 2 ** 40, pool_max_avail_bytes: 2 ** 40 }, images: listed, trash }));
  }
  const pages: string[] = [];
  for (let start = 0; start < bodies.length; start += 200) {
    const page = bodies.slice(start, start + 200);
    const next = start + 200 < bodies.length ? `/v2/images?limit=200&marker=${String(page.at(-1)?.id)}` : undefined;
    pages.push(JSON.stringify({ images: page, ...(next === undefined ? {} : { next }), first: '/v2/images', schema: '/v2/schemas/images' }));
  }
  const policy = `version: 1
placements:
  - {name: golden everywhere, images: {tag: golden}, stores: [${stores.join(', ')}]}
  - {name: named, images: {names: [image-7, image-11, no-such-image]}, stores: [${stores.slice(0, 5).join(', ')}]}
stores:
${stores.map((store, s) => `  ${store}: {budget: ${s % 7 === 0 ? '10%' : s % 7 === 1 ? '1' : `${20 + (s % 13) * 5}G`}, ${s % 7 === 0 ? 'budget_of: pool, ' : ''}idle: ${s % 2 === 0 ? '7d' : '1d'}, ceph_conf: /etc/ceph/${store}.conf}`).join('\n')}
usage:
  - {name: top clones, keep_most_used: '15', by: clones}
  - {name: recent boots, keep_most_used: '10', by: boots, days: 3, stores: [${stores.slice(0, 10).join(', ')}]}
`;
  return { stores, pages, listings, policy };
}
