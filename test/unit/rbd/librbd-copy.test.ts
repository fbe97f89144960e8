import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isFerryError } from '../../../src/errors/ferry-error.js';
import { LibrbdUnavailableError, prepareLibrbdCopy, startLibrbdCopy, type LibrbdCopyRequest } from '../../../src/rbd/librbd-copy.js';
import { LIBRBD_PYTHON_DEFAULT } from '../../../src/rbd/python-program.js';
import { RbdStreamError } from '../../../src/rbd/rbd-streams.js';

// The Node side of the librbd data path against stand-in "pythons": small Node scripts that speak the protocol the way
// the real one does (src/rbd/python/librbd_copy.py), so each answer and each way of ending is seen. The real script
// runs against stand-in rados/rbd modules in test/unit/rbd/python/ and against the clusters in
// test/integration/copy/rbd-transfer.test.ts.

const dir = mkdtempSync(join(tmpdir(), 'ferry-librbd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in python: `-I -c SCRIPT` is ignored; `body` runs with `job` (the first stdin line) and `say(event, fields)`. */
function fakePython(name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, `#!${process.execPath}
const fs = require('node:fs');
const say = (event, fields = {}) => process.stdout.write(JSON.stringify({ event, ...fields }) + '\\n');
const lines = require('node:readline').createInterface({ input: process.stdin });
const log = (text) => fs.appendFileSync(${JSON.stringify(`${file}.log`)}, text + '\\n');
log('spawned');
let job;
lines.on('close', () => { log('stdin closed'); process.exit(0); });
lines.on('line', (line) => {
  if (job === undefined) { job = JSON.parse(line); log('job ' + line); ${body} return; }
  log('command ' + line);
  const command = JSON.parse(line);
  if (command.op === 'mark') setTimeout(() => say('marked', { target: command.target }), command.target === 0 ? 30 : 0);
  if (command.op === 'drop') say('dropped', { target: command.target });
  if (command.op === 'rename') say(command.to === 'taken' ? 'exists' : command.to === 'gone' ? 'absent' : 'renamed', { target: command.target });
  if (command.op === 'identify') say(command.name === 'gone' ? 'absent' : 'identified', { target: command.target, image_id: '10275af3464f', snapshot_id: 4, protected: true });
});
`);
  chmodSync(file, 0o755);
  return file;
}

const logOf = (python: string): string => readFileSync(`${python}.log`, 'utf8');

const COPIED = { size: 16 << 20, digest: 'ab'.repeat(64), data_bytes: 4096, objects: [1],
  targets: [{ ok: true, snapshot_size: 16 << 20, extents: [[4 << 20, 4 << 20]], image_id: '10275af3464f', snapshot_id: 4 },
    { ok: false, step: 'write', errno: 28, message: '[errno 28] No space left on device' }] };

function request(python: string, signal = new AbortController().signal): LibrbdCopyRequest {
  return {
    source: { confFile: '/etc/ceph/a.conf', user: 'glance', pool: 'images', image: 'IMG', snapshot: 'snap' },
    targets: [{ confFile: '/etc/ceph/b.conf', user: undefined, pool: 'images', image: 'IMG.ferry-partial' },
      { confFile: '/etc/ceph/b.conf', user: 'glance', pool: 'images-c', image: 'IMG.ferry-partial' }],
    targetSnapshot: 'ferry-snap', algorithm: 'sha512', objectSize: 4 << 20, writer: { key: 'ferry.writer', value: 'host-a:42' }, signal, python,
  };
}

describe('startLibrbdCopy', () => {
  it('sends the job, reports the copy as a stream summary with each target\'s facts or failure, then marks, drops and renames by target', async () => {
    const python = fakePython('ok', `say('copied', ${JSON.stringify(COPIED)});`);
    const session = startLibrbdCopy(request(python));
    const copied = await session.copied;
    expect(copied.summary).toMatchObject({ size: 16 << 20, digest: 'ab'.repeat(64), ordered: true, toSnapshot: 'ferry-snap', fromSnapshot: undefined });
    expect([...copied.summary.dataObjects]).toEqual([1]);
    expect([...copied.summary.writtenObjects]).toEqual([1]);
    expect(copied.targets[0]).toEqual({ ok: true, snapshotSize: 16 << 20, extents: [{ offset: 4 << 20, length: 4 << 20 }], imageId: '10275af3464f', snapshotId: 4 });
    const failed = copied.targets[1];
    expect(failed?.ok).toBe(false);
    expect(failed?.ok === false ? failed.failure.failure : undefined).toEqual({ side: 'target', exitCode: null, message: 'write: [errno 28] No space left on device' });
    // Sent at once: the answers are taken in the order the commands went (target 0's answer comes later).
    await Promise.all([session.mark(0, 'ferry.verified', 'sha512:x'), session.drop(1)]);
    expect(await session.rename(0, 'IMG')).toBe('renamed');
    expect(await session.rename(0, 'taken')).toBe('exists');
    expect(await session.rename(0, 'gone')).toBe('absent');
    expect(await session.identify(0, 'IMG')).toEqual({ imageId: '10275af3464f', snapshotId: 4, protected: true });
    expect(await session.identify(0, 'gone')).toBeUndefined();
    await session.close();
    const log = logOf(python);
    const job = JSON.parse(/^job (.*)$/m.exec(log)?.[1] ?? '{}') as Record<string, unknown>;
    expect(job).toMatchObject({
      source: { conf: '/etc/ceph/a.conf', user: 'glance', pool: 'images', image: 'IMG', snapshot: 'snap' },
      targets: [{ conf: '/etc/ceph/b.conf', pool: 'images', image: 'IMG.ferry-partial' }, { conf: '/etc/ceph/b.conf', user: 'glance', pool: 'images-c', image: 'IMG.ferry-partial' }],
      target_snapshot: 'ferry-snap', algorithm: 'sha512', object_size: 4 << 20, writer_key: 'ferry.writer', writer: 'host-a:42', connect_timeout_s: 10,
    });
    expect(log).toContain('command {"op":"mark","target":0,"key":"ferry.verified","value":"sha512:x"}\ncommand {"op":"drop","target":1}');
    expect(log).toContain('command {"op":"rename","target":0,"to":"IMG"}');
    expect(log).toContain('command {"op":"identify","target":0,"name":"IMG"}');
    expect(log.trim().split('\n').at(-1)).toBe('stdin closed');
  });

  it.each([
    { name: 'no image id', target: { image_id: undefined, snapshot_id: 4 } },
    { name: 'an empty image id', target: { image_id: '', snapshot_id: 4 } },
    { name: 'no snapshot id', target: { image_id: '10275af3464f', snapshot_id: null } },
  ])('a written target reported with $name is a failed target: its copy could not be told from an image renamed into its name', async ({ target }) => {
    const python = fakePython('no-identity', `say('copied', ${JSON.stringify({ ...COPIED, targets: [{ ok: true, snapshot_size: 16 << 20, extents: [], ...target }] })});`);
    const session = startLibrbdCopy(request(python));
    const [facts] = (await session.copied).targets;
    await session.close();
    expect(facts?.ok).toBe(false);
    expect(facts?.ok === false ? facts.failure.message : '').toContain('did not report the written image\'s id and its snapshot\'s');
  });

  it('a source failure is an RbdStreamError on the source side, naming the step', async () => {
    const python = fakePython('source-lost', `say('error', { side: 'source', step: 'read', errno: 110, message: '[errno 110] Connection timed out' }); process.exit(1);`);
    const error = await startLibrbdCopy(request(python)).copied.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RbdStreamError);
    expect((error as RbdStreamError).failure).toEqual({ side: 'source', exitCode: 1, message: 'read: [errno 110] Connection timed out' });
  });

  it('a target failure is an RbdStreamError on the target side', async () => {
    const python = fakePython('target-full', `say('error', { side: 'target', step: 'write', errno: 28, message: 'No space left on device' }); process.exit(1);`);
    const error = await startLibrbdCopy(request(python)).copied.catch((e: unknown) => e);
    expect((error as RbdStreamError).failure).toMatchObject({ side: 'target', message: 'write: No space left on device' });
  });

  it('a process that ends without an answer is a target failure carrying its last stderr line', async () => {
    const python = fakePython('crash', `process.stderr.write('Traceback (most recent call last):\\nMemoryError\\n'); process.exit(134);`);
    const error = await startLibrbdCopy(request(python)).copied.catch((e: unknown) => e);
    expect((error as RbdStreamError).failure).toMatchObject({ side: 'target', exitCode: 134 });
    expect((error as Error).message).toContain('ended without an answer: MemoryError');
  });

  it('no python3-rbd ("unavailable") and no python at all are LibrbdUnavailableError: the caller uses the rbd CLI', async () => {
    const python = fakePython('no-rbd', `say('unavailable', { message: "No module named 'rados'" }); process.exit(3);`);
    await expect(startLibrbdCopy(request(python)).copied).rejects.toBeInstanceOf(LibrbdUnavailableError);
    const missing = await startLibrbdCopy(request(join(dir, 'no-such-python'))).copied.catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(LibrbdUnavailableError);
    expect((missing as Error).message).toContain('ENOENT');
  });

  it('an abort closes its stdin (so it closes the images and exits) and rejects with FERRY_ABORTED', async () => {
    const python = fakePython('slow', '');
    const controller = new AbortController();
    const session = startLibrbdCopy(request(python, controller.signal));
    setTimeout(() => controller.abort(), 100);
    const error = await session.copied.catch((e: unknown) => e);
    expect(isFerryError(error, 'FERRY_ABORTED')).toBe(true);
    await session.close();
    expect(logOf(python)).toContain('stdin closed');
  });
});

describe('startLibrbdCopy: the job', () => {
  it('a relative ceph.conf reaches the process as an absolute path (it runs from /)', async () => {
    const python = fakePython('relative', `say('copied', ${JSON.stringify(COPIED)});`);
    const base = request(python);
    const session = startLibrbdCopy({ ...base, source: { ...base.source, confFile: 'site-a.conf' },
      targets: [{ ...base.targets[0]!, confFile: 'conf/site-b.conf' }] });
    await session.copied;
    await session.close();
    const job = JSON.parse(/^job (.*)$/m.exec(logOf(python))?.[1] ?? '{}') as { source: { conf: string }; targets: { conf: string }[] };
    expect([job.source.conf, job.targets[0]?.conf]).toEqual([join(process.cwd(), 'site-a.conf'), join(process.cwd(), 'conf', 'site-b.conf')]);
  });
});

describe('prepareLibrbdCopy', () => {
  it('starts the process before its job: the job given later is copied as by startLibrbdCopy', async () => {
    const python = fakePython('prepared', `say('copied', ${JSON.stringify(COPIED)});`);
    const prepared = prepareLibrbdCopy(python);
    await waitForLog(python, 'spawned');
    expect(logOf(python)).not.toContain('job ');
    const { python: _python, ...job } = request(python);
    const session = prepared.start(job);
    expect((await session.copied).targets[0]).toMatchObject({ ok: true });
    await prepared.discard(); // started: discarding is a no-op, the session still answers
    expect(await session.rename(0, 'IMG')).toBe('renamed');
    await session.close();
    expect(logOf(python).trim().split('\n')).toEqual(['spawned', expect.stringMatching(/^job /), 'command {"op":"rename","target":0,"to":"IMG"}', 'stdin closed']);
  });

  it('discard: a process that got no job (nothing was claimed) is ended, and discard resolves once it exited', async () => {
    const python = fakePython('discarded', '');
    const prepared = prepareLibrbdCopy(python);
    await waitForLog(python, 'spawned');
    await prepared.discard();
    expect(logOf(python).trim().split('\n')).toEqual(['spawned', 'stdin closed']);
  });

  it('a python that cannot start is found when the job is given: LibrbdUnavailableError', async () => {
    const prepared = prepareLibrbdCopy(join(dir, 'no-such-python-either'));
    await new Promise((resolve) => setTimeout(resolve, 50)); // its spawn error comes before the job
    const { python: _python, ...job } = request('unused');
    const error = await prepared.start(job).copied.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LibrbdUnavailableError);
    expect((error as Error).message).toContain('ENOENT');
  });
});

async function waitForLog(python: string, text: string): Promise<void> {
  for (let tries = 0; tries < 200; tries += 1) {
    try {
      if (logOf(python).includes(text)) return;
    } catch { /* not written yet */ }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${python} never logged '${text}'`);
}

describe('the real Python', () => {
  it('says "unavailable" (exit 3) where the rados/rbd bindings cannot be imported', async () => {
    // -S: without site-packages, Debian's python3 has no rados module, as a host without python3-rbd.
    const wrapper = join(dir, 'python-without-site');
    writeFileSync(wrapper, `#!/bin/sh\nexec ${LIBRBD_PYTHON_DEFAULT} -S "$@"\n`);
    chmodSync(wrapper, 0o755);
    const error = await startLibrbdCopy(request(wrapper)).copied.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LibrbdUnavailableError);
    expect((error as Error).message).toMatch(/No module named '(rados|rbd)'/);
  });
});
