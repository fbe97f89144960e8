import { randomBytes } from 'node:crypto';
import { afterAll } from 'vitest';
import { devcloud, markReached } from './devcloud.js';

/**
 * Test set-up against the real Glance with plain fetch: independent of the code under test, so a bug in ferry's
 * client cannot make its own tests pass.
 */
export async function tokenFor(user: 'admin' | 'demo' = 'admin'): Promise<string> {
  const facts = devcloud();
  const u = facts.users[user];
  const response = await fetch(`${facts.keystone.url}/auth/tokens`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ auth: { identity: { methods: ['password'], password: { user: { name: u.name, domain: { id: 'default' }, password: u.password } } },
      scope: { project: { name: u.project, domain: { id: 'default' } } } } }),
  });
  if (response.status !== 201) throw new Error(`keystone auth as ${user}: ${response.status}`);
  markReached('keystone');
  return response.headers.get('x-subject-token') ?? '';
}

export interface UploadOptions {
  readonly name: string;
  readonly store: string;
  readonly sizeBytes?: number;
  readonly diskFormat?: string;
  readonly as?: 'admin' | 'demo';
  readonly properties?: Record<string, string>;
}

/** Create an image and upload random data to one store; returns its id. */
export async function uploadImage(options: UploadOptions): Promise<string> {
  const facts = devcloud();
  const token = await tokenFor(options.as ?? 'admin');
  const headers = { 'x-auth-token': token, accept: 'application/json' };
  const created = await fetch(`${facts.glance.url}/v2/images`, {
    method: 'POST', headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ name: options.name, disk_format: options.diskFormat ?? 'raw', container_format: 'bare', ...options.properties }),
  });
  if (created.status !== 201) throw new Error(`create image: ${created.status} ${await created.text()}`);
  const { id } = (await created.json()) as { id: string };
  const upload = await fetch(`${facts.glance.url}/v2/images/${id}/file`, {
    method: 'PUT', headers: { ...headers, 'content-type': 'application/octet-stream', 'x-image-meta-store': options.store },
    body: randomBytes(options.sizeBytes ?? 4 * 1024 * 1024),
  });
  if (upload.status !== 204) throw new Error(`upload image: ${upload.status} ${await upload.text()}`);
  markReached('glance');
  return id;
}

export async function createQueuedImage(name: string): Promise<string> {
  const facts = devcloud();
  const token = await tokenFor('admin');
  const created = await fetch(`${facts.glance.url}/v2/images`, {
    method: 'POST', headers: { 'x-auth-token': token, 'content-type': 'application/json' },
    body: JSON.stringify({ name, disk_format: 'raw', container_format: 'bare' }),
  });
  return ((await created.json()) as { id: string }).id;
}

export async function readImage(id: string): Promise<Record<string, unknown>> {
  const facts = devcloud();
  const token = await tokenFor('admin');
  const response = await fetch(`${facts.glance.url}/v2/images/${id}`, { headers: { 'x-auth-token': token, accept: 'application/json' } });
  return (await response.json()) as Record<string, unknown>;
}

export async function imageTasks(id: string): Promise<{ id: string; status: string; message?: string; request_id?: string; input: { backend?: string[] } }[]> {
  const facts = devcloud();
  const token = await tokenFor('admin');
  const response = await fetch(`${facts.glance.url}/v2/images/${id}/tasks`, { headers: { 'x-auth-token': token, accept: 'application/json' } });
  return ((await response.json()) as { tasks: { id: string; status: string; message?: string; request_id?: string; input: { backend?: string[] } }[] }).tasks;
}

/** Delete an image (best effort: tests clean up after themselves). */
export async function deleteImage(id: string, as: 'admin' | 'demo' = 'admin'): Promise<void> {
  const facts = devcloud();
  const token = await tokenFor(as);
  await fetch(`${facts.glance.url}/v2/images/${id}`, { method: 'DELETE', headers: { 'x-auth-token': token } });
}

/** Wait (bounded) until no import holds the image's lock: tests must not leave imports running behind them. */
export async function waitUnlocked(id: string, timeoutMs = 60_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const image = await readImage(id);
    if (image.os_glance_import_task === undefined || Date.now() > deadline) return image;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The images a test file creates: push their ids; after the file each is deleted once no import holds its lock.
 * Call at the top level of a test file.
 */
export function imagesDeletedAfterAll(timeoutMs = 180_000): string[] {
  const created: string[] = [];
  afterAll(async () => {
    for (const id of created) {
      await waitUnlocked(id, 30_000);
      await deleteImage(id);
    }
  }, timeoutMs);
  return created;
}
