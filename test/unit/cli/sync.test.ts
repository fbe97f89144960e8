import { describe, expect, it } from 'vitest';
import { syncJsonSchema } from '../../../src/contract/sync-document.js';
import { runFerry } from '../../helpers/run-ferry.js';
import { runWith } from '../prewarm/cli-harness.js';
import { imageId, scriptedImages } from '../prewarm/scripted-images.js';

const T1 = 'a8860fd2-0000-4000-8000-000000000001';
const policy = 'version: 1\nplacements:\n  - name: golden\n    images: {tag: golden}\n    stores: [site-a]\n';
const files = (text: string) => (path: string): string => {
  if (path !== 'edge.yaml') throw new Error(`ENOENT: no such file or directory, open '${path}'`);
  return text;
};
const glance = () => scriptedImages({
  [imageId(1)]: { name: 'golden-1', tags: ['golden'], reads: [
    { stores: ['central'] }, { stores: ['central'], lock: T1, importing: ['site-a'] }, { stores: ['central', 'site-a'], importing: [], failed: [] }] },
  [imageId(2)]: { name: 'golden-2', tags: ['golden'], reads: [{ stores: ['central', 'site-a'] }] },
});

describe('ferry sync', () => {
  it('ferry sync --help: says that a policy with stores: budgets evicts (and that --dry-run removes nothing); never "Never deletes"', async () => {
    const help = await runFerry(['sync', '--help']);
    expect(help.code).toBe(0);
    const text = help.stdout.replace(/\s+/g, ' ');
    expect(text).not.toMatch(/never deletes/i);
    expect(text).toMatch(/a policy with stores: budgets also evicts/i);
    expect(text).toMatch(/--dry-run [^-]*remove nothing/);
  });

  it('ferry sync --json: one pass converges the drift; the report parses with the documented schema', async () => {
    const run = await runWith(['sync', '--policy', 'edge.yaml', '--json'], glance(), { readFile: files(policy) });
    expect(run.code, run.stderr).toBe(0);
    const json = syncJsonSchema.parse(JSON.parse(run.stdout));
    expect(json).toMatchObject({ policy: 'edge.yaml', wanted: 2, drift_before: 1, drift_after: 0, converged: true, watch: null,
      placements: [{ name: 'golden', images: 2, drift: 1 }] });
    expect(json.result?.counts).toMatchObject({ copied: 1, present: 1 });
  });

  it('ferry sync --dry-run: reports the drift, sends nothing', async () => {
    const scripted = glance();
    const run = await runWith(['sync', '--policy', 'edge.yaml', '--dry-run'], scripted, { readFile: files(policy) });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/sync edge\.yaml: drift \(dry run\) · 2 \(image, store\) pairs wanted · drift 1 before, 1 after/);
    expect(scripted.copyRequests).toEqual([]);
  });

  it('ferry sync: a policy name two images carry is unresolved with FERRY_IMAGE_AMBIGUOUS (JSON, text), not "not found"; exit 50', async () => {
    const scripted = scriptedImages({ [imageId(1)]: { name: 'twin', reads: [{ stores: ['central'] }] },
      [imageId(2)]: { name: 'twin', reads: [{ stores: ['central'] }] } });
    const named = 'version: 1\nplacements:\n  - name: twins\n    images: {names: [twin]}\n    stores: [site-a]\n';
    const run = await runWith(['sync', '--policy', 'edge.yaml', '--json'], scripted, { readFile: files(named) });
    expect(run.code, run.stderr).toBe(50);
    const json = syncJsonSchema.parse(JSON.parse(run.stdout));
    expect(json.result?.items.map((i) => [i.image, i.failure, i.code])).toEqual([['twin', 'unresolved', 'FERRY_IMAGE_AMBIGUOUS']]);
    const text = await runWith(['sync', '--policy', 'edge.yaml'], scripted, { readFile: files(named) });
    expect(text.stdout).toMatch(/twins\s+0 \+1 unresolved/);
    expect(text.stdout).toContain("twin → site-a: more than one image is named 'twin' (FERRY_IMAGE_AMBIGUOUS)");
    expect(scripted.copyRequests).toEqual([]);
  });

  it.each([
    { title: 'a policy error', args: ['--policy', 'edge.yaml'], text: 'version: 1\nplacements:\n  - {images: {tag: g}, stores: [a], extra: 1}\n',
      code: 3, error: 'FERRY_INVALID_CONFIG', message: /^edge\.yaml:3:37: placements\[0\]\.extra: unknown field 'extra'/ },
    { title: 'an unreadable file', args: ['--policy', 'missing.yaml'], text: policy, code: 3, error: 'FERRY_INVALID_CONFIG', message: /cannot read the policy file missing\.yaml/ },
    { title: 'no --policy', args: [], text: policy, code: 2, error: 'FERRY_INVALID_OPTION', message: /--policy FILE is required/ },
    { title: '--interval without --watch', args: ['--policy', 'edge.yaml', '--interval', '5m'], text: policy, code: 2, error: 'FERRY_INVALID_OPTION',
      message: /--interval needs --watch/ },
    { title: 'a bad --interval', args: ['--policy', 'edge.yaml', '--watch', '--interval', 'soon'], text: policy, code: 2, error: 'FERRY_INVALID_OPTION',
      message: /--interval must be a duration/ },
    { title: 'an unknown store', args: ['--policy', 'edge.yaml'], text: 'version: 1\nplacements:\n  - {images: {tag: g}, stores: [edge9]}\n',
      code: 3, error: 'FERRY_INVALID_CONFIG', message: /^edge\.yaml:3:33: placement 1: stores: Glance has no store 'edge9'/ },
  ])('ferry sync: $title → exit $code', async ({ args, text, code, error, message }) => {
    const run = await runWith(['sync', ...args, '--json'], glance(), { readFile: files(text) });
    expect(run.code).toBe(code);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: error, message: expect.stringMatching(message) as unknown } });
  });

  it('ferry sync --watch: one stderr line per pass until Ctrl-C, then exit 130 with the last pass', async () => {
    const controller = new AbortController();
    const scripted = glance();
    let lists = 0;
    const listImages = scripted.listImages.bind(scripted);
    scripted.listImages = (query, call) => {
      lists += 1;
      if (lists === 2) controller.abort(new Error('interrupted by SIGINT'));
      return listImages(query, call);
    };
    const run = await runWith(['sync', '--policy', 'edge.yaml', '--watch', '--interval', '1s', '--json'], scripted,
      { readFile: files(policy), signal: controller.signal });
    expect(run.code).toBe(130);
    expect(run.stderr).toMatch(/^pass 1 · 2 wanted · drift 1 → 0 · copied 1 · failed 0 · skipped 0 · \d+\.\d s · next in \d\.\d s$/m);
    const json = syncJsonSchema.parse(JSON.parse(run.stdout));
    expect(json.watch?.passes).toBeGreaterThanOrEqual(2);
  });
});
