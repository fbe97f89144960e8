import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseImage } from '../../../src/glance/image.js';
import type { GlanceImage } from '../../../src/glance/image.js';
import { classifyLocations } from '../../../src/rbd/classify-locations.js';

function fixtureBody(name: string): Record<string, unknown> {
  const url = new URL(`../../../fixtures/glance/${name}.json`, import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { body: Record<string, unknown> }).body;
}

// ceph-rbd.md §10: one image in two clusters; site-a is the first location and the direct_url.
const body = fixtureBody('reference-image-rbd-two-clusters');
const SITE_A = '1c8b72c6-a5a4-4acb-8aac-181c2f242f55';
const SITE_B = 'f7361058-0c4e-46a3-ac5c-987f4f577315';
const OTHER = '00000000-1111-2222-3333-444444444444';
const ID = '872abc64-2f3d-4b6e-9c41-0d5e6f7a8b9c';
const urlIn = (fsid: string, pool = 'images') => `rbd://${fsid}/${pool}/${ID}/snap`;

const image = (patch: Record<string, unknown> = {}): GlanceImage => {
  const merged: Record<string, unknown> = { ...body, ...patch };
  for (const [key, value] of Object.entries(patch)) if (value === undefined) delete merged[key];
  return parseImage(merged);
};
const loc = (url: string, store?: string) => ({ url, metadata: store === undefined ? {} : { store } });

describe('classifyLocations: the format gate comes first', () => {
  it.each([
    { diskFormat: 'qcow2' },
    { diskFormat: 'iso' },
    { diskFormat: 'vmdk' },
    { diskFormat: null },
    { diskFormat: 'RAW' },
  ])('classifyLocations: disk_format $diskFormat is not-raw even with a local location', ({ diskFormat }) => {
    expect(classifyLocations(image({ disk_format: diskFormat }), { fsid: SITE_A, store: 'site-a' })).toEqual({
      kind: 'not-raw',
      diskFormat,
    });
  });

  it('classifyLocations: not-raw wins over hidden locations', () => {
    const hidden = image({ disk_format: 'qcow2', locations: undefined, direct_url: undefined });
    expect(classifyLocations(hidden, { fsid: SITE_A })).toEqual({ kind: 'not-raw', diskFormat: 'qcow2' });
  });
});

describe('classifyLocations: two clusters (reference data)', () => {
  it.each([
    { name: 'site-a picks its own location', fsid: SITE_A, store: 'site-a', url: urlIn(SITE_A) },
    { name: 'site-b picks its own location, not the first', fsid: SITE_B, store: 'site-b', url: urlIn(SITE_B) },
    { name: 'without a store name the first local one wins', fsid: SITE_B, store: undefined, url: urlIn(SITE_B) },
    { name: 'fsids compare case-insensitively', fsid: SITE_B.toUpperCase(), store: 'site-b', url: urlIn(SITE_B) },
  ])('classifyLocations: $name', ({ fsid, store, url }) => {
    const result = classifyLocations(image(), { fsid, ...(store === undefined ? {} : { store }) });
    expect(result).toMatchObject({ kind: 'clonable', target: { pool: 'images', image: ID, snapshot: 'snap', url } });
  });

  it('classifyLocations: the clone target and the why of the preferred location', () => {
    const result = classifyLocations(image(), { fsid: SITE_B, store: 'site-b' });
    expect(result).toMatchObject({
      kind: 'clonable',
      target: { fsid: SITE_B, pool: 'images', image: ID, snapshot: 'snap', url: urlIn(SITE_B) },
      location: { url: urlIn(SITE_B), store: 'site-b' },
      why: `location 2 of 2 (store 'site-b') is tagged with our store and lies in pool 'images' of our cluster ${SITE_B}`,
    });
  });

  it('classifyLocations: a third cluster gets no-local-location with a verdict per location', () => {
    const result = classifyLocations(image(), { fsid: OTHER, store: 'site-c' });
    expect(result).toEqual({
      kind: 'no-local-location',
      complete: true,
      verdicts: [
        {
          index: 0,
          url: urlIn(SITE_A),
          store: 'site-a',
          source: 'locations',
          verdict: 'other-cluster',
          reason: `in cluster ${SITE_A}, not ours (${OTHER})`,
          parsed: { fsid: SITE_A, pool: 'images', image: ID, snapshot: 'snap' },
          problem: undefined,
        },
        {
          index: 1,
          url: urlIn(SITE_B),
          store: 'site-b',
          source: 'locations',
          verdict: 'other-cluster',
          reason: `in cluster ${SITE_B}, not ours (${OTHER})`,
          parsed: { fsid: SITE_B, pool: 'images', image: ID, snapshot: 'snap' },
          problem: undefined,
        },
      ],
    });
  });

  it('classifyLocations: a location tagged with our store in another cluster says something is misconfigured', () => {
    const result = classifyLocations(image(), { fsid: OTHER, store: 'site-a' });
    expect(result).toMatchObject({
      kind: 'no-local-location',
      verdicts: [{ verdict: 'other-cluster', reason: expect.stringContaining('misconfigured') }, { verdict: 'other-cluster' }],
    });
  });
});

describe('classifyLocations: preference and order', () => {
  it('classifyLocations: another store in our cluster (other pool) is used when ours is absent, and why says so', () => {
    const img = image({
      locations: [loc(urlIn(SITE_B), 'site-b'), loc(urlIn(SITE_A, 'images-ssd'), 'site-a-ssd')],
      direct_url: undefined,
    });
    const result = classifyLocations(img, { fsid: SITE_A, store: 'site-a' });
    expect(result).toMatchObject({
      kind: 'clonable',
      target: { pool: 'images-ssd' },
      why: `location 2 of 2 (store 'site-a-ssd') is the first clonable one: it lies in pool 'images-ssd' of our cluster ${SITE_A}; no clonable location is tagged with our store 'site-a'`,
    });
  });

  it('classifyLocations: our store wins over an earlier clonable location of another store', () => {
    const img = image({ locations: [loc(urlIn(SITE_A, 'pool1'), 'other'), loc(urlIn(SITE_A, 'pool2'), 'site-a')] });
    expect(classifyLocations(img, { fsid: SITE_A, store: 'site-a' })).toMatchObject({ target: { pool: 'pool2' } });
  });

  it('classifyLocations: store names compare whole (site-a does not prefer site-a-ssd)', () => {
    const img = image({ locations: [loc(urlIn(SITE_A, 'pool1'), 'site-a-ssd'), loc(urlIn(SITE_A, 'pool2'), 'site')] });
    expect(classifyLocations(img, { fsid: SITE_A, store: 'site' })).toMatchObject({ target: { pool: 'pool2' } });
  });
});

describe('classifyLocations: pool allow-list', () => {
  it.each([
    { allow: ['images'], kind: 'clonable' },
    { allow: ['vms', 'images'], kind: 'clonable' },
    { allow: [], kind: 'clonable' },
    { allow: ['vms'], kind: 'no-local-location' },
    { allow: ['Images'], kind: 'no-local-location' },
  ])('classifyLocations: allow-list $allow → $kind', ({ allow, kind }) => {
    expect(classifyLocations(image(), { fsid: SITE_A, poolAllowList: allow })).toMatchObject({ kind });
  });

  it('classifyLocations: pool-not-allowed names the pool and the list', () => {
    const result = classifyLocations(image(), { fsid: SITE_A, poolAllowList: ['vms'] });
    expect(result).toMatchObject({
      kind: 'no-local-location',
      verdicts: [
        { verdict: 'pool-not-allowed', reason: "in our cluster, but pool 'images' is not one of the allowed pools (vms)" },
        { verdict: 'other-cluster' },
      ],
    });
  });
});

describe('classifyLocations: hidden locations and direct_url', () => {
  it('classifyLocations: neither locations nor direct_url → locations-hidden', () => {
    expect(classifyLocations(image({ locations: undefined, direct_url: undefined }), { fsid: SITE_A })).toEqual({
      kind: 'locations-hidden',
    });
  });

  it('classifyLocations: direct_url only, in our cluster → clonable from it', () => {
    const result = classifyLocations(image({ locations: undefined }), { fsid: SITE_A, store: 'site-a' });
    expect(result).toMatchObject({
      kind: 'clonable',
      target: { url: urlIn(SITE_A) },
      location: { url: urlIn(SITE_A), store: undefined, metadata: {} },
      why: expect.stringMatching(/^direct_url \(Glance hides the location list\) is the first clonable one/),
    });
  });

  it('classifyLocations: direct_url only, another cluster → no-local-location, incomplete', () => {
    const result = classifyLocations(image({ locations: undefined }), { fsid: SITE_B, store: 'site-b' });
    expect(result).toMatchObject({
      kind: 'no-local-location',
      complete: false,
      verdicts: [{ source: 'direct_url', verdict: 'other-cluster' }],
    });
  });

  it('classifyLocations: direct_url equal to a listed location is not judged twice', () => {
    const result = classifyLocations(image(), { fsid: OTHER });
    expect(result).toMatchObject({ kind: 'no-local-location' });
    expect(result.kind === 'no-local-location' && result.verdicts.length).toBe(2);
  });

  it('classifyLocations: a direct_url absent from the list is appended, as nova does', () => {
    const img = image({ locations: [loc(urlIn(SITE_B), 'site-b')], direct_url: urlIn(SITE_A) });
    expect(classifyLocations(img, { fsid: SITE_A })).toMatchObject({
      kind: 'clonable',
      target: { fsid: SITE_A },
      verdicts: [{ source: 'locations', verdict: 'other-cluster' }, { source: 'direct_url', verdict: 'clonable', index: 1 }],
    });
  });

  it('classifyLocations: an empty location list (no data yet) is no-local-location, complete', () => {
    expect(classifyLocations(image({ locations: [], direct_url: undefined }), { fsid: SITE_A })).toEqual({
      kind: 'no-local-location',
      verdicts: [],
      complete: true,
    });
  });
});

describe('classifyLocations: unparsable locations', () => {
  it.each([
    { url: 'file:///srv/glance/stores/central/x', problem: 'not-rbd' },
    { url: `rbd://${ID}`, problem: 'not-snapshot' },
    { url: `rbd://${SITE_A}/images/${ID}/snap/`, problem: 'blank-components' },
    { url: 'http://example.org/cirros.img', problem: 'not-rbd' },
  ])('classifyLocations: $url is unparsable ($problem) and skipped', ({ url, problem }) => {
    const img = image({ locations: [loc(url, 'central'), loc(urlIn(SITE_A), 'site-a')], direct_url: undefined });
    const result = classifyLocations(img, { fsid: SITE_A });
    expect(result).toMatchObject({
      kind: 'clonable',
      target: { url: urlIn(SITE_A) },
      verdicts: [{ verdict: 'unparsable', problem, parsed: undefined }, { verdict: 'clonable' }],
    });
  });

  it('classifyLocations: a file-store-only image has no local location', () => {
    const img = parseImage(fixtureBody('reference-image-file-location'));
    expect(classifyLocations(img, { fsid: SITE_A })).toMatchObject({
      kind: 'no-local-location',
      complete: true,
      verdicts: [{ verdict: 'unparsable', problem: 'not-rbd', store: 'central' }],
    });
  });

  it('classifyLocations: a percent-encoded pool is decoded into the clone target, the url kept as stored', () => {
    const url = `rbd://${SITE_A}/my%2Fpool/${ID}/snap`;
    const result = classifyLocations(image({ locations: [loc(url, 'site-a')], direct_url: undefined }), { fsid: SITE_A });
    expect(result).toMatchObject({ kind: 'clonable', target: { pool: 'my/pool', url } });
  });
});

describe('classifyLocations: recorded dev-cloud image after a copy to site-b', () => {
  const recorded = parseImage(fixtureBody('image-after-copy'));
  // Ids and fsids come from the recording itself: re-recording on a new dev cloud changes them.
  const fsidOf = (store: string): string => /^rbd:\/\/([^/]+)\//.exec(recorded.locations?.find((l) => l.store === store)?.url ?? '')?.[1] ?? '';
  const REC_A = fsidOf('site-a');
  const REC_B = fsidOf('site-b');
  const REC_ID = recorded.id;

  it.each([
    { site: 'site-a', fsid: REC_A },
    { site: 'site-b', fsid: REC_B },
  ])('classifyLocations: $site clones its own copy', ({ site, fsid }) => {
    expect(classifyLocations(recorded, { fsid, store: site })).toMatchObject({
      kind: 'clonable',
      target: { fsid, pool: 'images', image: REC_ID, snapshot: 'snap', url: `rbd://${fsid}/images/${REC_ID}/snap` },
      location: { store: site },
    });
  });

  it('classifyLocations: the same image before the copy has no location in site-b', () => {
    const before = parseImage(fixtureBody('image-active-site-a'));
    expect(classifyLocations(before, { fsid: REC_B, store: 'site-b' })).toMatchObject({
      kind: 'no-local-location',
      complete: true,
      verdicts: [{ store: 'site-a', verdict: 'other-cluster' }],
    });
  });
});
