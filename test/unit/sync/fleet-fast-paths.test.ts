import { describe, expect, it } from 'vitest';
import { rbdImageNameOf } from '../../../src/fleet/copy-facts.js';
import { fitImageWire } from '../../../src/glance/fit-image-wire.js';
import { parseImage } from '../../../src/glance/image.js';
import { imageWire } from '../../../src/glance/image-schema.js';
import { fitPoolEntry } from '../../../src/rbd/fit-pool-entry.js';
import { parseRbdLocation } from '../../../src/rbd/parse-rbd-location.js';
import { parsePoolListing } from '../../../src/rbd/store-copy-listing.js';
import { imageBody } from '../../helpers/image-body.js';

// The hand checks a fleet's plan reads through (issue 28) accept only what the schemas accept, read what they read,
// and leave every message to the schema; the equivalence of whole plans is fleet-plan-equivalence.test.ts.

describe('rbdImageNameOf: parseRbdLocation\'s image, without its arrays', () => {
  it.each([
    'rbd://fsid/images/id/snap', 'rbd://fsid/images/id/snap/', 'rbd://fsid/images/id', 'rbd://fsid/images//snap', 'rbd:///images/id/snap',
    'rbd://fsid/images/id/snap/more', 'rbd://fsid/images/a%2Fb/snap', 'rbd://fsid/images/%41/snap', 'RBD://fsid/images/id/snap',
    'file:///var/lib/glance/images/id', 'rbd://', 'rbd://a/b/c/d', 'rbd://fsid//id/snap', 'rbd://fsid/images/id//',
  ])('%s', (url) => {
    const parsed = parseRbdLocation(url);
    expect(rbdImageNameOf(url)).toBe(parsed.ok ? parsed.location.image : undefined);
  });
});

describe('fitImageWire: the schema\'s verdict, by hand', () => {
  const body = imageBody({ stores: ['site-a', 'site-b'] });
  it.each<[string, Record<string, unknown>]>([
    ['a recorded body', body],
    ['no locations, null name and size', { ...body, locations: undefined, name: null, size: null }],
    ['stores as a real list', { ...body, stores: ['site-a'] }],
    ['status a number', { ...body, status: 3 }],
    ['a location without url', { ...body, locations: [{ metadata: { store: 'site-a' } }] }],
    ['metadata a string', { ...body, locations: [{ url: 'rbd://a/b/c/d', metadata: 'x' }] }],
    ['a tag that is a number', { ...body, tags: [1] }],
    ['size Infinity', { ...body, size: Number.POSITIVE_INFINITY }],
    ['no id', { ...body, id: undefined }],
    ['stores a number', { ...body, stores: 5 }],
  ])('%s', (_name, raw) => {
    const fitted = fitImageWire(structuredClone(raw));
    expect(fitted !== undefined).toBe(imageWire.safeParse(raw).success);
  });
  it('a body that does not fit gets the schema\'s message, naming the field', () => {
    expect(() => parseImage({ ...body, status: 3 })).toThrow(/field 'status'/);
  });
  it('a body that fits gives the image zod\'s parse gave, keys in Glance\'s order', () => {
    const image = parseImage(structuredClone(body));
    expect(image.raw).toEqual(imageWire.parse(body));
    expect(Object.keys(image.raw)).toEqual(Object.keys(body).filter((key) => body[key] !== undefined));
    expect(Object.isFrozen(image.raw)).toBe(true);
  });
});

describe('fitPoolEntry: the listing schema\'s verdict, by hand', () => {
  const copy = { name: 'img', id: 'abc', size: 10, used: null, created: 1, accessed: null, modified: 2, protected: true,
    children: [{ pool: 'vms', namespace: '', image: 'vm', id: 'c', trash: false, created: 3 }], meta: { 'ferry.evicting': 'x' } };
  const listing = (entries: unknown[]): string => JSON.stringify({ pool: 'images', snapshot: 'snap', quota_bytes: null, capacity: null, images: entries, trash: [] });
  it.each<[string, unknown, boolean]>([
    ['a copy', copy, true],
    ['absent, trashed', { name: 'x', absent: true, trashed: { id: 't', deleted: 5 } }, true],
    ['unreadable', { name: null, error: 'EPERM', errno: 1 }, true],
    ['size negative', { ...copy, size: -1 }, false],
    ['used missing', { ...copy, used: undefined }, false],
    ['a mark that is a number', { ...copy, meta: { a: 1 } }, false],
    ['a clone without trash', { ...copy, children: [{ pool: 'vms', namespace: '', image: 'vm', id: 'c', created: 3 }] }, false],
    ['errno 1.5', { name: 'x', error: 'e', errno: 1.5 }, false],
  ])('%s', (_name, entry, fits) => {
    expect(fitPoolEntry(entry) !== undefined).toBe(fits);
  });
  it('an entry that does not fit gets the schema\'s message', () => {
    expect(() => parsePoolListing(listing([copy, { ...copy, size: -1 }]), 'rbd_store_copies list images')).toThrow(/images\.1\.size/);
  });
  it('a copy reads as the schema path read it: seconds as ms, no clones and no marks shared', () => {
    const [entry] = parsePoolListing(listing([copy]), 'list').images;
    expect(entry).toEqual({ kind: 'image', name: 'img', id: 'abc', sizeBytes: 10, usedBytes: undefined, createdMs: 1000, accessedMs: undefined,
      protected: true, clones: [{ pool: 'vms', namespace: '', image: 'vm', id: 'c', trash: false, createdMs: 3000 }],
      meta: { 'ferry.evicting': 'x' }, trashedMs: undefined });
    const bare = parsePoolListing(listing([{ ...copy, children: [], meta: {} }, { ...copy, name: 'b', children: [], meta: {} }]), 'list').images;
    expect(bare[0]?.kind === 'image' && bare[1]?.kind === 'image' && bare[0].meta === bare[1].meta && bare[0].clones === bare[1].clones).toBe(true);
  });
  it('known names (Glance\'s ids, kept once for every pool) change nothing of what is read, a name not known included', () => {
    const text = listing([copy, { ...copy, name: 'other' }, { name: 'gone', absent: true }]);
    const known = new Map([['img', 'img'], ['gone', 'gone']]);
    expect(parsePoolListing(text, 'list', known)).toEqual(parsePoolListing(text, 'list'));
    expect(parsePoolListing(text, 'list', known).images.map((entry) => entry.name)).toEqual(['img', 'other', 'gone']);
  });
});
