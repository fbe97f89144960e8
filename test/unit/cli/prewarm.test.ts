import { describe, expect, it } from 'vitest';
import { prewarmJsonSchema } from '../../../src/contract/prewarm-document.js';
import { createPrewarmProgress } from '../../../src/cli/render/prewarm-progress.js';
import { planPrewarm } from '../../../src/prewarm/plan-prewarm.js';
import { runWith } from '../prewarm/cli-harness.js';
import { imageId, imageOf, scriptedImages, type ImageScript } from '../prewarm/scripted-images.js';

const T1 = 'a8860fd2-0000-4000-8000-000000000001';
const A = imageId(1);
const B = imageId(2);
const copyTo = (store: string, fails = false): ImageScript => ({ name: `img-${store}`, reads: [
  { stores: ['central'] },
  { stores: ['central'], lock: T1, importing: [store] },
  fails ? { stores: ['central'], importing: [], failed: [store] } : { stores: ['central', store], importing: [], failed: [] },
] });

describe('ferry prewarm', () => {
  it('ferry prewarm --json: the report parses with the documented schema; off a TTY each copy is a plain stderr line', async () => {
    const glance = scriptedImages({ [A]: copyTo('site-a'), [B]: { name: 'ready', reads: [{ stores: ['central', 'site-a'] }] } });
    const run = await runWith(['prewarm', A, 'ready', '--store', 'site-a', '--json'], glance);
    expect(run.code, run.stderr).toBe(0);
    const json = prewarmJsonSchema.parse(JSON.parse(run.stdout));
    expect(json.counts).toMatchObject({ copied: 1, present: 1, failed: 0 });
    expect(json.items.map((i) => [i.name, i.store, i.outcome])).toEqual([['img-site-a', 'site-a', 'copied'], ['ready', 'site-a', 'present']]);
    expect(run.stderr).toMatch(/^plan: 2 \(image, store\) pairs: 1 missing/m);
    expect(run.stderr).toMatch(/^copied {6}img-site-a \(00000000\) → site-a in \d+\.\d s$/m);
  });

  it('ferry prewarm: a failed copy → exit 50 with the report (not an error document) and the reason in the summary', async () => {
    const glance = scriptedImages({ [A]: copyTo('broken', true) });
    const run = await runWith(['prewarm', A, '--store', 'broken'], glance);
    expect(run.code).toBe(50);
    expect(run.stdout).toContain('failed:');
    expect(run.stdout).toContain('img-broken (00000000) → broken: Glance reports the copy to broken failed (FERRY_COPY_FAILED)');
  });

  it('ferry prewarm: an unresolved name fails with its own code — ambiguous (21\'s code), not found, malformed — in JSON and text; exit 50', async () => {
    const C = imageId(3);
    const glance = scriptedImages({ [A]: { name: 'ready', reads: [{ stores: ['central', 'site-a'] }] },
      [B]: { name: 'twin', reads: [{ stores: ['central'] }] }, [C]: { name: 'twin', reads: [{ stores: ['central'] }] } });
    const args = ['prewarm', 'ready', 'twin', 'nosuch', 'bad\u0007name', '--store', 'site-a'];
    const run = await runWith([...args, '--json'], glance);
    expect(run.code, run.stderr).toBe(50);
    const json = prewarmJsonSchema.parse(JSON.parse(run.stdout));
    expect(json.items.map((i) => [i.image, i.outcome, i.failure, i.code])).toEqual([
      [A, 'present', null, null],
      ['twin', 'failed', 'unresolved', 'FERRY_IMAGE_AMBIGUOUS'],
      ['nosuch', 'failed', 'unresolved', 'FERRY_IMAGE_NOT_FOUND'],
      ['bad\u0007name', 'failed', 'unresolved', 'FERRY_INVALID_IMAGE_REF']]);
    expect(json.items[1]?.reason).toBe("more than one image is named 'twin'");
    const text = await runWith(args, glance);
    expect(text.code).toBe(50);
    expect(text.stdout).toContain("twin → site-a: more than one image is named 'twin' (FERRY_IMAGE_AMBIGUOUS)");
    expect(glance.copyRequests).toEqual([]);
  });

  it('ferry prewarm --dry-run: prints the plan, sends no import', async () => {
    const glance = scriptedImages({ [A]: copyTo('site-a') });
    const run = await runWith(['prewarm', A, '--store', 'site-a', '--store', 'site-b', '--dry-run'], glance);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('plan (dry run, nothing sent): 2 copies to make or join into site-a, site-b');
    expect(run.stdout).toMatch(/img-site-a\s+site-b\s+missing\s+copy\s+not in site-b/);
    expect(glance.copyRequests).toEqual([]);
  });

  it.each([
    { title: 'no store', args: ['prewarm', A], message: /no target store given/ },
    { title: 'no selection', args: ['prewarm', '--store', 'site-a'], message: /no images selected/ },
    { title: 'names and --all', args: ['prewarm', A, '--all', '--store', 'site-a'], message: /more than one way/ },
    { title: 'a bad --concurrency', args: ['prewarm', A, '--store', 'site-a', '--concurrency', '0'], message: /--concurrency must be an integer from 1 to 64/ },
    { title: 'a bad --request-mode', args: ['prewarm', A, '--store', 'site-a', '--request-mode', 'all'], message: /--request-mode must be one of image, store/ },
    { title: 'a bad --property', args: ['prewarm', '--property', 'os_distro', '--store', 'site-a'], message: /--property must be key=value/ },
  ])('ferry prewarm: $title → exit 2 before any import', async ({ args, message }) => {
    const glance = scriptedImages({ [A]: copyTo('site-a') });
    const run = await runWith([...args, '--json'], glance);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'FERRY_INVALID_OPTION', message: expect.stringMatching(message) as unknown } });
    expect(glance.copyRequests).toEqual([]);
  });

  it('ferry prewarm: Ctrl-C → exit 130, the report names the copy still running inside Glance', async () => {
    const controller = new AbortController();
    const glance = scriptedImages({ [A]: { name: 'big', reads: [{ stores: ['central'] }, { stores: ['central'], lock: T1, importing: ['site-a'] }] },
      [B]: copyTo('site-a') });
    glance.onRead = (id) => { if (id === A && (glance.reads[A] ?? 0) >= 2) controller.abort(new Error('interrupted by SIGINT')); };
    const run = await runWith(['prewarm', A, B, '--store', 'site-a', '--concurrency', '1'], glance, { signal: controller.signal });
    expect(run.code).toBe(130);
    expect(run.stdout).toContain('still running inside Glance (they go on; run the same command again to pick them up):');
    expect(run.stdout).toContain(`big (${A}) → site-a  task ${T1}`);
    expect(run.stderr).toMatch(/stopping: no new copies; 1 running/);
    expect(run.stderr).toMatch(/^interrupted big \(00000000\) → site-a: the run stopped; import task a8860fd2-\S+ goes on copying it inside Glance$/m);
    expect(run.stderr).not.toContain('img-site-a');
  });

  it('ferry prewarm on a TTY: the live area shows the bar and running copies; only plan and failures stay', async () => {
    const glance = scriptedImages({ [A]: copyTo('site-a'), [B]: copyTo('broken', true) });
    const run = await runWith(['prewarm', A, B, '--store', 'site-a', '--store', 'broken', '--any-format'], glance, { tty: true });
    expect(run.code).toBe(50);
    expect(run.stderr).toMatch(/\[#+\.*\] \d\/4 copies · \d running/);
    expect(run.stderr).toContain('plan: 4 (image, store) pairs');
    expect(run.stderr).toContain('failed      img-broken');
    expect(run.stderr).not.toMatch(/^copied {6}/m);
  });
});

describe('createPrewarmProgress', () => {
  it('createPrewarmProgress: frame = bar, counts, one line per running copy with phase, elapsed and Glance\'s message', () => {
    const progress = createPrewarmProgress(0);
    const image = imageOf(A, { stores: ['central'] }, { name: 'ubuntu' });
    const plan = planPrewarm({ targets: [{ image, stores: ['site-a', 'site-b'] }],
      catalogue: { typesKnown: true, stores: [{ id: 'site-a', type: 'rbd', readOnly: false, isDefault: false }, { id: 'site-b', type: 'rbd', readOnly: false, isDefault: false }] } });
    expect(progress.handle({ type: 'planned', plan }, 0)).toMatch(/^plan: 2 \(image, store\) pairs: 2 missing/);
    progress.handle({ type: 'job-progress', imageId: A, imageName: 'ubuntu', stores: ['site-a', 'site-b'], phase: 'copying', elapsedMs: 500,
      taskMessage: 'Copied 512 MiB', note: 'copying to site-b' }, 2_500);
    expect(progress.frame(4_000)).toBe([
      '[..............................] 0/2 copies · 1 running · 4.0 s',
      '  ubuntu → site-a, site-b · copying · 2.0 s · Copied 512 MiB · copying to site-b',
    ].join('\n'));
    const line = progress.handle({ type: 'item-done', item: { imageId: A, imageName: 'ubuntu', store: 'site-a', planned: 'missing', action: 'copy',
      outcome: 'copied', reason: 'copied to site-a', elapsedMs: 3_100 } }, 4_000);
    expect(line).toBe('copied      ubuntu (00000000) → site-a in 3.1 s');
    progress.handle({ type: 'job-done', imageId: A }, 4_100);
    expect(progress.frame(5_000)).toBe('[###############...............] 1/2 copies · 0 running · 5.0 s');
  });
});
