import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { ceph, devcloud } from '../../helpers/devcloud.js';
import { startFaultProxy } from '../../helpers/fault-proxy.js';
import { imagesDeletedAfterAll, readImage } from '../../helpers/glance-admin.js';
import {
  ferryAsync, ferrySync, md5OfSnapshot, MiB, rbdEnsureArgs, rbdImageId, rbdMeta, rbdNames, removeSiteB, sha512OfSnapshot, siteBLocations, sparseBytes,
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

function siteB(args: readonly string[]): void {
  const out = ceph('site-b', 'rbd', args, 'admin');
  expect(out.code, `rbd ${args.join(' ')}: ${out.stderr}`).toBe(0);
}

/** The neighbour's image under `name`: Glance's size, 1 MiB of its own bytes, `snap` protected, the mark copied. */
async function plantForgery(id: string, name: string): Promise<void> {
  const glance = await readImage(id);
  const bytes = Buffer.alloc(Number(glance.size));
  randomBytes(MiB).copy(bytes, 4 * MiB);
  const dir = mkdtempSync(join(tmpdir(), 'ferry-it-forged-'));
  try {
    writeFileSync(join(dir, 'forged.raw'), bytes);
    siteB(['import', '--no-progress', '--object-size', '8M', join(dir, 'forged.raw'), `images/${name}`]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  siteB(['snap', 'create', `images/${name}@snap`]);
  siteB(['snap', 'protect', `images/${name}@snap`]);
  siteB(['image-meta', 'set', `images/${name}`, 'ferry.verified', `sha512:${String(glance.os_hash_value)}`]);
}

/** A true copy of the image's bytes under `name` in site-b (what a neighbour can make: the bytes are Glance's). */
async function plantTrueCopy(id: string, name: string): Promise<void> {
  const glance = await readImage(id);
  siteB(['create', '--size', `${String(glance.size)}B`, '--object-size', '8M', `images/${name}`]);
  const { conf: a } = devcloud().ceph['site-a'];
  const { conf: b } = devcloud().ceph['site-b'];
  // Both ends bounded as ceph() bounds one rbd command (test/helpers/devcloud.ts).
  const pipe = spawnSync('sh', ['-c', `timeout 60 rbd -c ${a} --id admin export-diff --no-progress images/${id}@snap - | timeout 60 rbd -c ${b} --id admin import-diff --no-progress - images/${name}`],
    { timeout: 70_000 });
  expect(pipe.status, String(pipe.stderr)).toBe(0);
  siteB(['snap', 'protect', `images/${name}@snap`]);
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
  });

  it('forged final name that is a clone of a true copy (its bytes hash right, they live in its parent) → 33, nothing registered', async () => {
    const id = await image('final-clone');
    const base = `${id}.neighbour-base`;
    await plantTrueCopy(id, base);
    siteB(['clone', `images/${base}@snap`, `images/${id}`]);
    siteB(['snap', 'create', `images/${id}@snap`]);
    siteB(['snap', 'protect', `images/${id}@snap`]);
    siteB(['image-meta', 'set', `images/${id}`, 'ferry.verified', `sha512:${String((await readImage(id)).os_hash_value)}`]);
    // The clone reads Glance's bytes: only its parent makes it not a copy.
    expect(sha512OfSnapshot('site-b', id)).toBe((await readImage(id)).os_hash_value);
    try {
      const run = ferrySync(rbdEnsureArgs(id));
      expect(run.code, run.stderr).toBe(33);
      expect(run.json).toMatchObject({ error: { code: 'FERRY_COPY_TARGET_EXISTS' } });
      expect((run.json.error as { message: string }).message).toContain('parent');
      expect(await siteBLocations(id)).toEqual([]);
    } finally {
      removeSiteB(id);
      removeSiteB(base);
    }
  });

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
  });

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
    proxy.add({
      method: 'GET', path: new RegExp(`^/v2/images/${id}$`), times: Infinity, fault: { kind: 'slow-body', chunkBytes: 1 << 20, intervalMs: 1 },
      then: async () => {
        if (swapped || !protectedSnap(partial)) return;
        // ferry's copy is written and verified: wait for its mark (set while this answer is held), then swap.
        for (const until = Date.now() + 60_000; rbdMeta('site-b', partial, 'ferry.verified') === undefined;) {
          if (Date.now() > until) throw new Error(`no mark on ${partial} within 60 s`);
          await sleep(50);
        }
        siteB(['rename', `images/${partial}`, `images/${stolen}`]);
        siteB(['rename', `images/${planted}`, `images/${partial}`]);
        swapped = true;
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
      await proxy.close();
      for (const name of [id, partial, planted, stolen]) removeSiteB(name);
    }
  });
});

/** An image of site-b's images pool with a protected snapshot `snap` (ferry's copy, once written). */
function protectedSnap(name: string): boolean {
  const out = ceph('site-b', 'rbd', ['snap', 'ls', '--format', 'json', `images/${name}`], 'admin');
  return out.code === 0 && (JSON.parse(out.stdout) as { name: string; protected: string }[]).some((snap) => snap.name === 'snap' && snap.protected === 'true');
}
