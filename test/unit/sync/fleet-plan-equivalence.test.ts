import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NO_PINS } from '../../../src/fleet/copy-pins.js';
import { budgetBytes } from '../../../src/fleet/store-budget.js';
import { planEviction } from '../../../src/evict/plan-eviction.js';
import { storeUsageOf } from '../../../src/fleet/store-usage.js';
import type { GlanceImage } from '../../../src/glance/image.js';
import { parseImageList } from '../../../src/glance/image-list.js';
import type { StoreCatalogue } from '../../../src/fleet/store-catalogue.js';
import { parsePoolListing, type PoolListing } from '../../../src/rbd/store-copy-listing.js';
import { parseSyncPolicy } from '../../../src/fleet/parse-sync-policy.js';
import { planFleet } from '../../../src/sync/plan-fleet.js';
import { FLEET_VERBS } from '../../helpers/fleet-verbs.js';
import { FLEET_NOW, generateFleet } from '../../helpers/generated-fleet.js';

// The fleet plans made faster for issue 28 (bench/fleet-plan.ts) must stay the plans they were: on a seeded
// 1 000-image, 40-store fleet with every case the plans judge, the sync plan (planFleet) and `ferry evict`'s plan of
// every store are compared with what the code gave before the speed work (commit d73601e's planFleet, storeUsageOf,
// copyFactsOf and parsers). The fixture holds a digest of the whole plans (every fact of every copy, every reason and
// detail) and each store's decisions in short, so that a difference names the store and the copy.
// To record it again (only when a plan is meant to change): FERRY_WRITE_FLEET_FIXTURE=1 npx vitest run --project unit THIS_FILE.

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'fleet-plan-1000.json');

/**
 * Canonical text of a plan: Maps as entry lists, errors as their code and message, an object's keys sorted (an image's
 * `raw` keeps the order Glance sent, where zod's parse put its schema's keys first: the same body).
 */
const canonical = (value: unknown): string => JSON.stringify(value, (_key, v: unknown) => {
  if (v instanceof Map) return [...(v as Map<unknown, unknown>)];
  if (v instanceof Set) return [...(v as Set<unknown>)];
  if (v instanceof Error) return { code: (v as { code?: string }).code, message: v.message };
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    return Object.fromEntries(Object.keys(v).sort().map((key) => [key, (v as Record<string, unknown>)[key]]));
  }
  return v;
});
/** The owner of every image of the generated fleet (test/helpers/generated-fleet.ts). */
const FLEET_OWNER = '58e7212814a0491c9b864d64b784fb3e';
const digest = (text: string): string => createHash('sha256').update(text).digest('hex');

function plansOf(images: readonly GlanceImage[], pools: ReadonlyMap<string, PoolListing>, policyText: string, stores: readonly string[]) {
  const policy = parseSyncPolicy(policyText, 'fleet.yaml');
  const catalogue: StoreCatalogue = { typesKnown: true, stores: [{ id: 'central', type: 'file', readOnly: false, isDefault: true },
    ...stores.map((id) => ({ id, type: 'rbd', readOnly: false, isDefault: false }))] };
  // The fleet's images are all the project's that reads them: their own pins count, as they did before pin owners.
  const sync = planFleet({ policy, images, catalogue, pools, wallNowMs: FLEET_NOW, run: 'bench', viewerProject: FLEET_OWNER }, FLEET_VERBS);
  const evict = [...pools].map(([store, listing]) => {
    const usage = storeUsageOf(store, images, listing, { refs: new Set([images.find((image) => image.name === 'image-3')?.id ?? '', images[4]?.id ?? '']), wanted: NO_PINS.wanted, owners: new Set([FLEET_OWNER]) });
    let bytes: number | undefined;
    try {
      bytes = budgetBytes({ kind: 'percent', percent: 30, of: 'pool', text: '30%' }, usage.capacity, store);
    } catch {
      bytes = undefined;
    }
    return { usage, plan: planEviction({ store, copies: usage.copies, poolBytes: usage.poolBytes, budgetBytes: bytes, idleMs: 2 * 86_400_000,
      wallNowMs: FLEET_NOW, run: 'bench' }) };
  });
  return { sync, evict };
}

describe('fleet plans: the same plans as before the speed work (issue 28)', () => {
  it('a seeded 1 000-image, 40-store fleet gives the recorded sync and evict plans', () => {
    const fleet = generateFleet(1000, 40, 28);
    const images = fleet.pages.flatMap((page) => parseImageList(JSON.parse(page)).images);
    const pools = new Map([...fleet.listings].map(([store, text]) => [store, parsePoolListing(text, `list ${store}`)]));
    const { sync, evict } = plansOf(images, pools, fleet.policy, fleet.stores);
    const short = {
      copies: sync.copy.items.map((item) => `${item.store} ${item.imageId.slice(-4)} ${item.action}`),
      sync: sync.evictions.map((entry) => `${entry.store}: ${entry.plan?.budget ?? entry.budgetError?.code ?? ''} `
        + (entry.plan?.copies.map((planned) => `${planned.copy.imageId.slice(-4)}:${planned.reason}`).join(' ') ?? '')),
      evict: evict.map(({ plan }) => `${plan.store}: ${plan.budget} ${plan.copies.map((planned) => `${planned.copy.imageId.slice(-4)}:${planned.reason}`).join(' ')}`),
    };
    const actual = { images: digest(canonical(images)), sync: digest(canonical(sync)), evict: digest(canonical(evict)), short };
    if (process.env['FERRY_WRITE_FLEET_FIXTURE'] === '1') writeFileSync(FIXTURE, `${JSON.stringify(actual, null, 1)}\n`);
    const recorded = JSON.parse(readFileSync(FIXTURE, 'utf8')) as typeof actual;
    // The cases are all there: a fleet that judged nothing would prove nothing.
    const reasons = new Set([...sync.evictions, ...evict].flatMap((entry) => entry.plan?.copies.map((planned) => planned.reason) ?? []));
    expect([...reasons].sort()).toEqual(['clones-unknown', 'fenced', 'idle', 'importing', 'in-use', 'last-copy', 'not-active', 'not-idle',
      'not-in-pool', 'pinned', 'under-budget']);
    expect(actual.short).toEqual(recorded.short);
    expect(actual.images).toBe(recorded.images);
    expect(actual.sync).toBe(recorded.sync);
    expect(actual.evict).toBe(recorded.evict);
  });
});
