import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { cephAll, CEPH_MS, devcloud, type CephCommand } from '../../helpers/devcloud.js';
import { INTEGRATION_TEST_MS } from '../../helpers/spawn-budget.js';
import { startFaultProxy } from '../../helpers/fault-proxy.js';
import { imagesDeletedAfterAll, readImage } from '../../helpers/glance-admin.js';
import {
  DIGEST_MS, ferryAsync, ferrySync, FERRY_RUN_MS, md5OfSnapshot, MiB, rbdEnsureArgs, rbdImageId, rbdNames, removeSiteB, sha512OfSnapshot, siteBLocations, sparseBytes,
  uploadBytes,
} from '../copy/rbd-transfer-helpers.js';

// Issue 25, finding 1: a neighbour with write on the target pool (every compute host shares nova's rbd_user) plants
// its own bytes under the name ferry writes, copies ferry's `ferry.verified` mark (the hash is public: os_hash_value)
// and waits. As the security review did by hand: 1 MiB of random bytes in an image of the right size, snapshot `snap`
// protected, the mark set, nobody watching. ferry must never register those bytes: the final name is proven or
// refused (and left alone: Glance may own it), the temporary name is proven or removed and written fresh.
const created = imagesDeletedAfterAll();

async function image(name: string): Promise<string> {
  const id = await uploadBytes(`it-rbd-forged-${name}`, sparseBytes(16 * MiB, 4 * MiB));
  created.push(id);
  return id;
}

/** rbd commands against site-b as admin, back to back in one program (cephAll: CEPH_MS), each asserted to succeed. */
function siteB(...commands: (readonly string[])[]): void {
  const outs = cephAll('site-b', commands.map((args): CephCommand => ['rbd', ...args]), 'admin');
  commands.forEach((args, n) => expect(outs[n]?.code, `rbd ${args.join(' ')}: ${outs[n]?.stderr ?? ''}`).toBe(0));
}

/** plantForgery()'s programs: the forgery written, its snapshot and mark in one rbd program. */
const PLANT_MS = CEPH_MS;
/** plantTrueCopy()'s programs: the image created, then the bytes piped from site-a (each end bounded as ceph()). */
const PLANT_TRUE_COPY_MS = 2 * CEPH_MS;

/** The neighbour's image under `name`: Glance's size, 1 MiB of its own bytes, `snap` protected, the mark copied. */
async function plantForgery(id: string, name: string): Promise<void> {
  const glance = await readImage(id);
  const bytes = Buffer.alloc(Number(glance.size));
  randomBytes(MiB).copy(bytes, 4 * MiB);
  const dir = mkdtempSync(join(tmpdir(), 'ferry-it-forged-'));
  try {
    writeFileSync(join(dir, 'forged.raw'), bytes);
    siteB(['import', '--no-progress', '--object-size', '8M', join(dir, 'forged.raw'), `images/${name}`], ['snap', 'create', `images/${name}@snap`],
      ['snap', 'protect', `images/${name}@snap`], ['image-meta', 'set', `images/${name}`, 'ferry.verified', `sha512:${String(glance.os_hash_value)}`]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A true copy of the image's bytes under `name` in site-b (what a neighbour can make: the bytes are Glance's), its snapshot not protected yet. */
async function plantTrueCopy(id: string, name: string): Promise<void> {
  const glance = await readImage(id);
  siteB(['create', '--size', `${String(glance.size)}B`, '--object-size', '8M', `images/${name}`]);
  const { conf: a } = devcloud().ceph['site-a'];
  const { conf: b } = devcloud().ceph['site-b'];
  // Both ends bounded as ceph() bounds one rbd command (test/helpers/devcloud.ts).
  const pipe = spawnSync('sh', ['-c', `timeout 60 rbd -c ${a} --id admin export-diff --no-progress images/${id}@snap - | timeout 60 rbd -c ${b} --id admin import-diff --no-progress - images/${name}`],
    { timeout: CEPH_MS });
  expect(pipe.status, String(pipe.stderr)).toBe(0);
}

describe('direct transfer: forged copies are never registered', () => {
  it('forged final name (the mark copied, random bytes) → 33 FERRY_COPY_TARGET_EXISTS, nothing registered, the image left alone', async () => {
    const id = await image('final');
    await plantForgery(id, id);
    const forged = rbdImageId('site-b', id);
    try {
      const run = ferrySync(rbdEnsureArgs(id));
      expect(run.code, run.stderr).toBe(33);
      expect(run.json).toMatchObject({ error: { code: 'FERRY_COPY_TARGET_EXISTS', details: { pool: 'images', rbd_image: id } } });
      expect((run.json.error as { message: string }).message).toContain('does not prove');
      expect(await siteBLocations(id)).toEqual([]);
      // Never deleted: an image under the final name may be Glance's.
      expect(rbdImageId('site-b', id)).toBe(forged);
      expect(rbdNames('site-b')).not.toContain(`${id}.ferry-partial`);
    } finally {
      removeSiteB(id);
    }
  }, INTEGRATION_TEST_MS + PLANT_MS + FERRY_RUN_MS + 4 * CEPH_MS);

  it('forged final name that is a clone of a true copy (its bytes hash right, they live in its parent) → 33, nothing registered', async () => {
    const id = await image('final-clone');
    const base = `${id}.neighbour-base`;
    await plantTrueCopy(id, base);
    const hash = String((await readImage(id)).os_hash_value);
    siteB(['snap', 'protect', `images/${base}@snap`], ['clone', `images/${base}@snap`, `images/${id}`], ['snap', 'create', `images/${id}@snap`],
      ['snap', 'protect', `images/${id}@snap`], ['image-meta', 'set', `images/${id}`, 'ferry.verified', `sha512:${hash}`]);
    // The clone reads Glance's bytes: only its parent makes it not a copy.
    expect(sha512OfSnapshot('site-b', id)).toBe((await readImage(id)).os_hash_value);
    try {
      const run = ferrySync(rbdEnsureArgs(id));
      expect(run.code, run.stderr).toBe(33);
      expect(run.json).toMatchObject({ error: { code: 'FERRY_COPY_TARGET_EXISTS' } });
      expect((run.json.error as { message: string }).message).toContain('parent');
      expect(await siteBLocations(id)).toEqual([]);
    } finally {
      removeSiteB(id, base);
    }
  }, INTEGRATION_TEST_MS + PLANT_TRUE_COPY_MS + CEPH_MS + DIGEST_MS + FERRY_RUN_MS + CEPH_MS);

  it('forged temporary name (the mark copied, random bytes, nobody watching) → removed, copied fresh; the location holds Glance\'s bytes', async () => {
    const id = await image('temporary');
    const partial = `${id}.ferry-partial`;
    await plantForgery(id, partial);
    const forged = rbdImageId('site-b', partial);
    const run = ferrySync(rbdEnsureArgs(id));
    expect(run.code, run.stderr).toBe(0);
    expect(run.json).toMatchObject({ image: id, store: 'site-b', copied: true, transfer: 'rbd' });
    const glance = await readImage(id);
    expect(await siteBLocations(id)).toEqual([`rbd://${devcloud().ceph['site-b'].fsid}/images/${id}/snap`]);
    // What a clone of the registered location reads is Glance's image, by both of Glance's hashes.
    expect(sha512OfSnapshot('site-b', id)).toBe(glance.os_hash_value);
    expect(md5OfSnapshot('site-b', id)).toBe(glance.checksum);
    expect(rbdImageId('site-b', id)).not.toBe(forged);
    expect(rbdNames('site-b').filter((name) => name.startsWith(id))).toEqual([id]);
    expect(run.stderr).toContain('does not prove');
  }, INTEGRATION_TEST_MS + PLANT_MS + CEPH_MS + FERRY_RUN_MS + 2 * DIGEST_MS + 2 * CEPH_MS);

  // Issue 34: the copy this run streamed was renamed and registered by name, without the image-id/snapshot-id check a
  // found copy gets. The neighbour waits until ferry has verified and marked its temporary image, renames it away and
  // renames its forgery (the mark copied) into the temporary name before ferry's rename: ferry must notice that the
  // final name does not hold the image it verified. Glance's answer to ferry's last look before the rename is held
  // (the fault proxy) until the swap is done, so the swap always lands between the mark and the rename.
  it.each<{ path: string; env: Record<string, string> }>([
    { path: 'librbd', env: {} },
    { path: 'the rbd CLI', env: { FERRY_RBD_DATA_PATH: 'cli' } },
  ])('a forgery renamed into the temporary name after ferry verified its own copy ($path) → never registered; 33, the forgery left alone', async ({ env }) => {
    const id = await image(`swapped-${env.FERRY_RBD_DATA_PATH ?? 'librbd'}`);
    const partial = `${id}.ferry-partial`;
    const planted = `${id}.neighbour`;
    const stolen = `${id}.neighbour-stole`;
    await plantForgery(id, planted);
    const forged = rbdImageId('site-b', planted);
    const proxy = await startFaultProxy(devcloud().glance.url);
    let swapped = false;
    // Started beside ferry, bounded as its run: one program asked at each of ferry's looks at the image.
    const neighbour = swapper({ partial, planted, stolen });
    proxy.add({
      method: 'GET', path: new RegExp(`^/v2/images/${id}$`), times: Infinity, fault: { kind: 'slow-body', chunkBytes: 1 << 20, intervalMs: 1 },
      then: async () => {
        if (swapped) return;
        // If ferry's copy is written and verified: its mark awaited (set while this answer is held), then the swap.
        swapped = await neighbour.look();
      },
    });
    try {
      const run = await ferryAsync(rbdEnsureArgs(id), { ...env, FERRY_GLANCE_ENDPOINT: proxy.url }).done;
      expect(swapped, run.stderr).toBe(true);
      expect(await siteBLocations(id)).toEqual([]);
      expect(run.code, run.stderr).toBe(33);
      expect(run.json).toMatchObject({ error: { code: 'FERRY_COPY_TARGET_EXISTS', details: { pool: 'images', rbd_image: id } } });
      expect(run.stderr).toContain('is not the one proven');
      // The forgery holds the final name now (ferry's rename moved it), never registered, never removed.
      expect(rbdImageId('site-b', id)).toBe(forged);
    } finally {
      neighbour.stop();
      await proxy.close();
      removeSiteB(id, partial, planted, stolen);
    }
  }, INTEGRATION_TEST_MS + PLANT_MS + CEPH_MS + FERRY_RUN_MS + 2 * CEPH_MS);
});

/**
 * The neighbour, one program beside ferry's run (its timeout FERRY_RUN_MS: the two side by side count once) asked at
 * each look of ferry's at the image: when the temporary image has its protected snapshot `snap` (ferry's copy, once
 * written), it waits up to 60 s for ferry's mark, renames ferry's image away and its forgery into the temporary name,
 * and answers `swapped`; else `not yet`. One spawn, where a ceph() per look and per round of the mark's wait counted
 * 70 s each.
 */
function swapper(names: { partial: string; planted: string; stolen: string }): { look: () => Promise<boolean>; stop: () => void } {
  const rbd = `rbd -c '${devcloud().ceph['site-b'].conf}' --id admin`;
  const image = (name: string): string => `'images/${name}'`;
  const script = `while read -r _; do
  if timeout 60 ${rbd} snap ls --format json ${image(names.partial)} | grep -q '"name":"snap"[^}]*"protected":"true"'; then
    timeout 60 sh -c "until ${rbd} image-meta get ${image(names.partial)} ferry.verified >/dev/null 2>&1; do sleep 0.05; done" || { echo "no mark on ${names.partial} within 60 s"; exit 1; }
    timeout 60 ${rbd} rename ${image(names.partial)} ${image(names.stolen)} >&2 && timeout 60 ${rbd} rename ${image(names.planted)} ${image(names.partial)} >&2 || { echo "the swap failed"; exit 1; }
    echo swapped; exit 0
  fi
  echo 'not yet'
done`;
  const child = spawn('sh', ['-c', script], { stdio: ['pipe', 'pipe', 'pipe'], timeout: FERRY_RUN_MS });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    look: async () => {
      child.stdin.write('look\n');
      const answer = await lines.next();
      if (answer.done === true || answer.value === 'not yet') return false;
      if (answer.value !== 'swapped') throw new Error(`${answer.value}: ${stderr}`);
      return true;
    },
    stop: () => { child.kill(); },
  };
}
