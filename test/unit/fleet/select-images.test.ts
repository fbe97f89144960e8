import { describe, expect, it } from 'vitest';
import { assertSelection, describeSelection, parsePropertyFilters } from '../../../src/fleet/prewarm-selection.js';
import { selectImages } from '../../../src/fleet/select-images.js';
import { readStoreCatalogue, requireStores } from '../../../src/fleet/store-catalogue.js';
import { imageId, scriptedImages, type ImageScript } from '../prewarm/scripted-images.js';

const scripts: Record<string, ImageScript> = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [imageId(i + 1), {
  name: `img-${i + 1}`, reads: [{ stores: ['central'] }], tags: i % 2 === 0 ? ['golden'] : [], properties: { os_distro: i < 3 ? 'ubuntu' : 'debian' },
}]));

describe('assertSelection', () => {
  it.each([
    { selection: {}, message: /no images selected/ },
    { selection: { images: ['a'], tag: 'golden' }, message: /more than one way \(IMAGE arguments, --tag\/--property\)/ },
    { selection: { all: true, properties: { a: 'b' } }, message: /more than one way/ },
    { selection: { images: ['a'], visibility: 'public' }, message: /--visibility filters a listing/ },
    { selection: { all: true, visibility: 'everyone' }, message: /--visibility must be one of public, private, shared, community, all/ },
  ])('assertSelection: refuses $message', ({ selection, message }) => {
    expect(() => assertSelection(selection)).toThrow(message);
  });

  it('assertSelection: tag and properties combine', () => {
    expect(() => assertSelection({ tag: 'golden', properties: { os_distro: 'ubuntu' }, visibility: 'public' })).not.toThrow();
  });

  it.each([
    { values: ['os_distro=ubuntu', 'hw_arch=x86_64'], expected: { os_distro: 'ubuntu', hw_arch: 'x86_64' } },
    { values: ['note=a=b'], expected: { note: 'a=b' } },
  ])('parsePropertyFilters($values)', ({ values, expected }) => {
    expect(parsePropertyFilters(values)).toEqual(expected);
  });

  it.each(['novalue=', '=v', 'plain'])('parsePropertyFilters: refuses %s', (value) => {
    expect(() => parsePropertyFilters([value])).toThrow(/--property must be key=value/);
  });

  it.each([
    { selection: { images: ['a', 'b'] }, text: '2 named images' },
    { selection: { all: true, visibility: 'public' }, text: 'every image (visibility public)' },
    { selection: { tag: 'golden', properties: { os_distro: 'ubuntu' } }, text: 'tag golden, os_distro=ubuntu' },
  ])('describeSelection: $text', ({ selection, text }) => {
    expect(describeSelection(selection)).toBe(text);
  });
});

describe('selectImages', () => {
  it('selectImages: --all pages through the listing with the last id as marker', async () => {
    const glance = scriptedImages(scripts, { pageSize: 3 });
    const selected = await selectImages(glance, { all: true, visibility: 'all' }, { pageSize: 3 });
    expect(selected.images.map((i) => i.name)).toEqual(['img-1', 'img-2', 'img-3', 'img-4', 'img-5', 'img-6', 'img-7']);
    expect(glance.listQueries.map((q) => q.marker)).toEqual([undefined, imageId(3), imageId(6)]);
    expect(glance.listQueries[0]).toMatchObject({ limit: 3, visibility: 'all' });
  });

  it('selectImages: tag and property filters go to Glance as list filters', async () => {
    const glance = scriptedImages(scripts);
    const selected = await selectImages(glance, { tag: 'golden', properties: { os_distro: 'ubuntu' } });
    expect(selected.images.map((i) => i.name)).toEqual(['img-1', 'img-3']);
    expect(glance.listQueries[0]).toMatchObject({ tag: 'golden', filters: { os_distro: 'ubuntu' } });
  });

  it('selectImages: named images keep their order, appear once, and unknown names are reported, not thrown', async () => {
    const glance = scriptedImages(scripts);
    const selected = await selectImages(glance, { images: ['img-4', imageId(1), 'nosuch', 'img-4', '3f1c2a9e-5b7d'] });
    expect(selected.images.map((i) => i.name)).toEqual(['img-4', 'img-1']);
    expect(selected.unresolved.map((u) => [u.ref, u.code])).toEqual([['nosuch', 'FERRY_IMAGE_NOT_FOUND'], ['3f1c2a9e-5b7d', 'FERRY_INVALID_IMAGE_REF']]);
    // the ID is read with the IDs' listing, not one GET of its own
    expect(glance.listQueries.map((q) => q.filters)).toEqual([{ id: `in:${imageId(1)}` }]);
  });

  it('selectImages: a listing larger than the cap is refused', async () => {
    const glance = scriptedImages(scripts, { pageSize: 3 });
    await expect(selectImages(glance, { all: true }, { pageSize: 3, maxImages: 5 })).rejects.toMatchObject({ code: 'FERRY_INVALID_OPTION' });
  });
});

describe('readStoreCatalogue', () => {
  it('readStoreCatalogue: store types from /v2/info/stores/detail for an admin', async () => {
    const catalogue = await readStoreCatalogue(scriptedImages({}));
    expect(catalogue.typesKnown).toBe(true);
    expect(catalogue.stores.map((s) => [s.id, s.type])).toEqual([['central', 'file'], ['site-a', 'rbd'], ['site-b', 'rbd'], ['broken', 'file']]);
  });

  it('readStoreCatalogue: falls back to /v2/info/stores when detail is forbidden; types unknown', async () => {
    const catalogue = await readStoreCatalogue(scriptedImages({}, { detailForbidden: true }));
    expect(catalogue.typesKnown).toBe(false);
    expect(catalogue.stores.map((s) => s.type)).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('requireStores: de-duplicates in order and refuses unknown stores naming the known ones', async () => {
    const catalogue = await readStoreCatalogue(scriptedImages({}));
    expect(requireStores(catalogue, ['site-b', 'site-a', 'site-b']).map((s) => s.id)).toEqual(['site-b', 'site-a']);
    expect(() => requireStores(catalogue, ['site-a', 'edge9'])).toThrow(/Glance has no store 'edge9'/);
    expect(() => requireStores(catalogue, [])).toThrow(/no target store/);
  });
});
