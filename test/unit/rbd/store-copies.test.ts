import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandOutcome } from '../../../src/rbd/command-runner.js';
import { clearCopyMarks, setCopyMarks } from '../../../src/rbd/copy-fence-marks.js';
import { pythonProgramText } from '../../../src/rbd/python-program.js';
import { lookAtCopies } from '../../../src/rbd/copy-look.js';
import { checkStoreCopies, readStoreCopies, STORE_OUTPUT_MAX_BYTES, type StorePool } from '../../../src/rbd/store-copies.js';
import { scriptedRunner } from '../../helpers/scripted-runner.js';

// The Node side of python/rbd_store_copies.py: how it is run (one process per store and command, isolated, from /),
// what its answers become, and its failures. The program itself runs against stand-ins in test/unit/rbd/python/ and
// against the dev cloud's Ceph in the eviction's integration tests; the answer below was printed by it there
// (scripts/devcloud/recorder/store-delete-cases.ts): a copy with a live clone and one whose only clone is in the trash.

const RECORDED = readFileSync('fixtures/rbd/store-listing-site-b.json', 'utf8');
const STORE: StorePool = { confFile: '/etc/ceph/site-b.conf', user: 'ferry', pool: 'images', snapshot: 'snap' };
const exited = (exitCode: number, stdout: string, stderr = ''): CommandOutcome => ({ outcome: 'exited', exitCode, signal: null, stdout, stderr });

/** A stand-in for python that prints `text` whatever it is asked (run for real: the runner's output bound is what is tested). */
function printing(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-listing-'));
  writeFileSync(join(dir, 'listing.json'), text);
  const script = join(dir, 'python');
  writeFileSync(script, `#!/bin/sh\nexec cat '${join(dir, 'listing.json')}'\n`);
  chmodSync(script, 0o755);
  return script;
}

/** A listing whose one copy has `clones` clones: ~150 bytes of JSON each. */
const manyClones = (clones: number): string => JSON.stringify({ pool: 'images', snapshot: 'snap', quota_bytes: 0, capacity: null, trash: [],
  images: [{ name: 'golden', id: 'a1', size: 1, used: 1, created: 1, accessed: 1, modified: 1, protected: true, meta: {},
    children: Array.from({ length: clones }, (_, n) => ({ pool: 'vms', namespace: '', image: `${String(n).padStart(8, '0')}-0000-4000-8000-000000000000_disk`,
      id: `c${n}`, trash: false, created: 1_795_746_584.123 })) }] });

describe('the listing\'s size', () => {
  it('35 000 clones of one copy (4.5 MiB of answer, over the 4 MiB the rbd/ceph commands are held to) are read whole', async () => {
    const text = manyClones(35_000);
    expect(text.length).toBeGreaterThan(4 * 2 ** 20);
    const listing = await readStoreCopies(STORE, { python: printing(text) });
    expect(listing.images[0]).toMatchObject({ kind: 'image', name: 'golden' });
    expect((listing.images[0] as { clones: readonly unknown[] }).clones).toHaveLength(35_000);
  }, 30_000);

  it('an answer over its bound is FERRY_CEPH naming the bound and the pool, not a parse error', async () => {
    await expect(readStoreCopies(STORE, { python: printing(manyClones(100)), maxOutputBytes: 1024 })).rejects.toMatchObject({ code: 'FERRY_CEPH',
      message: expect.stringContaining('answered more than 1 KiB') as unknown, hint: expect.stringContaining('pool images') as unknown });
    expect(STORE_OUTPUT_MAX_BYTES).toBe(256 * 2 ** 20);
  }, 30_000);
});

describe('readStoreCopies', () => {
  it('one python process for the whole pool, isolated from / with conf, user, timeout, pool, snapshot and `list`', async () => {
    const runner = scriptedRunner(exited(0, RECORDED));
    await readStoreCopies(STORE, { runner, python: '/usr/bin/python3', connectTimeoutMs: 5_000 });
    expect(runner.calls.map((call) => [call.file, call.args, call.options.cwd])).toEqual([['/usr/bin/python3',
      ['-I', '-c', pythonProgramText('rbd_store_copies'), '/etc/ceph/site-b.conf', 'ferry', '5', 'images', 'snap', 'list'], '/']]);
  });

  it('the recorded answer: seconds become ms, clones keep their trash flag and creation time, no quota or capacity', async () => {
    const listing = await readStoreCopies(STORE, { runner: scriptedRunner(exited(0, RECORDED)) });
    expect(listing).toMatchObject({ pool: 'images', snapshot: 'snap', quotaBytes: undefined, capacity: undefined, trash: [] });
    expect(listing.images).toEqual([
      expect.objectContaining({ kind: 'image', name: '2d80e4f7-2cac-4fa1-b8c2-5f11d80a36da', sizeBytes: 1_048_576, usedBytes: 1_048_576,
        createdMs: 1_795_747_029_000, protected: true, trashedMs: undefined,
        clones: [{ pool: 'vms', namespace: '', image: 'ferry-fixture-clone-2d80e4f7', id: '10c5d8c56bbe', trash: false, createdMs: 1_795_747_030_000 }] }),
      expect.objectContaining({ kind: 'image', name: '93469f30-5123-4b82-b251-47c6c76da588', accessedMs: 1_795_746_672_000,
        clones: [expect.objectContaining({ image: 'exp-c1', trash: true, createdMs: 1_795_746_594_000 })] }),
    ]);
  });

  it('entries it could not read stay entries: absent (removed while listed) and unreadable (with errno)', async () => {
    const text = JSON.stringify({ pool: 'images', snapshot: 'snap', quota_bytes: 10, capacity: { cluster_bytes: 100, pool_stored_bytes: 5, pool_max_avail_bytes: 50 },
      images: [{ name: 'a', id: null, absent: true }, { name: 'b', id: null, error: '[errno 1] RBD permission error (error listing children.)', errno: 1 }], trash: [] });
    const listing = await readStoreCopies(STORE, { runner: scriptedRunner(exited(0, text)) });
    expect(listing).toMatchObject({ quotaBytes: 10, capacity: { clusterBytes: 100, poolStoredBytes: 5, poolMaxAvailBytes: 50 } });
    expect(listing.images).toEqual([{ kind: 'absent', name: 'a' },
      { kind: 'unreadable', name: 'b', message: '[errno 1] RBD permission error (error listing children.)', errno: 1 }]);
  });

  it.each<{ name: string; out: CommandOutcome; message: RegExp; hint: RegExp }>([
    { name: 'mons that do not answer (110)', out: exited(110, '', '[errno 110] RADOS timed out (error connecting to the cluster)\n'),
      message: /rbd_store_copies list images \(-c \/etc\/ceph\/site-b\.conf --id ferry\) failed \(exit 110\): \[errno 110\] RADOS timed out/,
      hint: /did not answer: check mon_host/ },
    { name: 'no such pool (2)', out: exited(2, '', "[errno 2] RADOS object not found (error opening pool 'images')\n"),
      message: /exit 2\): \[errno 2\] RADOS object not found/, hint: /pool 'images' exists/ },
    { name: 'refused (1)', out: exited(1, '', '[errno 1] RADOS permission denied\n'), message: /exit 1/, hint: /profile rbd-read-only.*every pool/ },
    { name: 'no python3-rbd (3)', out: exited(3, '{"unavailable": "No module named \'rbd\'"}\n'), message: /python3-rbd is not there/, hint: /Install python3-rbd/ },
    { name: 'no python at all', out: { outcome: 'failed', message: 'spawn /usr/bin/python3 ENOENT', errorCode: 'ENOENT' },
      message: /python3-rbd is not there \(\/usr\/bin\/python3 is not installed\)/, hint: /FERRY_RBD_PYTHON/ },
    { name: 'a librbd assertion (SIGABRT)', out: { outcome: 'exited', exitCode: null, signal: 'SIGABRT', stdout: '', stderr: LIBRBD_ABORT },
      message: /failed \(killed by SIGABRT\): \.\/src\/librbd\/api\/DiffIterate\.cc: 341: FAILED ceph_assert\(object_diff_state/,
      hint: /aborted inside librbd on an image of pool images.*rbd -c \/etc\/ceph\/site-b\.conf --id ferry ls -l images.*Ceph version/ },
    { name: 'an answer that is not the program\'s', out: exited(0, '{"pool": 1}'), message: /answered something ferry does not understand \(pool:/,
      hint: /defect of ferry's rbd_store_copies\.py/ },
  ])('$name → FERRY_CEPH naming the command and what to do', async ({ out, message, hint }) => {
    const read = readStoreCopies(STORE, { runner: scriptedRunner(out), python: '/usr/bin/python3' });
    await expect(read).rejects.toMatchObject({ code: 'FERRY_CEPH', message: expect.stringMatching(message) as unknown });
    await expect(read).rejects.toHaveProperty('hint', expect.stringMatching(hint));
  });
});

/** librbd 16.2.15's stderr when diff_iterate meets a 0-byte image with fast-diff (the dev cloud, 2026-11-29), shortened. */
const LIBRBD_ABORT = [
  "./src/librbd/api/DiffIterate.cc: In function 'int librbd::api::DiffIterate<ImageCtxT>::execute() [with ImageCtxT = librbd::ImageCtx]' "
    + 'thread 7f7ed3c8d2c0 time 2026-11-29T18:54:10.647433+0000',
  './src/librbd/api/DiffIterate.cc: 341: FAILED ceph_assert(object_diff_state.size() == end_object_no - start_object_no)',
  ' ceph version 16.2.15 (618f440892089921c3e944a991122ddc44e60516) pacific (stable)',
  ' 1: (ceph::__ceph_assert_fail(char const*, char const*, int, char const*)+0x127) [0x7f7ecaa4e5c4]',
  ' 5: rbd_diff_iterate2()',
  ' 20: __libc_start_main()',
  ' 21: _start()',
].join('\n');

describe('checkStoreCopies and the marks', () => {
  it('check names the images; nothing to check runs nothing', async () => {
    const runner = scriptedRunner(exited(0, JSON.stringify({ images: [{ name: 'x', id: null, absent: true }] })));
    await expect(checkStoreCopies(STORE, ['x'], { runner })).resolves.toEqual([{ kind: 'absent', name: 'x' }]);
    await expect(checkStoreCopies(STORE, [], { runner })).resolves.toEqual([]);
    expect(runner.calls.map((call) => call.args.slice(8))).toEqual([['check', 'x']]);
  });

  it('fence and unfence: one process for every image, each image\'s result', async () => {
    const runner = scriptedRunner(
      exited(0, JSON.stringify({ results: [{ name: 'a', ok: true }, { name: 'b', absent: true }, { name: 'c', error: 'denied', errno: 1 },
        { name: 'd', held: 'w' }] })),
      exited(0, JSON.stringify({ results: [{ name: 'a', removed: true }, { name: 'b', other: true }, { name: 'c', none: true },
        { name: 'd', error: 'metadata unreadable', errno: 5 }] })),
      exited(0, JSON.stringify({ results: [{ name: 'd', held: null }] })));
    const set = await setCopyMarks(STORE, 'ferry.evicting', 'v', undefined, ['a', 'b', 'c', 'd'], { runner });
    expect([...set]).toEqual([['a', 'set'], ['b', 'absent'], ['c', { error: 'denied', errno: 1 }], ['d', { held: 'w' }]]);
    const cleared = await clearCopyMarks(STORE, 'ferry.evicting', 'v', ['a', 'b', 'c', 'd'], { runner });
    expect([...cleared]).toEqual([['a', 'removed'], ['b', 'held-by-other'], ['c', 'not-set'], ['d', { error: 'metadata unreadable', errno: 5 }]]);
    const takeover = await setCopyMarks(STORE, 'ferry.evicting', 'v', 'w', ['d'], { runner });
    expect([...takeover]).toEqual([['d', { held: null }]]);
    expect(runner.calls.map((call) => call.args.slice(8))).toEqual([['fence', 'ferry.evicting', 'v', '', 'a', 'b', 'c', 'd'],
      ['unfence', 'ferry.evicting', 'v', 'a', 'b', 'c', 'd'], ['fence', 'ferry.evicting', 'v', 'w', 'd']]);
  });
});

describe('lookAtCopies', () => {
  // Printed by `look` on the dev cloud as client.ferry (read-only caps on the images pool alone), then one image fenced.
  const LOOKED = '{"images": [{"name": "03f3fd4e-375a-4ed8-984c-c0027ca3b435", "protected": true, "meta": {}}, {"name": "nonexist", "absent": true}, '
    + '{"name": "b701dc8a", "protected": false, "meta": {"ferry.evicting": "{\\"run\\": \\"r\\"}"}}, {"name": "x", "protected": null, "meta": {}}, '
    + '{"name": "y", "error": "[errno 1] RBD permission error", "errno": 1}]}';

  it('one process for the names given (`look`), each copy as the snapshot and the ferry marks, gone, or unreadable', async () => {
    const runner = scriptedRunner(exited(0, LOOKED));
    const looks = await lookAtCopies(STORE, ['03f3fd4e-375a-4ed8-984c-c0027ca3b435', 'nonexist', 'b701dc8a', 'x', 'y'], { runner, python: '/usr/bin/python3' });
    expect(runner.calls.map((call) => call.args.slice(-7))).toEqual([['images', 'snap', 'look', '03f3fd4e-375a-4ed8-984c-c0027ca3b435', 'nonexist', 'b701dc8a', 'x', 'y'].slice(-7)]);
    expect(looks).toEqual([
      { kind: 'copy', name: '03f3fd4e-375a-4ed8-984c-c0027ca3b435', snapshot: 'protected', meta: {} },
      { kind: 'absent', name: 'nonexist' },
      { kind: 'copy', name: 'b701dc8a', snapshot: 'unprotected', meta: { 'ferry.evicting': '{"run": "r"}' } },
      { kind: 'copy', name: 'x', snapshot: 'missing', meta: {} },
      { kind: 'unreadable', name: 'y', message: '[errno 1] RBD permission error', errno: 1 },
    ]);
  });

  it('an answer that does not fit is FERRY_CEPH naming the command', async () => {
    await expect(lookAtCopies(STORE, ['a'], { runner: scriptedRunner(exited(0, '{"images": [{"name": 3}]}')) }))
      .rejects.toMatchObject({ code: 'FERRY_CEPH', message: expect.stringContaining('rbd_store_copies look images') as unknown });
  });
});
