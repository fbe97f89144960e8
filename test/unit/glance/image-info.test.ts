import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseImportInfo } from '../../../src/glance/image-import-info.js';
import { parseImageList } from '../../../src/glance/image-list.js';
import { parseStoresInfo } from '../../../src/glance/image-store-info.js';
import { parseTask, parseTaskList } from '../../../src/glance/image-task.js';

function fixtureBody(name: string): Record<string, unknown> {
  const url = new URL(`../../../fixtures/glance/${name}.json`, import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { body: Record<string, unknown> }).body;
}

const fileImage = fixtureBody('reference-image-file-location');
const rbdImage = fixtureBody('reference-image-rbd-two-clusters');
const tasksBody = fixtureBody('reference-image-tasks');

describe('parseImageList', () => {
  it('parseImageList: a page with a next link', () => {
    const page = parseImageList({
      images: [fileImage, rbdImage],
      first: '/v2/images',
      schema: '/v2/schemas/images',
      next: '/v2/images?marker=872abc64-2f3d-4b6e-9c41-0d5e6f7a8b9c',
    });
    expect(page.images.map((image) => image.id)).toEqual([fileImage['id'], rbdImage['id']]);
    expect(page.next).toBe('/v2/images?marker=872abc64-2f3d-4b6e-9c41-0d5e6f7a8b9c');
  });

  it('parseImageList: the last page has no next', () => {
    expect(parseImageList({ images: [], first: '/v2/images', schema: '/v2/schemas/images' })).toEqual({
      images: [],
      next: undefined,
    });
  });

  it('parseImageList: a bad image is named by its index', () => {
    expect(() => parseImageList({ images: [fileImage, { ...rbdImage, status: null }] })).toThrow(
      expect.objectContaining({
        code: 'FERRY_BAD_RESPONSE',
        message: "GET /v2/images: field 'images[1].status': expected a string, got null",
      }),
    );
  });

  it('parseImageList: a body without images', () => {
    expect(() => parseImageList({ image: [] })).toThrow(
      expect.objectContaining({ message: "GET /v2/images: field 'images': expected an array, got nothing (the field is missing)" }),
    );
  });
});

describe('parseTaskList / parseTask', () => {
  it('parseTaskList: a successful copy-image task (reference §8)', () => {
    const [task, ...rest] = parseTaskList(tasksBody);
    expect(rest).toEqual([]);
    expect(task).toMatchObject({
      id: '294e6c2f-ce1a-4781-a8c4-f13e88610403',
      type: 'api_image_import',
      status: 'success',
      message: 'Copied 50 MiB',
      stores: ['edge1'],
      imageId: '0d8043de-7b5e-4f0c-9a51-3c2b1d0e9f87',
      owner: '11111111111111111111111111111111',
      createdAt: '2026-11-21T18:05:53Z',
      updatedAt: '2026-11-21T18:05:54Z',
      expiresAt: '2026-11-23T18:05:54Z',
    });
  });

  const [oneTask] = (tasksBody['tasks'] as Record<string, unknown>[]) ?? [];

  it.each([
    { name: 'a failed task', patch: { status: 'failure', message: 'Task failed due to Internal Error', result: null } },
    { name: 'a busted lock', patch: { status: 'failure', message: 'Expired lock preempted' } },
    { name: 'a pending task without expiry', patch: { status: 'pending', message: '', expires_at: null } },
  ])('parseTask: $name', ({ patch }) => {
    const task = parseTask({ ...oneTask, ...patch });
    expect(task.status).toBe(patch.status);
    expect(task.message).toBe(patch.message);
  });

  it('parseTask: a task without input has no stores', () => {
    expect(parseTask({ ...oneTask, input: null }).stores).toEqual([]);
  });

  it('parseTask: an unknown status is FERRY_BAD_RESPONSE listing the known ones', () => {
    expect(() => parseTask({ ...oneTask, status: 'exploded' })).toThrow(
      expect.objectContaining({
        code: 'FERRY_BAD_RESPONSE',
        message:
          'GET /v2/tasks/{id}: field \'status\': expected one of "pending", "processing", "success", "failure", got "exploded"',
      }),
    );
  });

  it('parseTaskList: a bad task is named by its index', () => {
    expect(() => parseTaskList({ tasks: [oneTask, { ...oneTask, id: 5 }] })).toThrow(
      expect.objectContaining({ message: "GET /v2/images/{id}/tasks: field 'tasks[1].id': expected a string, got number" }),
    );
  });
});

describe('parseStoresInfo', () => {
  it('parseStoresInfo: /v2/info/stores, default is the string "true" (reference §5)', () => {
    const info = parseStoresInfo(fixtureBody('reference-stores-info'));
    expect(info.defaultStore).toBe('central');
    expect(info.stores.map((store) => [store.id, store.isDefault, store.readOnly])).toEqual([
      ['central', true, false],
      ['edge1', false, false],
      ['edge2', false, false],
    ]);
  });

  it('parseStoresInfo: /detail carries type, pool and (Glance 30) fsid', () => {
    const info = parseStoresInfo(fixtureBody('reference-stores-detail'), 'GET /v2/info/stores/detail');
    expect(info.stores.map(({ id, type, pool, fsid }) => ({ id, type, pool, fsid }))).toEqual([
      { id: 'central', type: 'file', pool: undefined, fsid: undefined },
      { id: 'site-a', type: 'rbd', pool: 'images', fsid: '1c8b72c6-a5a4-4acb-8aac-181c2f242f55' },
      { id: 'site-b', type: 'rbd', pool: 'images', fsid: undefined },
    ]);
  });

  it.each([
    { flags: { default: 'true' }, isDefault: true, readOnly: false },
    { flags: { default: true }, isDefault: true, readOnly: false },
    { flags: { default: 'false' }, isDefault: false, readOnly: false },
    { flags: { 'read-only': 'true' }, isDefault: false, readOnly: true },
    { flags: {}, isDefault: false, readOnly: false },
  ])('parseStoresInfo: flags $flags', ({ flags, isDefault, readOnly }) => {
    const [store] = parseStoresInfo({ stores: [{ id: 'http', ...flags }] }).stores;
    expect(store).toMatchObject({ isDefault, readOnly });
  });

  it('parseStoresInfo: weight (Glance 27) is read as a number', () => {
    const [store] = parseStoresInfo({ stores: [{ id: 'a', weight: 100 }] }).stores;
    expect(store?.weight).toBe(100);
  });

  it('parseStoresInfo: a store without id is FERRY_BAD_RESPONSE', () => {
    expect(() => parseStoresInfo({ stores: [{ description: 'x' }] })).toThrow(
      expect.objectContaining({ message: "GET /v2/info/stores: field 'stores[0].id': expected a string, got nothing (the field is missing)" }),
    );
  });
});

describe('parseImportInfo', () => {
  it('parseImportInfo: the methods (reference §5)', () => {
    expect(parseImportInfo(fixtureBody('reference-import-info')).methods).toEqual([
      'glance-direct',
      'web-download',
      'copy-image',
    ]);
  });

  it('parseImportInfo: a body without import-methods', () => {
    expect(() => parseImportInfo({})).toThrow(expect.objectContaining({ code: 'FERRY_BAD_RESPONSE' }));
  });
});
