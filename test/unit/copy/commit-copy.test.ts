import { describe, expect, it } from 'vitest';
import { commitCopy, type CommitEnvironment, type CommitRequest } from '../../../src/copy/transfer/commit-copy.js';
import { FerryError } from '../../../src/errors/ferry-error.js';
import { parseImage, type GlanceImage } from '../../../src/glance/image.js';
import { silentLogger } from '../../../src/logging/logger.js';
import type { CommandOutcome } from '../../../src/rbd/command-runner.js';
import { FSID_B, IMAGE_ID, imageBody, type ImageShape } from '../../helpers/image-body.js';
import { scriptedRunner } from '../../helpers/scripted-runner.js';

// The commit of a direct copy (rename, then the location), with the rbd CLI answered by the scripted runner from what
// Ceph 16.2.15 printed on the dev cloud (2026-11-27), and Glance by plain functions. The commit takes only its narrow
// environment, never the job.

const exited = (exitCode: number, stdout = '', stderr = ''): CommandOutcome => ({ outcome: 'exited', exitCode, signal: null, stdout, stderr });
const RECORDED = {
  ok: exited(0),
  renameExists: exited(17, '', '2026-11-27T00:47:43.215+0000 7f658721f380 -1 librbd::Operations: rbd image r2 already exists\n\nrbd: rename error: (17) File exists\n'),
  renameAbsent: exited(2, '', '2026-11-27T00:47:43.355+0000 7fe6eb6bb380 -1 librbd: error opening source image: (2) No such file or directory\n\n'
    + 'rbd: rename error: (2) No such file or directory\n'),
  info: (id: string) => exited(0, JSON.stringify({ name: IMAGE_ID, id, size: 16777216, objects: 2, order: 23, object_size: 8388608, snapshot_count: 1,
    features: ['layering', 'exclusive-lock', 'object-map', 'fast-diff', 'deep-flatten'], create_timestamp: 'Fri Nov 27 00:28:43 2026' })),
  infoAbsent: exited(2, '', `rbd: error opening image ${IMAGE_ID}: (2) No such file or directory\n`),
  snapLs: (id: number) => exited(0, JSON.stringify([{ id, name: 'snap', size: 16777216, protected: 'true', timestamp: 'Fri Nov 27 00:28:44 2026' }])),
  lsWith: (name: string) => exited(0, JSON.stringify([name])),
};

const image = (shape: ImageShape = {}): GlanceImage => parseImage(imageBody(shape));
/** The image and snapshot proven (streamed by this run, or read back), and what the final name answers when it holds them. */
const PROVEN = { imageId: '10275af3464f', snapshotId: 4 };
const HOLDS_PROVEN = [RECORDED.info(PROVEN.imageId), RECORDED.snapLs(PROVEN.snapshotId)] as const;
const CHECKED = [`info --format json -- images/${IMAGE_ID}`, `snap ls --format json --pool images --image-id ${PROVEN.imageId}`];
const URL = `rbd://${FSID_B}/images/${IMAGE_ID}/snap`;

interface Harness {
  readonly env: CommitEnvironment;
  readonly patches: { url: string; store: string }[];
}

function harness(options: { reads?: GlanceImage[]; patch?: () => Promise<GlanceImage> } = {}): Harness {
  const patches: { url: string; store: string }[] = [];
  let reads = 0;
  const env: CommitEnvironment = {
    imageId: IMAGE_ID, signal: new AbortController().signal, logger: silentLogger,
    read: () => Promise.resolve(options.reads?.[Math.min(reads++, (options.reads?.length ?? 1) - 1)] ?? image()),
    addLocation: (location) => {
      patches.push({ ...location });
      return options.patch?.() ?? Promise.resolve(image({ stores: ['site-a', 'site-b'] }));
    },
    progress: () => undefined,
  };
  return { env, patches };
}

function request(runner: ReturnType<typeof scriptedRunner>, over: Partial<CommitRequest> = {}): CommitRequest {
  return {
    plan: { store: 'site-b', target: { confFile: '/etc/ceph/b.conf', user: 'glance' }, targetFsid: Promise.resolve(FSID_B), ignoredLock: undefined,
      oneLocationWrite: (work) => work() },
    cli: { confFile: '/etc/ceph/b.conf', user: 'glance', runner },
    from: { pool: 'images', image: `${IMAGE_ID}.ferry-partial` }, final: { pool: 'images', image: IMAGE_ID },
    bytes: 4096, verifyMs: 12, proven: PROVEN, ...over,
  };
}

/** Each rbd call from its subcommand on (after the connection and timeout options). */
const commands = (runner: ReturnType<typeof scriptedRunner>): string[] =>
  runner.calls.map((call) => call.args.slice(call.args.indexOf('--rados-osd-op-timeout') + 2).join(' '));

describe('commitCopy: this run\'s own copy', () => {
  it('commitCopy: renamed, the name checked to hold the image and snapshot it wrote, then registered at the target cluster\'s fsid', async () => {
    const runner = scriptedRunner(RECORDED.ok, ...HOLDS_PROVEN);
    const { env, patches } = harness();
    const end = await commitCopy(env, request(runner));
    expect(end).toMatchObject({ kind: 'copied', bytes: 4096, verifyMs: 12 });
    expect(commands(runner)).toEqual([`rename -- images/${IMAGE_ID}.ferry-partial images/${IMAGE_ID}`, ...CHECKED]);
    expect(patches).toEqual([{ url: URL, store: 'site-b' }]);
  });

  // Issue 34: a neighbour with write on the pool renamed its own image into the temporary name between ferry's
  // verification and its rename; the rename moved that image to the final name. Was registered.
  it('commitCopy: another image under the final name after the rename (swapped in under the temporary name) → look again, nothing registered', async () => {
    const runner = scriptedRunner(RECORDED.ok, RECORDED.info('deadbeef0001'), RECORDED.snapLs(PROVEN.snapshotId));
    const { env, patches } = harness();
    expect(await commitCopy(env, request(runner))).toEqual({ kind: 'look-again' });
    expect(patches).toEqual([]);
  });

  it.each([
    { name: 'holds the image it wrote', holds: true, end: 'copied', patched: 1 },
    { name: 'holds another (renamed in under the temporary name)', holds: false, end: 'look-again', patched: 0 },
  ])('commitCopy through the librbd process: the final name $name, asked of the process (no rbd command) → $end', async ({ holds, end, patched }) => {
    const runner = scriptedRunner(RECORDED.ok);
    const asked: { image: string; proven: unknown }[] = [];
    const holder = { rename: () => Promise.resolve('renamed' as const), release: () => Promise.resolve(),
      holds: (ref: { image: string }, proven: unknown) => { asked.push({ image: ref.image, proven }); return Promise.resolve(holds); } };
    const { env, patches } = harness();
    expect(await commitCopy(env, request(runner, { holder }))).toMatchObject({ kind: end });
    expect(asked).toEqual([{ image: IMAGE_ID, proven: PROVEN }]);
    expect(runner.calls).toEqual([]);
    expect(patches).toHaveLength(patched);
  });

  it('commitCopy: Glance began to write the store meanwhile → joined: no rename, the temporary image removed', async () => {
    const runner = scriptedRunner(RECORDED.ok);
    const { env, patches } = harness({ reads: [image({ lock: 'task-1', importing: ['site-b'] })] });
    expect(await commitCopy(env, request(runner))).toMatchObject({ kind: 'busy' });
    expect(commands(runner)).toEqual([`snap unprotect -- images/${IMAGE_ID}.ferry-partial@snap`, `snap purge --no-progress -- images/${IMAGE_ID}.ferry-partial`,
      `rm --no-progress -- images/${IMAGE_ID}.ferry-partial`]);
    expect(patches).toEqual([]);
  });

  it('commitCopy: the name is taken by an image → the copy removed, look again (the claim decides; no recursion)', async () => {
    const runner = scriptedRunner(RECORDED.renameExists, RECORDED.ok, RECORDED.ok, RECORDED.ok, RECORDED.info('85448003cbfa'));
    const { env, patches } = harness();
    expect(await commitCopy(env, request(runner))).toEqual({ kind: 'look-again' });
    expect(commands(runner).at(-1)).toBe(`info --format json -- images/${IMAGE_ID}`);
    expect(runner.calls).toHaveLength(5);
    expect(patches).toEqual([]);
  });

  it('commitCopy: the name is held by a half-created image → 33 naming it, the copy removed', async () => {
    const runner = scriptedRunner(RECORDED.renameExists, RECORDED.ok, RECORDED.ok, RECORDED.ok, RECORDED.infoAbsent, RECORDED.lsWith(IMAGE_ID));
    const { env, patches } = harness();
    const end = await commitCopy(env, request(runner));
    expect(end).toMatchObject({ kind: 'refused', error: { code: 'FERRY_COPY_TARGET_EXISTS', details: { halfCreated: true } } });
    expect(patches).toEqual([]);
  });

  it('commitCopy: the temporary image is gone (another writer committed it) → look again, nothing removed', async () => {
    const runner = scriptedRunner(RECORDED.renameAbsent);
    const { env, patches } = harness();
    expect(await commitCopy(env, request(runner))).toEqual({ kind: 'look-again' });
    expect(runner.calls).toHaveLength(1);
    expect(patches).toEqual([]);
  });
});

describe('commitCopy: a copy proven by reading it back (issue 25)', () => {
  const proven = PROVEN;

  it('commitCopy: renamed, the name checked to hold the proven image and snapshot, then registered', async () => {
    const runner = scriptedRunner(RECORDED.ok, ...HOLDS_PROVEN);
    const { env, patches } = harness();
    expect(await commitCopy(env, request(runner, { proven, bytes: 0 }))).toMatchObject({ kind: 'copied' });
    expect(commands(runner)).toEqual([`rename -- images/${IMAGE_ID}.ferry-partial images/${IMAGE_ID}`, ...CHECKED]);
    expect(patches).toEqual([{ url: URL, store: 'site-b' }]);
  });

  it.each([
    { name: 'another image renamed into the name after the proof', info: RECORDED.info('deadbeef0001'), snaps: RECORDED.snapLs(4) },
    { name: 'the snapshot made again (another id) after the proof', info: RECORDED.info('10275af3464f'), snaps: RECORDED.snapLs(9) },
    { name: 'nothing under the name any more', info: RECORDED.infoAbsent, snaps: RECORDED.snapLs(4) },
  ])('commitCopy: $name → look again, nothing registered', async ({ info, snaps }) => {
    const runner = scriptedRunner(RECORDED.ok, info, snaps);
    const { env, patches } = harness();
    expect(await commitCopy(env, request(runner, { proven }))).toEqual({ kind: 'look-again' });
    expect(patches).toEqual([]);
  });

  it('commitCopy: a proven copy already under the final name: no rename, checked, registered', async () => {
    const runner = scriptedRunner(...HOLDS_PROVEN);
    const { env, patches } = harness();
    const final = { pool: 'images', image: IMAGE_ID };
    expect(await commitCopy(env, request(runner, { proven, from: final, bytes: 0 }))).toMatchObject({ kind: 'copied', bytes: 0 });
    expect(commands(runner)).toEqual(CHECKED);
    expect(patches).toHaveLength(1);
  });
});

describe('commitCopy: the location PATCH', () => {
  it('commitCopy: refused by Glance (policy) → the committed copy removed, the refusal reported', async () => {
    const runner = scriptedRunner(RECORDED.ok, ...HOLDS_PROVEN, RECORDED.ok);
    const refusal = new FerryError('FERRY_LOCATION_REFUSED', 'Glance refused the location', 'Allow add_image_location.');
    const { env } = harness({ patch: () => Promise.reject(refusal) });
    expect(await commitCopy(env, request(runner))).toEqual({ kind: 'refused', error: refusal });
    expect(commands(runner).slice(3)).toEqual([`snap unprotect -- images/${IMAGE_ID}@snap`, `snap purge --no-progress -- images/${IMAGE_ID}`,
      `rm --no-progress -- images/${IMAGE_ID}`]);
  });

  it('commitCopy: the answer lost, the location there → copied; nothing removed', async () => {
    const runner = scriptedRunner(RECORDED.ok, ...HOLDS_PROVEN);
    const lost = new FerryError('FERRY_HTTP', 'PATCH answered 502', 'Try again.', { retryable: true });
    const registered = parseImage({ ...imageBody({ stores: ['site-a', 'site-b'] }), locations: [{ url: URL, metadata: { store: 'site-b' } }] });
    const { env } = harness({ reads: [image(), registered], patch: () => Promise.reject(lost) });
    expect(await commitCopy(env, request(runner))).toMatchObject({ kind: 'copied', image: { id: IMAGE_ID } });
    expect(runner.calls).toHaveLength(3);
  });
});
