import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cephAll, CEPH_MS, devcloud, FERRY } from '../../helpers/devcloud.js';
import { FAULT_MS, faults } from '../../helpers/devcloud-faults.js';
import { INTEGRATION_TEST_MS } from '../../helpers/spawn-budget.js';
import { imagesDeletedAfterAll, readImage } from '../../helpers/glance-admin.js';
import {
  DIGEST_MS, ferryAsync, ferrySync, FERRY_RUN_MS, md5, md5OfSnapshot, MiB, rbdEnsureArgs, rbdNames, removeSiteB, siteBLocations, sparseBytes, uploadBytes, usedBytes,
} from './rbd-transfer-helpers.js';

// The direct RBD → RBD transfer (issue 19) against the dev cloud's Glance and both Ceph clusters, through the CLI
// exactly as scripts call it.
const created = imagesDeletedAfterAll();

async function image(name: string, bytes: Buffer, diskFormat = 'raw'): Promise<string> {
  const id = await uploadBytes(`it-rbd-${name}`, bytes, 'site-a', diskFormat);
  created.push(id);
  return id;
}

describe('ferry ensure --transfer rbd', () => {
  it('ensure --transfer rbd: a sparse image lands sparse, verified, registered and clonable; a second ensure says already local', async () => {
    const bytes = sparseBytes(32 * MiB, 4 * MiB);
    const id = await image('happy', bytes);
    const run = ferrySync(rbdEnsureArgs(id));
    expect(run.code, run.stderr).toBe(0);
    // Through librbd (python3-rbd is on the dev cloud): without it ferry warns and uses the rbd CLI (test below).
    expect(run.stderr).not.toContain('librbd (python3-rbd) is not available');
    expect(run.json).toMatchObject({ image: id, store: 'site-b', copied: true, transfer: 'rbd', import_requests: 0,
      target: { fsid: devcloud().ceph['site-b'].fsid, pool: 'images', image: id, snapshot: 'snap' } });

    const glance = await readImage(id);
    expect(String(glance.stores).split(',').sort()).toEqual(['site-a', 'site-b']);
    expect(md5OfSnapshot('site-b', id)).toBe(glance.checksum);
    expect(md5(bytes)).toBe(glance.checksum);
    // Only the allocated extents were written: 4 MiB of data lie in one 8 MiB object, the zeros nowhere.
    const used = usedBytes('site-b', id);
    expect(used).toBeGreaterThan(0);
    expect(used).toBeLessThanOrEqual(8 * MiB);
    expect(usedBytes('site-a', id)).toBe(32 * MiB);
    expect(rbdNames('site-b')).not.toContain(`${id}.ferry-partial`);

    const clone = `vms/it-rbd-clone-${id.slice(0, 8)}`;
    // Cloned, read and removed in one program.
    const [cloned, info] = cephAll('site-b', [['rbd', 'clone', `images/${id}@snap`, clone], ['rbd', 'info', clone], ['rbd', 'rm', '--no-progress', clone]], 'glance');
    expect(cloned?.code, cloned?.stderr).toBe(0);
    expect(info?.stdout).toContain(`parent: images/${id}@snap`);

    const again = ferrySync(rbdEnsureArgs(id));
    expect(again.code, again.stderr).toBe(0);
    expect(again.json).toMatchObject({ copied: false, transfer: null, import_requests: 0, image_reads: 1 });
  }, INTEGRATION_TEST_MS + 2 * FERRY_RUN_MS + DIGEST_MS + 4 * CEPH_MS);

  it('the rbd CLI data path: forced (FERRY_RBD_DATA_PATH=cli), and where python3-rbd is missing (warned): same sparse, verified, registered copy', async () => {
    // A python without site-packages has no rados module: a host without python3-rbd.
    const noBinding = join(mkdtempSync(join(tmpdir(), 'ferry-it-')), 'python3');
    writeFileSync(noBinding, '#!/bin/sh\nexec /usr/bin/python3 -S "$@"\n');
    chmodSync(noBinding, 0o755);
    for (const [name, env] of [['cli', { FERRY_RBD_DATA_PATH: 'cli' }], ['no-binding', { FERRY_RBD_PYTHON: noBinding }]] as const) {
      const bytes = sparseBytes(32 * MiB, 4 * MiB);
      const id = await image(`data-path-${name}`, bytes);
      const run = await ferryAsync(rbdEnsureArgs(id), env).done;
      expect(run.code, `${run.stderr}${JSON.stringify(run.json)}`).toBe(0);
      expect(run.json).toMatchObject({ copied: true, transfer: 'rbd' });
      expect(run.stderr.includes('librbd (python3-rbd) is not available')).toBe(name === 'no-binding');
      const glance = await readImage(id);
      expect(md5OfSnapshot('site-b', id)).toBe(glance.checksum);
      expect(usedBytes('site-b', id)).toBeLessThanOrEqual(8 * MiB);
      expect(await siteBLocations(id)).toHaveLength(1);
    }
  }, INTEGRATION_TEST_MS + 2 * (FERRY_RUN_MS + DIGEST_MS + CEPH_MS));

  it('ensure --transfer auto: no source cluster holds the image → Glance\'s copy-image brings it', async () => {
    const id = await image('auto', sparseBytes(8 * MiB, MiB));
    const args = rbdEnsureArgs(id).map((arg) => (arg === 'rbd' ? 'auto' : arg.startsWith('site-a=') ? `site-c=${devcloud().ceph['site-a'].conf}` : arg));
    const run = ferrySync(args);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json).toMatchObject({ copied: true, transfer: 'glance', import_requests: 1 });
  }, INTEGRATION_TEST_MS + FERRY_RUN_MS);
});

describe('ferry prewarm --transfer rbd', () => {
  it('prewarm --transfer rbd: two images into site-b, the report counts them as rbd transfers, no import request, verified bytes', async () => {
    const ids = [await image('prewarm-1', sparseBytes(16 * MiB, 2 * MiB)), await image('prewarm-2', sparseBytes(16 * MiB, 2 * MiB))];
    const facts = devcloud();
    const run = ferrySync(['prewarm', ...ids, '--store', 'site-b', '--transfer', 'rbd', '--rbd-user', FERRY.transferRbdUser, '--json',
      '--source-ceph-conf', `site-a=${facts.ceph['site-a'].conf}`, '--source-ceph-conf', `site-b=${facts.ceph['site-b'].conf}`]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json).toMatchObject({ counts: { copied: 2, failed: 0 }, transfers: { rbd: 2, glance: 0 }, requests: { import_requests: 0 } });
    for (const id of ids) expect(md5OfSnapshot('site-b', id)).toBe((await readImage(id)).checksum);
  }, INTEGRATION_TEST_MS + FERRY_RUN_MS + 2 * DIGEST_MS);
});

describe('ferry ensure --transfer rbd refuses clearly, never half-done', () => {
  it('refusal: no cluster named for the image\'s store → 36 FERRY_RBD_SOURCE_UNREACHABLE, nothing written', async () => {
    const id = await image('nosource', sparseBytes(4 * MiB, MiB));
    const args = rbdEnsureArgs(id).map((arg) => (arg.startsWith('site-a=') ? `site-c=${devcloud().ceph['site-a'].conf}` : arg));
    const run = ferrySync(args);
    expect(run.code).toBe(36);
    expect(run.json).toMatchObject({ error: { code: 'FERRY_RBD_SOURCE_UNREACHABLE' } });
    expect(String((run.json.error as { hint: string }).hint)).toContain('--source-ceph-conf');
    expect(rbdNames('site-b').filter((name) => name.startsWith(id))).toEqual([]);
    expect(await siteBLocations(id)).toEqual([]);
  }, INTEGRATION_TEST_MS + FERRY_RUN_MS + CEPH_MS);

  it('refusal: the source conf reaches another cluster than the location names → 36, naming the fsids', async () => {
    const id = await image('wrongcluster', sparseBytes(4 * MiB, MiB));
    const args = rbdEnsureArgs(id).map((arg) => (arg.startsWith('site-a=') ? `site-a=${devcloud().ceph['site-b'].conf}` : arg));
    const run = ferrySync(args);
    expect(run.code).toBe(36);
    expect(String((run.json.error as { message: string }).message)).toContain(devcloud().ceph['site-b'].fsid);
  }, INTEGRATION_TEST_MS + FERRY_RUN_MS);

  it('refusal: not raw → 24 FERRY_NOT_CLONABLE before anything is written', async () => {
    const id = await image('qcow2', sparseBytes(4 * MiB, MiB), 'qcow2');
    const run = ferrySync(rbdEnsureArgs(id));
    expect(run.code).toBe(24);
    expect(run.json).toMatchObject({ error: { code: 'FERRY_NOT_CLONABLE' } });
  }, INTEGRATION_TEST_MS + FERRY_RUN_MS);

  it('refusal: an image of that name ferry did not verify → 33 FERRY_COPY_TARGET_EXISTS; it is left alone, nothing registered', async () => {
    const id = await image('foreign', sparseBytes(4 * MiB, MiB));
    expect(cephAll('site-b', [['rbd', 'create', '--size', '4M', `images/${id}`]], 'admin')[0]?.code).toBe(0);
    try {
      const run = ferrySync(rbdEnsureArgs(id));
      expect(run.code).toBe(33);
      expect(run.json).toMatchObject({ error: { code: 'FERRY_COPY_TARGET_EXISTS' } });
      const names = rbdNames('site-b');
      expect(names).toContain(id);
      expect(names).not.toContain(`${id}.ferry-partial`);
      expect(await siteBLocations(id)).toEqual([]);
    } finally {
      removeSiteB(id);
    }
  }, INTEGRATION_TEST_MS + FERRY_RUN_MS + 3 * CEPH_MS);

  it('a half-created temporary image (a writer killed inside rbd create) is removed after one more look, then the copy runs', async () => {
    const bytes = sparseBytes(4 * MiB, MiB);
    const id = await image('half-temp', bytes);
    faults.rbdHalfCreated('site-b', `${id}.ferry-partial`);
    const run = ferrySync(rbdEnsureArgs(id));
    expect(run.code, run.stderr).toBe(0);
    expect(run.json).toMatchObject({ image: id, store: 'site-b', copied: true, transfer: 'rbd' });
    expect(run.stderr).toContain('removing a half-created temporary image');
    expect(md5OfSnapshot('site-b', id)).toBe((await readImage(id)).checksum);
    expect(rbdNames('site-b')).not.toContain(`${id}.ferry-partial`);
    expect(await siteBLocations(id)).toHaveLength(1);
  }, INTEGRATION_TEST_MS + FAULT_MS + FERRY_RUN_MS + DIGEST_MS + CEPH_MS);

  it('refusal: a half-created image holds the image\'s name in the target pool → 33 saying so; nothing registered, nothing of ferry\'s left', async () => {
    const id = await image('half-final', sparseBytes(4 * MiB, MiB));
    faults.rbdHalfCreated('site-b', id);
    try {
      const run = ferrySync(rbdEnsureArgs(id));
      expect(run.code, run.stderr).toBe(33);
      expect(run.json).toMatchObject({ error: { code: 'FERRY_COPY_TARGET_EXISTS', details: { half_created: true, pool: 'images', rbd_image: id } } });
      expect((run.json.error as { message: string }).message).toContain(`half-created RBD image images/${id}`);
      expect(rbdNames('site-b')).not.toContain(`${id}.ferry-partial`);
      expect(await siteBLocations(id)).toEqual([]);
    } finally {
      faults.rbdRemove('site-b', id);
    }
  }, INTEGRATION_TEST_MS + 2 * FAULT_MS + FERRY_RUN_MS + CEPH_MS);

  it('refusal: the source snapshot differs from Glance\'s hash → 38 FERRY_COPY_HASH_MISMATCH, the copy removed, nothing registered', async () => {
    const id = await image('mismatch', sparseBytes(4 * MiB, MiB));
    // Rewrite site-a's snapshot behind Glance's back: same size, other bytes.
    // One program, each command asserted in turn.
    const rewrite = cephAll('site-a', [['rbd', 'snap', 'unprotect', `images/${id}@snap`], ['rbd', 'snap', 'rm', '--no-progress', `images/${id}@snap`],
      ['rbd', 'bench', '--io-type', 'write', '--io-size', '4096', '--io-total', '65536', '--io-pattern', 'seq', `images/${id}`],
      ['rbd', 'snap', 'create', `images/${id}@snap`], ['rbd', 'snap', 'protect', `images/${id}@snap`]], 'admin');
    for (const out of rewrite) expect(out.code).toBe(0);
    const run = ferrySync(rbdEnsureArgs(id));
    expect(run.code).toBe(38);
    expect(run.json).toMatchObject({ error: { code: 'FERRY_COPY_HASH_MISMATCH' } });
    expect(rbdNames('site-b').filter((name) => name.startsWith(id))).toEqual([]);
    expect(await siteBLocations(id)).toEqual([]);
  }, INTEGRATION_TEST_MS + CEPH_MS + FERRY_RUN_MS + CEPH_MS);

  it('refusal: --transfer rbd without --source-ceph-conf → 2 FERRY_INVALID_OPTION before any request', () => {
    const run = ferrySync(rbdEnsureArgs('00000000-0000-4000-8000-000000000000').filter((arg) => !arg.startsWith('site-a=') && arg !== '--source-ceph-conf'));
    expect(run.code).toBe(2);
    expect(String((run.json.error as { message: string }).message)).toContain('source cluster');
  }, INTEGRATION_TEST_MS + FERRY_RUN_MS);
});
