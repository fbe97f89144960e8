import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseImage } from '../../../src/glance/image.js';
import { parseImportInfo } from '../../../src/glance/image-import-info.js';
import { parseImageList } from '../../../src/glance/image-list.js';
import { asUtcTimestamp } from '../../../src/glance/image-schema.js';
import { parseStoresInfo } from '../../../src/glance/image-store-info.js';
import { parseTaskList } from '../../../src/glance/image-task.js';

// Bodies recorded from the dev cloud (Glance 25.1.0, stores central:file, site-a:rbd, site-b:rbd, broken:file).
function fixtureBody(name: string): unknown {
  const url = new URL(`../../../fixtures/glance/${name}.json`, import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { body: unknown }).body;
}

// The recording's own ids: re-recording on a new dev cloud changes them, the expectations below must not.
const recordedAfterCopy = fixtureBody('image-after-copy') as { id: string; locations: { url: string; metadata: { store: string } }[] };
const fsidOf = (store: string): string =>
  /^rbd:\/\/([^/]+)\//.exec(recordedAfterCopy.locations.find((l) => l.metadata.store === store)?.url ?? '')?.[1] ?? '';
const SITE_A = fsidOf('site-a');
const SITE_B = fsidOf('site-b');
const ID = recordedAfterCopy.id;

describe('parseImage: recorded', () => {
  it('parseImage: active in site-a, never imported: no os_glance_* keys → empty lists, no lock', () => {
    const image = parseImage(fixtureBody('image-active-site-a'));
    expect(image).toMatchObject({
      id: ID,
      status: 'active',
      diskFormat: 'raw',
      size: 4194304,
      stores: ['site-a'],
      importingTo: [],
      failedImport: [],
      importTask: undefined,
      storesVisible: true,
      directUrl: `rbd://${SITE_A}/images/${ID}/snap`,
      properties: {},
    });
    expect(image.locations).toEqual([{ url: `rbd://${SITE_A}/images/${ID}/snap`, store: 'site-a', metadata: { store: 'site-a' } }]);
  });

  it('parseImage: after a copy to site-b: two locations in two clusters, empty import lists', () => {
    const image = parseImage(fixtureBody('image-after-copy'));
    expect(image.stores).toEqual(['site-a', 'site-b']);
    expect(image.importingTo).toEqual([]);
    expect(image.failedImport).toEqual([]);
    expect(image.locations?.map((l) => [l.store, l.url])).toEqual([
      ['site-a', `rbd://${SITE_A}/images/${ID}/snap`],
      ['site-b', `rbd://${SITE_B}/images/${ID}/snap`],
    ]);
  });

  it('parseImage: queued: null size, empty locations, no stores key (yet visible: no data)', () => {
    const image = parseImage(fixtureBody('image-queued'));
    expect(image).toMatchObject({ status: 'queued', size: null, stores: [], storesVisible: true, directUrl: undefined });
    expect(image.locations).toEqual([]);
  });
});

describe('parseImageList: recorded pages', () => {
  it('parseImageList: page 1 of 2 carries next', () => {
    const page = parseImageList(fixtureBody('images-list-page1'));
    expect(page.images.map((i) => i.name)).toEqual(['ferry-fixture-page-3', 'ferry-fixture-page-2']);
    expect(page.next).toBe('/v2/images?limit=2&tag=ferry-fixture-page&marker=272efd89-3556-4d28-af78-159897d1d36a');
  });

  it('parseImageList: the last page has no next', () => {
    const page = parseImageList(fixtureBody('images-list-page2'));
    expect(page.images.map((i) => i.name)).toEqual(['ferry-fixture-page-1']);
    expect(page.next).toBeUndefined();
  });
});

describe('parseTaskList: recorded', () => {
  it('parseTaskList: the copy task, with zoneless timestamps made explicit UTC', () => {
    const [task] = parseTaskList(fixtureBody('image-tasks'));
    expect(task).toMatchObject({
      id: '57a4ddc0-4206-4074-8268-1418fc91443d',
      status: 'success',
      stores: ['site-b'],
      imageId: ID,
      message: 'Copied 4 MiB',
      createdAt: '2026-11-21T19:24:48.907404Z',
      updatedAt: '2026-11-21T19:24:49.314979Z',
      expiresAt: '2026-11-23T19:24:49.313971Z',
    });
    expect(Date.parse(task?.updatedAt ?? '')).toBe(Date.UTC(2026, 10, 21, 19, 24, 49, 314));
  });

  it.each([
    { input: '2026-11-21T19:24:49.314979', output: '2026-11-21T19:24:49.314979Z' },
    { input: '2026-11-21T19:24:49', output: '2026-11-21T19:24:49Z' },
    { input: '2026-11-21T18:05:54Z', output: '2026-11-21T18:05:54Z' },
    { input: '2026-11-21T18:05:54+02:00', output: '2026-11-21T18:05:54+02:00' },
    { input: 'yesterday', output: 'yesterday' },
  ])('asUtcTimestamp($input)', ({ input, output }) => {
    expect(asUtcTimestamp(input)).toBe(output);
  });
});

describe('parseStoresInfo / parseImportInfo: recorded', () => {
  it('parseStoresInfo: four stores, central is the default', () => {
    const info = parseStoresInfo(fixtureBody('info-stores'));
    expect(info.defaultStore).toBe('central');
    expect(info.stores.map((s) => s.id)).toEqual(['central', 'site-a', 'site-b', 'broken']);
  });

  it('parseStoresInfo: detail on Glance 25 has type and pool, no fsid', () => {
    const info = parseStoresInfo(fixtureBody('info-stores-detail'), 'GET /v2/info/stores/detail');
    expect(info.stores.map(({ id, type, pool, fsid }) => ({ id, type, pool, fsid }))).toEqual([
      { id: 'central', type: 'file', pool: undefined, fsid: undefined },
      { id: 'site-a', type: 'rbd', pool: 'images', fsid: undefined },
      { id: 'site-b', type: 'rbd', pool: 'images', fsid: undefined },
      { id: 'broken', type: 'file', pool: undefined, fsid: undefined },
    ]);
  });

  it('parseImportInfo: copy-image is enabled', () => {
    expect(parseImportInfo(fixtureBody('info-import')).methods).toContain('copy-image');
  });
});
