import { expect } from 'vitest';
import { ceph } from './devcloud.js';
import { glanceRequest, tokenFor, uploadImage, waitUnlocked } from './glance-admin.js';

// Filling store site-c of the dev cloud (pool images-c of site-b's cluster, which only the eviction tests fill):
// images with copies in several stores, and clones of a copy as nova makes them.

export const SITE_C = { store: 'site-c', pool: 'images-c' } as const;

/** How long copyImage() waits for Glance's copies of one image. */
export const COPY_MS = 120_000;
/** An image uploaded to stores[0] and copied by Glance to the others; its id pushed to `created` (deleted after all). */
export async function copyImage(created: string[], size: number, stores: readonly string[], name: string): Promise<string> {
  const id = await uploadImage({ name, store: stores[0] ?? 'central', sizeBytes: size });
  created.push(id);
  if (stores.length > 1) {
    const admin = await tokenFor('admin');
    const answer = await glanceRequest(admin, 'POST', `/v2/images/${id}/import`, { method: { name: 'copy-image' }, stores: stores.slice(1) });
    expect(answer.status).toBe(202);
    const deadline = Date.now() + COPY_MS;
    for (;;) {
      const image = await waitUnlocked(id, COPY_MS);
      if (stores.every((store) => String(image.stores).split(',').includes(store))) break;
      if (Date.now() > deadline) throw new Error(`copy of ${id} to ${stores.join(',')} not done: ${String(image.stores)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  return id;
}

/** A clone of the copy of `id` in site-c (an instance's disk in pool vms); its name pushed to `clones` (removed after all). */
export function cloneOf(clones: string[], id: string, name: string): string {
  const clone = `vms/${name}-${id.slice(0, 8)}`;
  const made = ceph('site-b', 'rbd', ['clone', `${SITE_C.pool}/${id}@snap`, clone], 'admin');
  expect(made.code, made.stderr).toBe(0);
  clones.push(clone);
  return clone;
}
