import { describe, expect, it } from 'vitest';
import { classifyPlacement } from '../../../src/fleet/classify-placement.js';
import { planPrewarm } from '../../../src/prewarm/plan-prewarm.js';
import type { StoreCatalogue, StoreFacts } from '../../../src/fleet/store-catalogue.js';
import { parseImage } from '../../../src/glance/image.js';
import { imageBody } from '../../helpers/image-body.js';
import { imageId, imageOf } from './scripted-images.js';

const T1 = 'a8860fd2-0000-4000-8000-000000000001';
const rbd = (id: string): StoreFacts => ({ id, type: 'rbd', readOnly: false, isDefault: false });
const file = (id: string): StoreFacts => ({ id, type: 'file', readOnly: false, isDefault: false });
const untyped = (id: string): StoreFacts => ({ id, type: undefined, readOnly: false, isDefault: false });
const catalogue: StoreCatalogue = { stores: [file('central'), rbd('site-a'), rbd('site-b'), { ...file('web'), readOnly: true }], typesKnown: true };
const id = imageId(1);

const cases = [
  { title: 'present: the store holds it', shape: { stores: ['central', 'site-a'] }, store: rbd('site-a'), state: 'present' },
  { title: 'present wins over an inactive status', shape: { stores: ['site-a'], status: 'deactivated' }, store: rbd('site-a'), state: 'present' },
  { title: 'copying: an import writes to the store', shape: { stores: ['central'], lock: T1, importing: ['site-a'] }, store: rbd('site-a'), state: 'copying' },
  { title: 'failed-earlier: in os_glance_failed_import, no lock', shape: { stores: ['central'], importing: [], failed: ['site-a'] }, store: rbd('site-a'), state: 'failed-earlier' },
  { title: 'failed-earlier: an import to another store holds the lock', shape: { stores: ['central'], lock: T1, importing: ['site-b'], failed: ['site-a'] },
    store: rbd('site-a'), state: 'failed-earlier', detail: /import task a8860fd2/ },
  { title: 'missing: nothing there, nothing running', shape: { stores: ['central'] }, store: rbd('site-a'), state: 'missing' },
  { title: 'missing: the lock is held for another store', shape: { stores: ['central'], lock: T1, importing: ['site-b'] }, store: rbd('site-a'), state: 'missing', detail: /busy/ },
  { title: 'missing: a failure in another store does not count', shape: { stores: ['central'], importing: [], failed: ['site-b'] }, store: rbd('site-a'), state: 'missing' },
  { title: 'not-copyable: the store is unknown', shape: { stores: ['central'] }, store: undefined, state: 'not-copyable', reason: 'unknown-store' },
  { title: 'not-copyable: the image is queued', shape: { stores: [], status: 'queued' }, store: rbd('site-a'), state: 'not-copyable', reason: 'not-active' },
  { title: 'not-copyable: the image is deactivated', shape: { stores: ['central'], status: 'deactivated' }, store: rbd('site-a'), state: 'not-copyable', reason: 'not-active' },
  { title: 'not-copyable: the store is read-only', shape: { stores: ['central'] }, store: { ...file('web'), readOnly: true }, state: 'not-copyable', reason: 'read-only-store' },
  { title: 'not-copyable: qcow2 into an rbd store', shape: { stores: ['central'], diskFormat: 'qcow2' }, store: rbd('site-a'), state: 'not-copyable', reason: 'not-raw' },
  { title: 'missing: qcow2 into a file store', shape: { stores: ['site-a'], diskFormat: 'qcow2' }, store: file('central'), state: 'missing' },
  { title: 'missing: qcow2 into an rbd store with anyFormat', shape: { stores: ['central'], diskFormat: 'qcow2' }, store: rbd('site-a'), state: 'missing', anyFormat: true },
  { title: 'missing: qcow2 into a store of unknown type, with a note', shape: { stores: ['central'], diskFormat: 'qcow2' }, store: untyped('site-a'),
    state: 'missing', detail: /store type unknown/ },
  { title: 'missing: whole-token store names (site-a is not site-ab)', shape: { stores: ['site-ab'] }, store: rbd('site-a'), state: 'missing' },
] as const;

describe('classifyPlacement', () => {
  it.each(cases)('classifyPlacement: $title', (c) => {
    const verdict = classifyPlacement(imageOf(id, c.shape), c.store?.id ?? 'nosuch', c.store, { anyFormat: 'anyFormat' in c ? c.anyFormat : false });
    expect(verdict.state).toBe(c.state);
    expect(verdict.reason).toBe('reason' in c ? c.reason : undefined);
    if ('detail' in c) expect(verdict.detail).toMatch(c.detail);
  });

  it('classifyPlacement: not-copyable when Glance hides the stores', () => {
    const image = parseImage({ ...imageBody({}), stores: undefined });
    expect(classifyPlacement(image, 'site-a', rbd('site-a'))).toMatchObject({ state: 'not-copyable', reason: 'stores-hidden' });
  });

  it('classifyPlacement: not-copyable when the disk format is unset', () => {
    const image = parseImage({ ...imageBody({ stores: ['central'] }), disk_format: null });
    expect(classifyPlacement(image, 'site-a', rbd('site-a'))).toMatchObject({ state: 'not-copyable', reason: 'formats-unset' });
  });
});

describe('planPrewarm', () => {
  it('planPrewarm: one job per image with its stores to copy or join, in request order; counts per state', () => {
    const images = [
      imageOf(imageId(1), { stores: ['central'] }),
      imageOf(imageId(2), { stores: ['central', 'site-a'], lock: T1, importing: ['site-b'] }),
      imageOf(imageId(3), { stores: ['central', 'site-a', 'site-b'] }),
      imageOf(imageId(4), { stores: ['central'], diskFormat: 'qcow2' }),
    ];
    const plan = planPrewarm({ targets: images.map((image) => ({ image, stores: ['site-b', 'site-a', 'site-b'] })), catalogue });
    expect(plan.jobs.map((job) => [job.imageId, job.stores, job.planned])).toEqual([
      [imageId(1), ['site-b', 'site-a'], { 'site-b': 'missing', 'site-a': 'missing' }],
      [imageId(2), ['site-b'], { 'site-b': 'copying' }],
    ]);
    expect(plan.counts).toEqual({ present: 3, copying: 1, 'failed-earlier': 0, missing: 2, 'not-copyable': 2 });
    expect(plan.items.map((item) => `${item.imageId.slice(-1)}:${item.store}:${item.action}`)).toEqual([
      '1:site-b:copy', '1:site-a:copy', '2:site-b:join', '2:site-a:none', '3:site-b:none', '3:site-a:none', '4:site-b:skip', '4:site-a:skip',
    ]);
    expect(plan.storeTypesKnown).toBe(true);
  });

  it('planPrewarm: an unresolved name becomes a not-copyable item per store, with the lookup\'s reason', () => {
    const plan = planPrewarm({ targets: [], catalogue,
      unresolved: [{ image: { ref: 'nosuch', code: 'FERRY_IMAGE_NOT_FOUND', reason: 'no image nosuch' }, stores: ['site-a', 'site-b'] }] });
    expect(plan.items).toEqual([
      expect.objectContaining({ imageId: 'nosuch', store: 'site-a', state: 'not-copyable', reason: 'unresolved', detail: 'no image nosuch' }),
      expect.objectContaining({ imageId: 'nosuch', store: 'site-b', state: 'not-copyable', reason: 'unresolved' }),
    ]);
    expect(plan.jobs).toEqual([]);
  });

  it('planPrewarm: each image may want its own stores (a sync policy)', () => {
    const plan = planPrewarm({ catalogue, targets: [
      { image: imageOf(imageId(1), { stores: ['central'] }), stores: ['site-a'] },
      { image: imageOf(imageId(2), { stores: ['central'] }), stores: ['site-b', 'central'] },
    ] });
    expect(plan.jobs.map((job) => job.stores)).toEqual([['site-a'], ['site-b']]);
  });
});
