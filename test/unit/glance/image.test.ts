import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hasStore, parseImage, parseStoreList } from '../../../src/glance/image.js';

function fixtureBody(name: string): Record<string, unknown> {
  const url = new URL(`../../../fixtures/glance/${name}.json`, import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { body: Record<string, unknown> }).body;
}

const fileImage = fixtureBody('reference-image-file-location');
const hiddenImage = fixtureBody('reference-image-locations-hidden');
const rbdImage = fixtureBody('reference-image-rbd-two-clusters');

const minimal = {
  id: '918dbaef-9ff3-4e50-8927-c4a15ff30f07',
  status: 'active',
  visibility: 'shared',
  created_at: '2026-11-21T18:01:10Z',
  updated_at: '2026-11-21T18:01:11Z',
};

describe('parseImage: recorded bodies', () => {
  it('parseImage: active image with a file location (reference §4)', () => {
    const image = parseImage(fileImage);
    expect(image).toMatchObject({
      id: '918dbaef-9ff3-4e50-8927-c4a15ff30f07',
      name: 'img50',
      status: 'active',
      diskFormat: 'raw',
      containerFormat: 'bare',
      size: 52428800,
      owner: '11111111111111111111111111111111',
      visibility: 'shared',
      stores: ['central'],
      importingTo: [],
      failedImport: [],
      importTask: undefined,
      storesVisible: true,
      tags: [],
      properties: {},
      directUrl: 'file:///srv/glance/stores/central/918dbaef-9ff3-4e50-8927-c4a15ff30f07',
    });
    expect(image.locations).toEqual([
      {
        url: 'file:///srv/glance/stores/central/918dbaef-9ff3-4e50-8927-c4a15ff30f07',
        store: 'central',
        metadata: { store: 'central' },
      },
    ]);
    expect(image.raw['checksum']).toBe('d9a1e5e8b755591e5a5bfa04504319df');
  });

  it('parseImage: locations hidden after a copy: stores kept in location order, locations undefined', () => {
    const image = parseImage(hiddenImage);
    expect(image.stores).toEqual(['edge2', 'central']);
    expect(image.locations).toBeUndefined();
    expect(image.directUrl).toBeUndefined();
    expect(image.importingTo).toEqual([]);
    expect(image.failedImport).toEqual([]);
  });

  it('parseImage: rbd image in two clusters keeps both locations and only additional properties', () => {
    const image = parseImage(rbdImage);
    expect(image.locations?.map((l) => l.store)).toEqual(['site-a', 'site-b']);
    expect(image.stores).toEqual(['site-a', 'site-b']);
    expect(image.tags).toEqual(['edge']);
    expect(image.properties).toEqual({ hw_disk_bus: 'scsi', hw_scsi_model: 'virtio-scsi', os_distro: 'cirros' });
  });

  it('parseImage: the result is frozen', () => {
    const image = parseImage(rbdImage);
    expect(Object.isFrozen(image)).toBe(true);
    expect(Object.isFrozen(image.stores)).toBe(true);
    expect(Object.isFrozen(image.properties)).toBe(true);
  });
});

describe('parseImage: comma-joined store fields', () => {
  it.each([
    { name: 'absent', value: undefined, expected: [] },
    { name: 'empty string', value: '', expected: [] },
    { name: 'null', value: null, expected: [] },
    { name: 'one store', value: 'site-b', expected: ['site-b'] },
    { name: 'sorted list', value: 'edge1,edge2', expected: ['edge1', 'edge2'] },
    { name: 'spaces and empty pieces', value: ' edge1 , ,edge2,', expected: ['edge1', 'edge2'] },
    { name: 'a real array (nova fakes)', value: ['edge1', ' edge2 ', ''], expected: ['edge1', 'edge2'] },
  ])('parseImage: os_glance_importing_to_stores / os_glance_failed_import / stores $name', ({ value, expected }) => {
    const body = {
      ...minimal,
      ...(value === undefined
        ? {}
        : { stores: value, os_glance_importing_to_stores: value, os_glance_failed_import: value }),
    };
    const image = parseImage(body);
    expect(image.importingTo).toEqual(expected);
    expect(image.failedImport).toEqual(expected);
    expect(image.stores).toEqual(expected);
  });

  it.each([
    { name: 'absent', value: undefined, expected: undefined },
    { name: 'empty string', value: '', expected: undefined },
    { name: 'null', value: null, expected: undefined },
    { name: 'a task id', value: '89c763d3-5a2b-4c1d-9e8f-7a6b5c4d3e2f', expected: '89c763d3-5a2b-4c1d-9e8f-7a6b5c4d3e2f' },
  ])('parseImage: os_glance_import_task $name', ({ value, expected }) => {
    const image = parseImage(value === undefined ? minimal : { ...minimal, os_glance_import_task: value });
    expect(image.importTask).toBe(expected);
  });

  it('parseImage: the os_glance_* keys are modelled, not left in properties as strings', () => {
    const image = parseImage({ ...minimal, stores: 'a', os_glance_failed_import: 'b', os_glance_import_task: 't' });
    expect(image.properties).toEqual({});
  });
});

describe('parseImage: stores visibility', () => {
  it.each([
    { name: 'active with stores', body: { ...minimal, stores: 'central' }, visible: true },
    { name: 'active without stores (policy hides it)', body: minimal, visible: false },
    { name: 'active with stores "" is still visible', body: { ...minimal, stores: '' }, visible: true },
    { name: 'queued without stores (no data yet)', body: { ...minimal, status: 'queued' }, visible: true },
  ])('parseImage: storesVisible when $name', ({ body, visible }) => {
    expect(parseImage(body).storesVisible).toBe(visible);
  });
});

describe('parseImage: queued image', () => {
  it('parseImage: a new image has null formats and size and an empty location list', () => {
    const image = parseImage({
      ...minimal,
      status: 'queued',
      name: null,
      disk_format: null,
      container_format: null,
      size: null,
      owner: null,
      locations: [],
    });
    expect(image).toMatchObject({ name: null, diskFormat: null, containerFormat: null, size: null, owner: null });
    expect(image.locations).toEqual([]);
  });
});

describe('hasStore', () => {
  it.each([
    { list: ['ceph-edge1'], store: 'ceph', expected: false },
    { list: ['ceph-edge1', 'ceph'], store: 'ceph', expected: true },
    { list: ['edge1'], store: 'edge', expected: false },
    { list: [], store: 'central', expected: false },
    { list: ['central'], store: 'Central', expected: false },
  ])('hasStore($list, $store) is $expected (whole names only)', ({ list, store, expected }) => {
    expect(hasStore(list, store)).toBe(expected);
  });

  it('hasStore: the substring trap through parseImage: stores "ceph-edge1" does not hold "ceph"', () => {
    const image = parseImage({ ...minimal, stores: 'ceph-edge1,central' });
    expect(hasStore(image.stores, 'ceph')).toBe(false);
    expect(hasStore(image.stores, 'ceph-edge1')).toBe(true);
  });

  it('parseStoreList: splits once', () => {
    expect(parseStoreList('a,b')).toEqual(['a', 'b']);
  });
});

describe('parseImage: bodies ferry does not understand', () => {
  it.each([
    {
      name: 'status is a number',
      body: { ...minimal, status: 3 },
      message: "GET /v2/images/{id}: field 'status': expected a string, got number",
    },
    {
      name: 'id is missing',
      body: { ...minimal, id: undefined },
      message: "GET /v2/images/{id}: field 'id': expected a string, got nothing (the field is missing)",
    },
    {
      name: 'size is a string',
      body: { ...minimal, size: '52428800' },
      message: "GET /v2/images/{id}: field 'size': expected a number or null, got string",
    },
    {
      name: 'stores is a number',
      body: { ...minimal, stores: 7 },
      message: "GET /v2/images/{id}: field 'stores': expected a string, an array or null, got number",
    },
    {
      name: 'stores array holds a number',
      body: { ...minimal, stores: ['a', 3] },
      message: "GET /v2/images/{id}: field 'stores[1]': expected a string, got number",
    },
    {
      name: 'a location url is null',
      body: { ...minimal, locations: [{ url: 'rbd://a/b/c/d', metadata: {} }, { url: null, metadata: {} }] },
      message: "GET /v2/images/{id}: field 'locations[1].url': expected a string, got null",
    },
    {
      name: 'the body is an array',
      body: [],
      message: 'GET /v2/images/{id}: the body: expected an object, got array',
    },
    {
      name: 'two problems',
      body: { ...minimal, status: 3, visibility: false },
      message: "GET /v2/images/{id}: field 'status': expected a string, got number (and 1 more problem(s))",
    },
  ])('parseImage: FERRY_BAD_RESPONSE when $name', ({ body, message }) => {
    expect(() => parseImage(body)).toThrow(expect.objectContaining({ code: 'FERRY_BAD_RESPONSE', message }));
  });

  it('parseImage: the endpoint given by the caller is named, and details list every issue', () => {
    expect(() => parseImage({ ...minimal, status: 3, visibility: false }, 'GET /v2/images/918dbaef')).toThrow(
      expect.objectContaining({
        message: expect.stringMatching(/^GET \/v2\/images\/918dbaef: /),
        details: {
          endpoint: 'GET /v2/images/918dbaef',
          field: 'status',
          issues: [
            { path: 'status', expected: 'a string', got: 'number' },
            { path: 'visibility', expected: 'a string', got: 'boolean' },
          ],
        },
      }),
    );
  });
});
