import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { copyFactsOf, rbdImageOf } from '../../../src/fleet/copy-facts.js';
import { ignoredPinOf, NO_PINS, pinOf, PIN_PROPERTY, PIN_TAG } from '../../../src/fleet/copy-pins.js';
import { ownersOf } from '../../../src/fleet/project-owners.js';
import { budgetBytes, formatBytes, parseBudget } from '../../../src/fleet/store-budget.js';
import { FENCE_COUNTED_MS, FENCE_HOLD_MS, fenceOf, fenceValue, FOREIGN_FENCE, judgeFencedCopy, removalDeadline, removalUnderWay } from '../../../src/fleet/copy-fence.js';
import { judgeLastLook } from '../../../src/evict/judge-last-look.js';
import { keepReason } from '../../../src/evict/plan-eviction.js';
import { fleetUsageOf, storeUsageOf } from '../../../src/fleet/store-usage.js';
import { parseImage } from '../../../src/glance/image.js';
import { parsePoolListing } from '../../../src/rbd/store-copy-listing.js';
import { FSID_B, imageBody } from '../../helpers/image-body.js';
import { DAY, facts, MIB, NOW, OPS as OWNER } from './copy-facts-fixture.js';

// The eviction's facts and small decisions: budgets, fences, pins, the facts of a copy from Glance and the pool, the
// last look. Pure; the pool listing is the one rbd_store_copies.py printed on the dev cloud.

describe('parseBudget / budgetBytes', () => {
  it.each([
    ['500G', 500 * 2 ** 30], ['1.5TiB', 1.5 * 2 ** 40], ['750GB', 750e9], ['1073741824', 2 ** 30], ['10 M', 10 * MIB], ['2k', 2048],
  ])('%s → %d bytes', (text, bytes) => {
    expect(parseBudget(text)).toEqual({ kind: 'bytes', bytes, text: text.trim() });
  });

  it.each([['80%', 80, 'pool'], ['12.5 %', 12.5, 'cluster']] as const)('%s of the %s', (text, percent, of) => {
    expect(parseBudget(text, of)).toEqual({ kind: 'percent', percent, of, text });
  });

  it.each(['', '0', '0%', '120%', '-5G', '5 gigs', '5GX', 'G'])('%j → FERRY_INVALID_OPTION naming --budget and the forms it takes', (text) => {
    expect(() => parseBudget(text)).toThrow(expect.objectContaining({ code: 'FERRY_INVALID_OPTION',
      message: expect.stringContaining(`--budget must be bytes or a percentage (500G, 1.5TiB, 750GB, 80%), got '${text}'`) as unknown }));
  });

  const capacity = { quotaBytes: undefined, poolBytes: 1000 * MIB, clusterBytes: 4000 * MIB };
  it.each([
    { what: 'bytes are bytes', budget: parseBudget('100M'), capacity, bytes: 100 * MIB },
    { what: '80% of the pool: of its quota when set', budget: parseBudget('80%'), capacity: { ...capacity, quotaBytes: 500 * MIB }, bytes: 400 * MIB },
    { what: '80% of the pool without a quota: of what ceph df says it can hold', budget: parseBudget('80%'), capacity, bytes: 800 * MIB },
    { what: '50% of the cluster', budget: parseBudget('50%', 'cluster'), capacity, bytes: 2000 * MIB },
  ])('budgetBytes: $what', ({ budget, capacity: facts, bytes }) => {
    expect(budgetBytes(budget, facts, 'site-b')).toBe(bytes);
  });

  it('a percentage of a capacity the cluster does not report (no mgr) → FERRY_CAPACITY_UNKNOWN saying what to give instead', () => {
    const none = { quotaBytes: undefined, poolBytes: undefined, clusterBytes: undefined };
    expect(() => budgetBytes(parseBudget('80%'), none, 'site-b')).toThrow(expect.objectContaining({ code: 'FERRY_CAPACITY_UNKNOWN',
      message: expect.stringMatching(/^the budget of store site-b is 80% of the pool's capacity, which its cluster does not report \(no quota on the pool, and ceph df/) as unknown,
      hint: expect.stringMatching(/--budget 500G.*set-quota/) as unknown }));
  });

  it.each([[512, '512 B'], [1536, '1.5 KiB'], [100 * MIB, '100 MiB'], [1.25 * 2 ** 40, '1.3 TiB']])('formatBytes(%d) → %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});

describe('the fence', () => {
  const fence = { run: 'run-1', recheckAtMs: NOW + 30_000, by: 'ferry evict pid 7', sinceMs: NOW };

  it('is written as JSON with ISO times (its last look, when it was first written) and read back as written', () => {
    expect(fenceValue(fence)).toBe('{"run":"run-1","recheck_at":"2026-11-27T12:00:30.000Z","by":"ferry evict pid 7","since":"2026-11-27T12:00:00.000Z"}');
    expect(fenceOf({ 'ferry.evicting': fenceValue(fence), 'ferry.verified': 'x' })).toEqual(fence);
    expect(fenceOf({ 'ferry.verified': 'x' })).toBeUndefined();
  });

  it('an older ferry\'s fence (no since) is still read: it keeps its copy and can be taken over', () => {
    expect(fenceOf({ 'ferry.evicting': '{"run":"run-1","recheck_at":"2026-11-27T12:00:30.000Z","by":"ferry evict pid 7"}' }))
      .toEqual({ run: 'run-1', recheckAtMs: NOW + 30_000, by: 'ferry evict pid 7', sinceMs: undefined });
  });

  it.each([
    { why: 'another run\'s fence written 20 s ago, its last look 10 s ahead', fence: { run: 'run-0', recheckAtMs: NOW + 10_000, by: 'h', sinceMs: NOW - 20_000 }, counted: true },
    { why: 'the same, written exactly FENCE_COUNTED_MS ago', fence: { run: 'run-0', recheckAtMs: NOW + 10_000, by: 'h', sinceMs: NOW - FENCE_COUNTED_MS }, counted: true },
    { why: 'renewed for longer than a run takes (written 1 ms more than FENCE_COUNTED_MS ago)',
      fence: { run: 'run-0', recheckAtMs: NOW + 10_000, by: 'h', sinceMs: NOW - FENCE_COUNTED_MS - 1 }, counted: false },
    { why: 'an older ferry\'s (no since)', fence: { run: 'run-0', recheckAtMs: NOW + 10_000, by: 'h', sinceMs: undefined }, counted: false },
    { why: 'written in the future (beyond the clocks\' skew)', fence: { run: 'run-0', recheckAtMs: NOW + 10_000, by: 'h', sinceMs: NOW + 60_000 }, counted: false },
    { why: 'its last look before it was written', fence: { run: 'run-0', recheckAtMs: NOW - 10_000, by: 'h', sinceMs: NOW - 5_000 }, counted: false },
    { why: 'due further out than FENCE_HOLD_MS', fence: { run: 'run-0', recheckAtMs: NOW + FENCE_HOLD_MS + 1, by: 'h', sinceMs: NOW }, counted: false },
    { why: 'this run\'s own', fence: { run: 'run-1', recheckAtMs: NOW + 10_000, by: 'h', sinceMs: NOW - 20_000 }, counted: false },
    { why: 'stale (its run gone)', fence: { run: 'run-0', recheckAtMs: NOW - FENCE_HOLD_MS - 1, by: 'h', sinceMs: NOW - FENCE_HOLD_MS - 30_000 }, counted: false },
    { why: 'not ferry\'s format', fence: FOREIGN_FENCE, counted: false },
  ])('removalUnderWay: $why → $counted', ({ fence: mark, counted }) => {
    expect(removalUnderWay(mark, 'run-1', NOW)).toBe(counted);
  });

  it.each(['yes', '{"run": 1}', '{"run":"r","recheck_at":"soon"}'])('a mark not in ferry\'s format (%s) is a foreign fence', (value) => {
    expect(fenceOf({ 'ferry.evicting': value })).toBe(FOREIGN_FENCE);
  });

  it.each([
    { why: 'no fence', fence: undefined, now: NOW, answer: 'hand-out' },
    { why: 'the last look 30 s ahead, a 10 s margin: the clone lands before it', fence, now: NOW, answer: 'hand-out' },
    { why: 'the last look exactly a margin ahead', fence, now: NOW + 20_000, answer: 'hand-out' },
    { why: 'the last look 9 s ahead: the copy may go before the clone', fence, now: NOW + 21_000, answer: 'wait' },
    { why: 'past the last look: the run is removing it', fence, now: NOW + 60_000, answer: 'wait' },
    { why: 'past the hold: the run is gone', fence, now: NOW + 30_000 + FENCE_HOLD_MS + 1, answer: 'hand-out' },
    { why: 'a foreign fence is not ferry\'s to honour', fence: FOREIGN_FENCE, now: NOW, answer: 'hand-out' },
  ] as const)('judgeFencedCopy: $why → $answer', ({ fence: mark, now, answer }) => {
    expect(judgeFencedCopy(mark, now, 10_000)).toBe(answer);
  });

  it('a run stops removing well before anyone calls its fence stale', () => {
    expect(removalDeadline(fence)).toBeLessThan(fence.recheckAtMs + FENCE_HOLD_MS);
    expect(removalDeadline(fence)).toBeGreaterThan(fence.recheckAtMs);
  });
});

describe('pinOf', () => {
  const OPS = 'a0000000000000000000000000000001';
  const TENANT = 'b0000000000000000000000000000002';
  const image = (tags: string[], properties: Record<string, unknown> = {}, owner: string | null = OPS) => ({ id: 'id-1', name: 'cirros', owner, tags, properties });
  const none = { refs: new Set<string>(), wanted: new Map<string, string[]>(), owners: new Set([OPS]) };
  it.each([
    { why: 'nothing pins it', image: image([]), pins: none, pin: undefined },
    { why: '--pin by id', image: image([]), pins: { ...none, refs: new Set(['id-1']) }, pin: 'pinned by --pin' },
    { why: '--pin holds ids (names are resolved first): an image named like a ref is not pinned', image: image([]), pins: { ...none, refs: new Set(['cirros']) },
      pin: undefined },
    { why: 'its tag', image: image([PIN_TAG]), pins: none, pin: `pinned by its tag ${PIN_TAG} (owner ${OPS}, a pin owner)` },
    { why: 'its property naming this store', image: image([], { [PIN_PROPERTY]: 'site-a, site-b' }), pins: none,
      pin: `pinned by its property ${PIN_PROPERTY}=site-a, site-b (owner ${OPS}, a pin owner)` },
    { why: 'its property naming another store', image: image([], { [PIN_PROPERTY]: 'site-a' }), pins: none, pin: undefined },
    { why: 'its property: every store', image: image([], { [PIN_PROPERTY]: '*' }), pins: none, pin: `pinned by its property ${PIN_PROPERTY}=* (owner ${OPS}, a pin owner)` },
    { why: 'a sync policy wants it here (said first)', image: image([PIN_TAG]), pins: { ...none, wanted: new Map([['id-1', ['golden', 'edge']]]) },
      pin: 'wanted here by the sync policy (golden, edge)' },
    // any project may tag its own image: only the pin owners' tags and properties count
    { why: 'a tenant\'s tag', image: image([PIN_TAG], {}, TENANT), pins: none, pin: undefined },
    { why: 'a tenant\'s property', image: image([], { [PIN_PROPERTY]: '*' }, TENANT), pins: none, pin: undefined },
    { why: 'an image without owner', image: image([PIN_TAG], {}, null), pins: none, pin: undefined },
    { why: 'no pin owners at all', image: image([PIN_TAG]), pins: { ...none, owners: new Set<string>() }, pin: undefined },
    { why: 'the tenant named a pin owner', image: image([PIN_TAG], {}, TENANT), pins: { ...none, owners: new Set([OPS, TENANT]) },
      pin: `pinned by its tag ${PIN_TAG} (owner ${TENANT}, a pin owner)` },
    { why: '--pin pins a tenant\'s image (the operator named it)', image: image([], {}, TENANT), pins: { ...none, refs: new Set(['id-1']) }, pin: 'pinned by --pin' },
  ])('$why', ({ image: view, pins, pin }) => {
    expect(pinOf(view, 'site-b', pins)).toBe(pin);
  });

  it.each([
    { why: 'a tenant\'s tag', image: image([PIN_TAG], {}, TENANT), note: `its tag ${PIN_TAG} ignored: owner ${TENANT} is not a pin owner` },
    { why: 'a tenant\'s property', image: image([], { [PIN_PROPERTY]: 'site-b' }, TENANT),
      note: `its property ${PIN_PROPERTY}=site-b ignored: owner ${TENANT} is not a pin owner` },
    { why: 'no owner', image: image([PIN_TAG], {}, null), note: `its tag ${PIN_TAG} ignored: owner (none) is not a pin owner` },
    { why: 'a pin owner\'s tag counts', image: image([PIN_TAG]), note: undefined },
    { why: 'a property for another store is no pin here', image: image([], { [PIN_PROPERTY]: 'site-a' }, TENANT), note: undefined },
  ])('ignoredPinOf: $why', ({ image: view, note }) => {
    expect(ignoredPinOf(view, 'site-b', none)).toBe(note);
  });

  it('ownersOf: those given, else the credential\'s project, else none', () => {
    expect([...ownersOf(['p1', 'p2'], OPS)]).toEqual(['p1', 'p2']);
    expect([...ownersOf(undefined, OPS)]).toEqual([OPS]);
    expect([...ownersOf([], OPS)]).toEqual([OPS]);
    expect([...ownersOf(undefined, undefined)]).toEqual([]);
  });
});

describe('copyFactsOf / storeUsageOf on the recorded listing', () => {
  const listing = parsePoolListing(readFileSync('fixtures/rbd/store-listing-site-b.json', 'utf8'), 'recorded');
  const [cloned, trashedOnly] = listing.images;
  const image = (id: string, stores: string[], extra: Record<string, unknown> = {}) => parseImage({ ...imageBody({ stores }), id, ...extra,
    locations: stores.map((store) => ({ url: `rbd://${FSID_B}/images/${id}/snap`, metadata: { store } })) });

  it('a copy with a live clone: in use, its clone\'s creation is its last use', () => {
    expect(copyFactsOf(image(cloned!.name, ['site-a', 'site-b']), 'site-b', cloned, undefined)).toMatchObject({
      inPool: 'yes', bytes: 1_048_576, clones: 1, trashedClones: 0, newestCloneMs: 1_795_747_030_000, lastUsedMs: 1_795_747_030_000, locations: 2 });
  });

  it('a copy whose only clone is in the trash still has a clone; a read after it is the last use', () => {
    expect(copyFactsOf(image(trashedOnly!.name, ['site-a', 'site-b']), 'site-b', trashedOnly, undefined)).toMatchObject({
      clones: 1, trashedClones: 1, newestCloneMs: 1_795_746_594_000, accessedMs: 1_795_746_672_000, lastUsedMs: 1_795_746_672_000 });
  });

  it('an import holding the lock, or writing somewhere, makes it importing', () => {
    expect(copyFactsOf(image('x', ['site-b'], { os_glance_import_task: 't1' }), 'site-b', undefined, undefined)).toMatchObject({ importing: true,
      inPool: 'absent', bytes: 0 });
    expect(copyFactsOf(image('x', ['site-b'], { os_glance_importing_to_stores: 'site-c' }), 'site-b', undefined, undefined).importing).toBe(true);
  });

  it('storeUsageOf: the copies Glance lists in the store joined with the pool; what no copy claims is other bytes', () => {
    const images = [image(cloned!.name, ['site-a', 'site-b']), image('not-in-pool', ['site-a', 'site-b']), image('elsewhere', ['site-a'])];
    const usage = storeUsageOf('site-b', images, listing);
    expect(usage.copies.map((copy) => [copy.imageId, copy.inPool, copy.bytes])).toEqual([[cloned!.name, 'yes', 1_048_576], ['not-in-pool', 'absent', 0]]);
    expect(usage).toMatchObject({ pool: 'images', poolBytes: 1_048_576 + 4_194_304, otherBytes: 4_194_304, trashBytes: 0,
      capacity: { quotaBytes: undefined, poolBytes: undefined, clusterBytes: undefined } });
  });
});

describe('rbdImageOf / fleetUsageOf: the join of a location with the pool, whatever the URL says', () => {
  const withLocations = (id: string, stores: string[], urls: string[]) => parseImage({ ...imageBody({ stores }), id,
    locations: urls.map((url, i) => ({ url, metadata: { store: stores[i] } })) });
  const ID = '11111111-2222-4333-8444-555555555555';
  it.each([
    { what: 'glance_store\'s form names the image itself', url: `rbd://${FSID_B}/images/${ID}/snap`, name: ID },
    { what: 'another image named in the URL is that image', url: `rbd://${FSID_B}/images/other-${ID}/snap`, name: `other-${ID}` },
    { what: 'a longer name that starts with the id is not the id', url: `rbd://${FSID_B}/images/${ID}x/snap`, name: `${ID}x` },
    { what: 'percent-encoded: decoded as parseRbdLocation does', url: `rbd://${FSID_B}/images/${ID.slice(0, 8)}%2D${ID.slice(9)}/snap`, name: ID },
    { what: 'five pieces: no RBD location, the id', url: `rbd://${FSID_B}/images/x/${ID}/snap`, name: ID },
    { what: 'no snapshot: no RBD location, the id', url: `rbd://${FSID_B}/images/${ID}/`, name: ID },
    { what: 'not rbd at all: the id', url: `file:///var/lib/glance/images/${ID}`, name: ID },
  ])('$what', ({ url, name }) => {
    const image = withLocations(ID, ['site-a', 'site-b'], [`file:///var/lib/glance/images/${ID}`, url]);
    expect(rbdImageOf(image, 'site-b')).toBe(name);
    expect(rbdImageOf(image, 'site-b', 1)).toBe(name);
  });

  it('locations in another order than `stores`: found all the same, whatever index is looked at first', () => {
    const image = withLocations(ID, ['site-b', 'site-a'], [`rbd://${FSID_B}/images/b-${ID}/snap`, `rbd://${FSID_B}/images/a-${ID}/snap`]);
    expect([rbdImageOf(image, 'site-a', 0), rbdImageOf(image, 'site-a', 1), rbdImageOf(image, 'site-a'), rbdImageOf(image, 'site-c', 0)])
      .toEqual([`a-${ID}`, `a-${ID}`, `a-${ID}`, ID]);
  });

  it('a store named twice in `stores` is one copy; each store gets the images that name it, in listing order', () => {
    const listing = parsePoolListing(readFileSync('fixtures/rbd/store-listing-site-b.json', 'utf8'), 'recorded');
    const twice = parseImage({ ...imageBody({ stores: ['site-b'] }), id: 'twice', stores: 'site-b, site-b' });
    const images = [twice, parseImage({ ...imageBody({ stores: ['site-a'] }), id: 'a-only' }), parseImage({ ...imageBody({ stores: ['site-a', 'site-b'] }), id: 'both' })];
    const usage = fleetUsageOf(images, new Map([['site-b', listing], ['site-a', listing]]), () => NO_PINS);
    expect([...usage].map(([store, { copies }]) => [store, copies.map((copy) => copy.imageId)]))
      .toEqual([['site-b', ['twice', 'both']], ['site-a', ['a-only', 'both']]]);
  });
});

describe('a store Glance names twice', () => {
  it('is one location: the image\'s only copy is its last one, and stays', () => {
    // The recorded listing's first copy, its clone gone.
    const recorded = JSON.parse(readFileSync('fixtures/rbd/store-listing-site-b.json', 'utf8')) as { images: { name: string; children: unknown[] }[] };
    const [first] = recorded.images;
    const listing = parsePoolListing(JSON.stringify({ ...recorded, images: [{ ...first, children: [] }] }), 'recorded');
    const id = first?.name ?? '';
    const twice = parseImage({ ...imageBody({ stores: ['site-b'] }), id, stores: 'site-b, site-b,site-b',
      locations: [{ url: `rbd://${FSID_B}/images/${id}/snap`, metadata: { store: 'site-b' } }] });
    expect(twice.stores).toEqual(['site-b']);
    const [copy] = storeUsageOf('site-b', [twice], listing).copies;
    expect(copy?.locations).toBe(1);
    expect(copy === undefined ? undefined : keepReason(copy, { idleMs: 0, wallNowMs: NOW, run: 'r' })?.reason).toBe('last-copy');
  });
});

describe('judgeLastLook', () => {
  const ours = { run: 'run-1', recheckAtMs: NOW - 1_000, by: 'h' };
  const look = (overrides: Parameters<typeof facts>[0]) => judgeLastLook(facts(overrides), { run: 'run-1', idleMs: DAY, wallNowMs: NOW,
    removeOwners: new Set([OWNER]) });
  it.each([
    { why: 'nothing changed, our fence holds → remove', copy: { imageId: 'a', fence: ours }, verdict: 'remove', reason: undefined },
    { why: 'a clone appeared during the grace → keep', copy: { imageId: 'a', fence: ours, clones: 1 }, verdict: 'keep', reason: 'in-use' },
    { why: 'a clone appeared and went to the trash → keep', copy: { imageId: 'a', fence: ours, clones: 1, trashedClones: 1 }, verdict: 'keep', reason: 'in-use' },
    { why: 'an import started → keep', copy: { imageId: 'a', fence: ours, importing: true }, verdict: 'keep', reason: 'importing' },
    { why: 'its other location went meanwhile → keep the last', copy: { imageId: 'a', fence: ours, locations: 1 }, verdict: 'keep', reason: 'last-copy' },
    { why: 'read during the grace (not idle any more) → keep', copy: { imageId: 'a', fence: ours, lastUsedMs: NOW - 5_000 }, verdict: 'keep', reason: 'not-idle' },
    { why: 'our fence is gone → keep', copy: { imageId: 'a' }, verdict: 'keep', reason: 'fenced' },
    { why: 'another run\'s fence replaced ours → keep', copy: { imageId: 'a', fence: { ...ours, run: 'run-2' } }, verdict: 'keep', reason: 'fenced' },
    { why: 'past the removal deadline → keep for the next run', copy: { imageId: 'a', fence: { ...ours, recheckAtMs: NOW - FENCE_HOLD_MS } },
      verdict: 'keep', reason: 'fenced' },
    { why: 'its image changed owner since the plan (another project\'s now) → keep, no DELETE', copy: { imageId: 'a', fence: ours, owner: 'tenant' },
      verdict: 'keep', reason: 'not-owned' },
  ] as const)('$why', ({ copy, verdict, reason }) => {
    const judged = look(copy);
    expect(judged.verdict).toBe(verdict);
    expect(judged.verdict === 'keep' ? judged.reason : undefined).toBe(reason);
  });
});
