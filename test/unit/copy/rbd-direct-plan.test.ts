import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  directCopySlotKeys, expectedHash, glanceWritesStore, judgeReadBack, planRbdSources, sourceCandidateProblem, storeBlockedBy, targetPoolOf, temporaryImageName,
  type ExpectedHash,
} from '../../../src/copy/transfer/rbd-direct-plan.js';
import { parseStoresInfo } from '../../../src/glance/image-store-info.js';
import { parseImage } from '../../../src/glance/image.js';

// A real image read from the dev cloud's Glance (site-a only), and the same image with a second location.
const recorded = (JSON.parse(readFileSync('fixtures/glance/image-active-site-a.json', 'utf8')) as { body: Record<string, unknown> }).body;
const siteA = parseImage(recorded);
const FSID_B = 'f7361058-0c4e-46a3-ac5c-987f4f577315';
const twoSites = parseImage({ ...recorded, stores: 'site-a,site-b',
  locations: [...(recorded.locations as unknown[]), { url: `rbd://${FSID_B}/images/${siteA.id}/snap`, metadata: { store: 'site-b' } }] });
const A = { confFile: '/etc/ceph/a.conf', user: 'reader' };
const B = { confFile: '/etc/ceph/b.conf', user: undefined };

describe('planRbdSources', () => {
  it.each([
    { name: 'the one location in a named cluster', image: siteA, sources: { 'site-a': A }, target: 'site-b', expected: ['site-a'] },
    { name: 'no cluster named for the image\'s store', image: siteA, sources: { 'site-c': A }, target: 'site-b', expected: [] },
    { name: 'nothing named at all', image: siteA, sources: {}, target: 'site-b', expected: [] },
    { name: 'the target store itself is never a source', image: twoSites, sources: { 'site-a': A, 'site-b': B }, target: 'site-b', expected: ['site-a'] },
    { name: 'Glance\'s location order', image: twoSites, sources: { 'site-a': A, 'site-b': B }, target: 'site-c', expected: ['site-a', 'site-b'] },
    { name: 'locations hidden', image: parseImage({ ...recorded, locations: undefined }), sources: { 'site-a': A }, target: 'site-b', expected: [] },
  ])('planRbdSources: $name', ({ image, sources, target, expected }) => {
    const planned = planRbdSources(image, new Map(Object.entries(sources)), target);
    expect(planned.map((candidate) => candidate.store)).toEqual(expected);
  });

  it('planRbdSources: the source carries the parsed location and its cluster', () => {
    const [first] = planRbdSources(siteA, new Map([['site-a', A]]), 'site-b');
    expect(first).toEqual({ store: 'site-a', cluster: A,
      location: { fsid: 'e5b8a1bd-d1b4-4749-8e33-9521a944a5ea', pool: 'images', image: siteA.id, snapshot: 'snap' } });
  });
});

describe('directCopySlotKeys', () => {
  const location = (fsid: string) => ({ location: { fsid, pool: 'images', image: siteA.id, snapshot: 'snap' } });
  it('a batch takes its source cluster and each target store', () => {
    expect(directCopySlotKeys(location(FSID_B), ['site-a', 'site-c'])).toEqual([`source:${FSID_B}`, 'target:site-a', 'target:site-c']);
  });

  it('two source stores of one cluster (site-b and site-c of the dev cloud) are one source key; fsids compare without case', () => {
    const [fromB] = directCopySlotKeys(location(FSID_B), ['site-a']);
    const [fromC] = directCopySlotKeys({ location: { fsid: FSID_B.toUpperCase(), pool: 'images-c', image: siteA.id, snapshot: 'snap' } }, ['site-a']);
    expect(fromC).toBe(fromB);
    expect(directCopySlotKeys(location('e5b8a1bd-d1b4-4749-8e33-9521a944a5ea'), ['site-a'])[0]).not.toBe(fromB);
  });
});

describe('expectedHash', () => {
  it.each([
    { name: 'os_hash_value with a known algorithm', raw: {}, expected: { algorithm: 'sha512', field: 'os_hash_value' } },
    { name: 'an algorithm this Node lacks: the checksum', raw: { os_hash_algo: 'blake9' }, expected: { algorithm: 'md5', field: 'checksum', value: '534012fa0c821e18b245ff695d363a84' } },
    { name: 'no os_hash_value: the checksum', raw: { os_hash_value: null }, expected: { algorithm: 'md5', field: 'checksum' } },
    { name: 'neither: cannot be proven', raw: { os_hash_value: null, checksum: null }, expected: undefined },
  ])('expectedHash: $name', ({ raw, expected }) => {
    const hash = expectedHash({ raw: { ...recorded, ...raw } });
    if (expected === undefined) expect(hash).toBeUndefined();
    else expect(hash).toMatchObject(expected);
  });
});

const SHA: ExpectedHash = { algorithm: 'sha512', value: 'ab'.repeat(64), field: 'os_hash_value' };

describe('judgeReadBack', () => {
  it.each([
    { name: 'same digest and size', actual: { digest: 'AB'.repeat(64), bytes: 4096 }, size: 4096, kind: 'match' },
    { name: 'size unknown to Glance: the digest decides', actual: { digest: 'ab'.repeat(64), bytes: 4096 }, size: null, kind: 'match' },
    { name: 'short read', actual: { digest: 'ab'.repeat(64), bytes: 4095 }, size: 4096, kind: 'mismatch' },
    { name: 'other digest', actual: { digest: 'cd'.repeat(64), bytes: 4096 }, size: 4096, kind: 'mismatch' },
  ])('judgeReadBack: $name', ({ actual, size, kind }) => {
    expect(judgeReadBack(SHA, actual, size).kind).toBe(kind);
  });
});

describe('glanceWritesStore, storeBlockedBy, names', () => {
  it.each([
    { name: 'no lock', image: { importTask: undefined, importingTo: [], stores: ['site-a'] }, writes: false },
    { name: 'a lock writing our store', image: { importTask: 't', importingTo: ['site-b'], stores: ['site-a'] }, writes: true },
    { name: 'a lock whose stores are not known yet', image: { importTask: 't', importingTo: [], stores: ['site-a'] }, writes: true },
    { name: 'a lock writing another store only', image: { importTask: 't', importingTo: ['site-c'], stores: ['site-a'] }, writes: false },
    { name: 'our store already there', image: { importTask: 't', importingTo: [], stores: ['site-a', 'site-b'] }, writes: false },
  ])('glanceWritesStore: $name', ({ image, writes }) => {
    expect(glanceWritesStore(image, 'site-b')).toBe(writes);
  });

  it.each([
    { name: 'our store there', image: { importTask: undefined, importingTo: [], stores: ['site-a', 'site-b'] }, ignored: undefined, by: 'present' },
    { name: 'Glance writes it', image: { importTask: 't', importingTo: ['site-b'], stores: ['site-a'] }, ignored: undefined, by: 'busy' },
    { name: 'Glance writes it, but under the expired lock this round ignores', image: { importTask: 't', importingTo: ['site-b'], stores: ['site-a'] },
      ignored: 't', by: undefined },
    { name: 'nothing in the way', image: { importTask: undefined, importingTo: [], stores: ['site-a'] }, ignored: undefined, by: undefined },
  ])('storeBlockedBy: $name', ({ image, ignored, by }) => {
    expect(storeBlockedBy(image, 'site-b', ignored)).toBe(by);
  });

  it('temporaryImageName: fixed per image, never the image id itself', () => {
    expect(temporaryImageName(siteA.id)).toBe(`${siteA.id}.ferry-partial`);
  });
});

// GET /v2/info/stores/detail as the dev cloud's Glance answered it with the third rbd store (site-c: pool images-c of
// site-b's cluster).
const storesDetail = parseStoresInfo((JSON.parse(readFileSync('fixtures/glance/info-stores-detail-site-c.json', 'utf8')) as { body: unknown }).body);

describe('targetPoolOf', () => {
  it.each([
    { store: 'site-b', expected: { kind: 'known', pool: 'images' } },
    { store: 'site-c', expected: { kind: 'known', pool: 'images-c' } },
    { store: 'central', expected: { kind: 'unknown', why: 'store central is a file store, not rbd' } },
    { store: 'site-x', expected: { kind: 'unknown', why: "Glance has no store 'site-x' (its stores: central, site-a, site-b, site-c, broken)" } },
  ])('targetPoolOf: $store → $expected.kind', ({ store, expected }) => {
    expect(targetPoolOf(storesDetail, undefined, store)).toEqual(expected);
  });

  it('targetPoolOf: /detail unread (403 for a member) → unknown, saying why', () => {
    expect(targetPoolOf(undefined, 'admin-only: 403', 'site-c')).toEqual({ kind: 'unknown', why: 'GET /v2/info/stores/detail could not be read (admin-only: 403)' });
  });

  it('targetPoolOf: a pool name rbd would read as an option → unknown, saying why', () => {
    const dashed = parseStoresInfo({ stores: [{ id: 'site-c', type: 'rbd', properties: { pool: '--log_file=/tmp/x' } }] });
    expect(targetPoolOf(dashed, undefined, 'site-c')).toEqual({ kind: 'unknown',
      why: "the pool Glance names for store site-c is not one ferry gives rbd: pool '--log_file=/tmp/x' starts with '-' (rbd would read it as an option)" });
  });

  it('targetPoolOf: an rbd store without a pool property → unknown', () => {
    const bare = parseStoresInfo({ stores: [{ id: 'site-c', type: 'rbd', properties: {} }] });
    expect(targetPoolOf(bare, undefined, 'site-c')).toEqual({ kind: 'unknown', why: 'GET /v2/info/stores/detail names no pool for store site-c' });
  });
});

describe('sourceCandidateProblem', () => {
  const at = (pool: string, image = siteA.id, snapshot = 'snap') => ({ store: 'site-a', location: { fsid: FSID_B, pool, image, snapshot } });
  it.each([
    { name: 'the store\'s own pool', candidate: at('images'), problem: undefined },
    { name: 'another pool of that cluster', candidate: at('volumes'), problem: "the location is in pool volumes, but Glance's store site-a writes pool images" },
    { name: 'a pool read as an option', candidate: at('-x'), problem: "its location is not one ferry gives rbd: pool '-x' starts with '-' (rbd would read it as an option)" },
    { name: 'an image with a newline', candidate: at('images', 'a\nb'), problem: "its location is not one ferry gives rbd: image 'a\\x0ab' contains a control character" },
    { name: 'a store Glance does not list', candidate: { ...at('images'), store: 'site-x' },
      problem: "its store's pool is not known (Glance has no store 'site-x' (its stores: central, site-a, site-b, site-c, broken))" },
  ])('sourceCandidateProblem: $name', ({ candidate, problem }) => {
    expect(sourceCandidateProblem(candidate, storesDetail)).toBe(problem);
  });
});
