import { describe, expect, it } from 'vitest';
import { parseImage, type GlanceImage } from '../../../src/glance/image.js';
import type { StoreCatalogue } from '../../../src/fleet/store-catalogue.js';
import type { PoolImage, PoolListing } from '../../../src/rbd/store-copy-listing.js';
import { parseSyncPolicy } from '../../../src/fleet/parse-sync-policy.js';
import { planFleet } from '../../../src/sync/plan-fleet.js';
import { FLEET_VERBS } from '../../helpers/fleet-verbs.js';
import { usageRuleWants } from '../../../src/fleet/usage-rule-wants.js';
import { FSID_A, FSID_B, imageBody } from '../../helpers/image-body.js';
import { DAY, facts, MIB, NOW, OPS } from '../evict/copy-facts-fixture.js';

// The fleet's sync plan with budgets and usage rules: pure, on images and pool listings shaped like the recorded ones.

const id = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const FSIDS: Record<string, string> = { 'site-a': FSID_A, 'site-b': FSID_B };

function image(n: number, stores: readonly string[], extra: Record<string, unknown> = {}): GlanceImage {
  return parseImage({ ...imageBody({ stores }), id: id(n), name: `img-${n}`, ...extra,
    locations: stores.map((store) => ({ url: FSIDS[store] ? `rbd://${FSIDS[store]}/images/${id(n)}/snap` : `file:///var/lib/glance/${store}/${id(n)}`,
      metadata: { store } })) });
}

function poolImage(n: number, bytes: number, options: { clones?: number[]; usedMs?: number } = {}): PoolImage {
  const used = options.usedMs ?? NOW - 3 * DAY;
  return { kind: 'image', name: id(n), id: `rbd${n}`, sizeBytes: bytes, usedBytes: bytes, createdMs: used, accessedMs: used,
    protected: true, meta: {}, trashedMs: undefined,
    clones: (options.clones ?? []).map((createdMs, k) => ({ pool: 'vms', namespace: '', image: `vm-${n}-${k}`, id: `c${n}${k}`, trash: false, createdMs })) };
}

const listing = (pool: string, images: PoolImage[]): PoolListing => ({ pool, snapshot: 'snap', quotaBytes: undefined, replicas: 1,
  capacity: undefined, images, trash: [] });

const store = (id: string, type: string) => ({ id, type, readOnly: false, isDefault: id === 'central' });
const catalogue: StoreCatalogue = { stores: [store('central', 'file'), store('site-a', 'rbd'), store('site-b', 'rbd')], typesKnown: true };

/** The credential's project, owner of every image (imageBody's) unless a row says otherwise. */
const OPS_PROJECT = '11111111111111111111111111111111';
const TENANT = 'b0000000000000000000000000000002';

const policyOf = (text: string) => parseSyncPolicy(`version: 1\n${text}`, 'edge.yaml');

describe('planFleet', () => {
  it('a placement\'s images are copied where wanted and pinned there; what is not wanted goes least recently used first to meet the budget', () => {
    const policy = policyOf(`placements:
  - {name: golden, images: {tag: golden}, stores: [site-b]}
stores:
  site-b: {budget: 250M, ceph_conf: /etc/ceph/site-b.conf}
`);
    const images = [
      image(1, ['central', 'site-b'], { tags: ['golden'] }), // wanted, in place: pinned
      image(2, ['central'], { tags: ['golden'] }), // wanted, missing: copied
      image(3, ['central', 'site-b']), // idle 3 d: evicted
      image(4, ['central', 'site-b']), // idle 1 d: evicted after 3
      image(5, ['central', 'site-b']), // used an hour ago through a clone: in use
    ];
    const pools = new Map([['site-b', listing('images', [poolImage(1, 100 * MIB), poolImage(3, 100 * MIB), poolImage(4, 100 * MIB, { usedMs: NOW - DAY }),
      poolImage(5, 100 * MIB, { clones: [NOW - 3_600_000] })])]]);
    const fleet = planFleet({ policy, images, catalogue, pools, wallNowMs: NOW, run: 'r1', viewerProject: OPS_PROJECT }, FLEET_VERBS);

    expect(fleet.copy.items.filter((item) => item.state !== 'present').map((item) => [item.imageId, item.store])).toEqual([[id(2), 'site-b']]);
    const [store] = fleet.evictions;
    expect(store?.store).toBe('site-b');
    expect(store?.plan?.copies.map((entry) => [entry.copy.imageId, entry.action, entry.reason])).toEqual([
      [id(3), 'evict', 'idle'], [id(4), 'evict', 'idle'], [id(5), 'keep', 'in-use'], [id(1), 'keep', 'pinned']]);
    expect(store?.plan?.copies.find((entry) => entry.copy.imageId === id(1))?.detail).toBe('wanted here by the sync policy (golden)');
    expect(store?.plan).toMatchObject({ poolBytes: 400 * MIB, afterBytes: 200 * MIB, budget: 'met' });
  });

  it('one image over budget in two stores: only one of its two copies (the other being central\'s) may go, and the other store keeps it as the last copy', () => {
    const policy = policyOf(`placements:
  - {name: none, images: {tag: nothing}, stores: [site-a]}
stores:
  site-a: {budget: 1M, ceph_conf: /etc/ceph/site-a.conf}
  site-b: {budget: 1M, ceph_conf: /etc/ceph/site-b.conf}
`);
    const images = [image(7, ['site-a', 'site-b'])];
    const pools = new Map([['site-a', listing('images', [poolImage(7, 10 * MIB)])], ['site-b', listing('images', [poolImage(7, 10 * MIB)])]]);
    const fleet = planFleet({ policy, images, catalogue, pools, wallNowMs: NOW, run: 'r1', viewerProject: OPS_PROJECT }, FLEET_VERBS);
    expect(fleet.evictions.map((entry) => [entry.store, entry.plan?.copies.map((c) => c.reason), entry.plan?.budget])).toEqual([
      ['site-a', ['idle'], 'met'], ['site-b', ['last-copy'], 'unmet']]);
  });

  it('a usage rule keeps the most cloned images across sites: wanted (copied) in its stores and never evicted there', () => {
    const policy = policyOf(`stores:
  site-a: {budget: 1M, ceph_conf: /etc/ceph/site-a.conf}
  site-b: {budget: 1M, ceph_conf: /etc/ceph/site-b.conf}
usage:
  - {name: top1, keep_most_used: '1', by: clones}
`);
    // image 8: 1 clone at site-a, 2 at site-b (3 in all); image 9: 2 clones at site-a. Image 8 is the most used.
    const images = [image(8, ['central', 'site-a', 'site-b']), image(9, ['central', 'site-a'])];
    const pools = new Map([
      ['site-a', listing('images', [poolImage(8, 10 * MIB, { clones: [NOW - DAY] }), poolImage(9, 10 * MIB, { clones: [NOW - DAY, NOW - 2 * DAY] })])],
      ['site-b', listing('images', [poolImage(8, 10 * MIB, { clones: [NOW - 5 * DAY, NOW - 6 * DAY] })])],
    ]);
    const fleet = planFleet({ policy, images, catalogue, pools, wallNowMs: NOW, run: 'r1', viewerProject: OPS_PROJECT }, FLEET_VERBS);
    expect([...fleet.wants].map(([store, inStore]) => [store, [...inStore]])).toEqual([
      ['site-a', [[id(8), ['top1']]]], ['site-b', [[id(8), ['top1']]]]]);
    expect(fleet.copy.items.map((item) => [item.imageId, item.store, item.state])).toEqual([
      [id(8), 'site-a', 'present'], [id(8), 'site-b', 'present']]);
  });
});

describe('planFleet with tenants\' images', () => {
  const policy = (extra = '') => policyOf(`stores:
  site-b: {budget: 15M, ceph_conf: /etc/ceph/site-b.conf}
usage:
  - {name: top1, keep_most_used: '1', by: clones${extra}}
`);
  // image 10: the tenant's, booted at site-b three times (the most clones of all), a copy at site-a; image 11: the
  // operator's, one clone; images 12 (the tenant's, idle 30 d) and 13 (the operator's, idle 3 d) at site-b.
  const images = [image(10, ['central', 'site-b'], { owner: TENANT }), image(11, ['central', 'site-b']),
    image(12, ['central', 'site-b'], { owner: TENANT }), image(13, ['central', 'site-b'])];
  const pools = new Map([['site-b', listing('images', [poolImage(10, 10 * MIB, { clones: [NOW - DAY, NOW - DAY, NOW - DAY] }),
    poolImage(11, 1 * MIB, { clones: [NOW - DAY] }), poolImage(12, 10 * MIB, { usedMs: NOW - 30 * DAY }), poolImage(13, 10 * MIB)])]]);

  it('a usage rule counts the pin owners\' images only: the tenant\'s most booted image is not kept; its idle copy older than the operator\'s is not-owned, the operator\'s goes', () => {
    const fleet = planFleet({ policy: policy(), images, catalogue, pools, wallNowMs: NOW, run: 'r1', viewerProject: OPS_PROJECT }, FLEET_VERBS);
    expect([...fleet.wants.get('site-b') ?? []]).toEqual([[id(11), ['top1']]]);
    expect(fleet.evictions[0]?.plan?.copies.map((entry) => [entry.copy.imageId, entry.action, entry.reason])).toEqual([
      [id(13), 'evict', 'idle'], [id(10), 'keep', 'in-use'], [id(11), 'keep', 'in-use'], [id(12), 'keep', 'not-owned']]);
    expect(fleet.evictions[0]?.plan).toMatchObject({ budget: 'unmet', poolBytes: 31 * MIB, afterBytes: 21 * MIB,
      kept: { 'not-owned': { copies: 1, bytes: 10 * MIB } } });
  });

  it('a rule\'s owners: [*] counts every project\'s images; remove_owners: [*] lets the budgets remove every project\'s copies', () => {
    const fleet = planFleet({ policy: parseSyncPolicy(`version: 1\nremove_owners: ['*']\nstores:\n  site-b: {budget: 15M, ceph_conf: /etc/ceph/site-b.conf}\n`
      + 'usage:\n  - {name: top1, keep_most_used: \'1\', by: clones, owners: [\'*\']}\n', 'edge.yaml'), images, catalogue, pools, wallNowMs: NOW,
    run: 'r1', viewerProject: OPS_PROJECT }, FLEET_VERBS);
    expect([...fleet.wants.get('site-b') ?? []]).toEqual([[id(10), ['top1']]]);
    expect(fleet.evictions[0]?.plan?.copies.filter((entry) => entry.action === 'evict').map((entry) => entry.copy.imageId)).toEqual([id(12), id(13)]);
  });
});

describe('usageRuleWants', () => {
  const rule = (by: 'clones' | 'boots', keepMostUsed: number, days = 7) => ({ name: `top${keepMostUsed} ${by}`, keepMostUsed, by, days,
    stores: ['site-b'], position: { line: 1, column: 1 } });
  const siteA = [facts({ imageId: 'a', clones: 3, cloneTimesMs: [NOW - 20 * DAY, NOW - 21 * DAY, NOW - 22 * DAY] }),
    facts({ imageId: 'b', clones: 1, cloneTimesMs: [NOW - DAY] })];
  const siteB = [facts({ imageId: 'b', store: 'site-b', clones: 1, cloneTimesMs: [NOW - 2 * DAY] }), facts({ imageId: 'c', store: 'site-b' })];

  it.each([
    { what: 'by clones: a (3 old clones) before b (2)', rules: [rule('clones', 1)], wanted: [['a', ['top1 clones']]] },
    { what: 'by boots over 7 days: b (2 recent) before a (none in the window)', rules: [rule('boots', 1)], wanted: [['b', ['top1 boots']]] },
    { what: 'by boots over 30 days: a (3) before b (2)', rules: [rule('boots', 1, 30)], wanted: [['a', ['top1 boots']]] },
    { what: 'an image nobody uses is never "most used", whatever N', rules: [rule('clones', 5)], wanted: [['a', ['top5 clones']], ['b', ['top5 clones']]] },
    { what: 'two rules wanting one image name both', rules: [rule('clones', 2), rule('boots', 1)],
      wanted: [['a', ['top2 clones']], ['b', ['top2 clones', 'top1 boots']]] },
  ])('$what', ({ rules, wanted }) => {
    expect([...(usageRuleWants(rules, [siteA, siteB], NOW, () => new Set([OPS])).get('site-b') ?? [])]).toEqual(wanted);
  });

  it.each([
    { what: 'the rule\'s owners\' images only: a tenant\'s most cloned image is not counted', owners: [OPS], wanted: ['a'] },
    { what: 'owners * : every project\'s, the tenant\'s first', owners: ['*'], wanted: ['t'] },
    { what: 'the tenant named', owners: ['tenant'], wanted: ['t'] },
  ])('$what', ({ owners, wanted }) => {
    const tenants = [facts({ imageId: 't', owner: 'tenant', clones: 9 }), ...siteA];
    expect([...(usageRuleWants([rule('clones', 1)], [tenants], NOW, () => new Set(owners)).get('site-b') ?? []).keys()]).toEqual(wanted);
  });

  it('ties by id in code-unit order, as eviction breaks them: the same choice whatever the host\'s locale (a collator puts a before B)', () => {
    const tied = [facts({ imageId: 'a-1', clones: 2 }), facts({ imageId: 'B-1', clones: 2 }), facts({ imageId: '0-1', clones: 1 })];
    expect([...(usageRuleWants([rule('clones', 2)], [tied], NOW, () => new Set([OPS])).get('site-b') ?? []).keys()]).toEqual(['B-1', 'a-1']);
  });
});
