import { describe, expect, it } from 'vitest';
import { matrixJsonSchema } from '../../../src/contract/matrix-document.js';
import { statusJsonSchema } from '../../../src/contract/status-document.js';
import { buildStoreMatrix } from '../../../src/prewarm/store-matrix.js';
import type { StoreFacts } from '../../../src/fleet/store-catalogue.js';
import { runWith } from '../prewarm/cli-harness.js';
import { imageId, imageOf, scriptedImages } from '../prewarm/scripted-images.js';

const T1 = 'a8860fd2-0000-4000-8000-000000000001';
const rbd = (id: string): StoreFacts => ({ id, type: 'rbd', readOnly: false, isDefault: false });

const glance = () => scriptedImages({
  [imageId(1)]: { name: 'golden-1', tags: ['golden'], reads: [{ stores: ['central', 'site-a'], lock: T1, importing: ['site-b'], failed: ['broken'] }] },
  [imageId(2)]: { name: 'golden-2', tags: ['golden'], reads: [{ stores: ['central'], diskFormat: 'qcow2' }] },
  [imageId(3)]: { name: 'other', reads: [{ stores: ['central'] }] },
});

describe('buildStoreMatrix', () => {
  it.each([
    { title: 'present', shape: { stores: ['site-a'] }, cell: 'present' },
    { title: 'copying', shape: { stores: ['central'], lock: T1, importing: ['site-a'] }, cell: 'copying' },
    { title: 'failed', shape: { stores: ['central'], importing: [], failed: ['site-a'] }, cell: 'failed' },
    { title: 'failed on a deactivated image', shape: { stores: ['central'], failed: ['site-a'], status: 'deactivated' }, cell: 'failed' },
    { title: 'missing', shape: { stores: ['central'] }, cell: 'missing' },
    { title: 'missing for a qcow2 image (copyability does not matter here)', shape: { stores: ['central'], diskFormat: 'qcow2' }, cell: 'missing' },
  ])('buildStoreMatrix: $title', ({ shape, cell }) => {
    const matrix = buildStoreMatrix([imageOf(imageId(1), shape)], [rbd('site-a')]);
    expect(matrix.rows[0]?.cells).toEqual({ 'site-a': cell });
    expect(matrix.counts[cell as keyof typeof matrix.counts]).toBe(1);
  });
});

describe('ferry status --matrix', () => {
  it('ferry status --matrix --tag --json: images × every writable store, parses with the documented schema', async () => {
    const run = await runWith(['status', '--matrix', '--tag', 'golden', '--json'], glance());
    expect(run.code, run.stderr).toBe(0);
    const json = matrixJsonSchema.parse(JSON.parse(run.stdout));
    expect(json.stores).toEqual(['central', 'site-a', 'site-b', 'broken']);
    expect(json.images.map((i) => [i.name, i.cells])).toEqual([
      ['golden-1', { central: 'present', 'site-a': 'present', 'site-b': 'copying', broken: 'failed' }],
      ['golden-2', { central: 'present', 'site-a': 'missing', 'site-b': 'missing', broken: 'missing' }],
    ]);
    expect(json.counts).toEqual({ present: 3, copying: 1, failed: 1, missing: 3 });
  });

  it('ferry status --matrix IMAGE... --store: named images, chosen columns, unknown names listed', async () => {
    const run = await runWith(['status', '--matrix', 'golden-1', 'nosuch', '--store', 'site-b', '--json'], glance());
    const json = matrixJsonSchema.parse(JSON.parse(run.stdout));
    expect(json.stores).toEqual(['site-b']);
    expect(json.unresolved).toEqual([{ ref: 'nosuch', code: 'FERRY_IMAGE_NOT_FOUND', reason: expect.any(String) as unknown }]);
  });

  it('ferry status --matrix NAME: a name two images carry is said ambiguous (JSON code and text), not "not found"', async () => {
    const scripted = scriptedImages({ [imageId(1)]: { name: 'twin', reads: [{ stores: ['central'] }] },
      [imageId(2)]: { name: 'twin', reads: [{ stores: ['central'] }] } });
    const json = matrixJsonSchema.parse(JSON.parse((await runWith(['status', '--matrix', 'twin', 'nosuch', '--json'], scripted)).stdout));
    expect(json.unresolved.map((u) => [u.ref, u.code])).toEqual([['twin', 'FERRY_IMAGE_AMBIGUOUS'], ['nosuch', 'FERRY_IMAGE_NOT_FOUND']]);
    const text = (await runWith(['status', '--matrix', 'twin', 'nosuch'], scripted)).stdout;
    expect(text).toContain("ambiguous: twin: more than one image is named 'twin'");
    expect(text).toContain('not found: nosuch:');
  });

  it('ferry status --matrix: text table with a word per cell and a tally', async () => {
    const run = await runWith(['status', '--matrix', '--all', '--store', 'site-a', '--store', 'site-b'], glance());
    expect(run.stdout).toMatch(/golden-1\s+0{8}-0000-4000-8000-000000000001\s+raw\s+present\s+copying/);
    expect(run.stdout).toContain('3 images × 2 stores: 1 present, 1 copying, 0 failed, 4 missing');
  });

  it('ferry status IMAGE: the single-image JSON contract is unchanged', async () => {
    const run = await runWith(['status', 'golden-1', '--json'], glance());
    expect(run.code, run.stderr).toBe(0);
    expect(statusJsonSchema.parse(JSON.parse(run.stdout))).toMatchObject({ image: imageId(1), stores: ['central', 'site-a'], importing: ['site-b'] });
  });

  it.each([
    { args: ['status'], message: /no IMAGE given/ },
    { args: ['status', 'a', 'b'], message: /one IMAGE at a time, got 2/ },
    { args: ['status', 'a', '--tag', 'golden'], message: /--tag goes with --matrix/ },
    { args: ['status', '--matrix'], message: /no images selected/ },
  ])('ferry status $args → exit 2', async ({ args, message }) => {
    const run = await runWith([...args, '--json'], glance());
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { message: expect.stringMatching(message) as unknown } });
  });
});
