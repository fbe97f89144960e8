import { randomBytes } from 'node:crypto';
import { afterAll } from 'vitest';
import { devcloud, markReached, type DevcloudUser } from './devcloud.js';

/**
 * Test set-up against the real Glance with plain fetch: independent of the code under test, so a bug in ferry's
 * client cannot make its own tests pass.
 */
export async function tokenFor(user: DevcloudUser = 'admin'): Promise<string> {
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

/** A token for one of the dev cloud's application credentials (ferry's carry access rules: register.py). */
export async function appcredToken(user: DevcloudUser): Promise<string> {
  const facts = devcloud();
  const { id, secret } = facts.appcreds[user];
  const response = await fetch(`${facts.keystone.url}/auth/tokens`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ auth: { identity: { methods: ['application_credential'], application_credential: { id, secret } } } }),
  });
  if (response.status !== 201) throw new Error(`keystone auth with the application credential of ${user}: ${response.status}`);
  markReached('keystone');
  return response.headers.get('x-subject-token') ?? '';
}

/** Glance's answer to one request: its status, and its JSON body when it has one (error bodies: message, code, title). */
export interface GlanceAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** One plain request to Glance with the given token (a JSON patch when the body is an array). */
export async function glanceRequest(token: string, method: string, path: string, body?: unknown): Promise<GlanceAnswer> {
  const type: Record<string, string> = body === undefined ? {} : { 'content-type': Array.isArray(body)
    ? 'application/openstack-images-v2.1-json-patch' : typeof body === 'string' ? 'application/octet-stream' : 'application/json' };
  const response = await fetch(`${devcloud().glance.url}${path}`, {
    method, headers: { 'x-auth-token': token, accept: 'application/json', ...type },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  markReached('glance');
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // not JSON (a 204, an HTML page): the text itself
  }
  return { status: response.status, body: parsed };
}

export interface UploadOptions {
  readonly name: string;
  readonly store: string;
  readonly sizeBytes?: number;
  readonly diskFormat?: string;
  /** Whose image: admin (the operator's), demo, or a tenant's member (tenant-a, tenant-b). */
  readonly as?: 'admin' | 'demo' | 'tenant-a' | 'tenant-b';
  readonly properties?: Record<string, string>;
  /** Default: public for admin (the operator's images, which ferry's own project sees), Glance's default for demo. */
  readonly visibility?: 'public' | 'community' | 'shared' | 'private';
}

/** The visibility an image the tests upload gets: the operator's (admin's) images are public, as the ones ferry places are. */
function visibilityOf(as: NonNullable<UploadOptions['as']>, visibility: UploadOptions['visibility']): Record<string, string> {
  const chosen = visibility ?? (as === 'admin' ? 'public' : undefined);
  return chosen === undefined ? {} : { visibility: chosen };
}

/**
 * Data of a disk format: random bytes for raw (and any format Glance does not inspect); for qcow2 a valid qcow2 v3
 * header (the fields Glance's format inspector reads: magic, version, no backing file, size, 64 KiB clusters, no
 * encryption, no incompatible features) followed by zeros. Glance 30 inspects an upload and answers 415 when the data
 * is not of the image's disk_format ("Image disk_format qcow2 does not match stream data raw"); Glance 25 stores anything.
 */
export function imageData(diskFormat: string, sizeBytes: number): Buffer {
  if (diskFormat !== 'qcow2') return randomBytes(sizeBytes);
  const data = Buffer.alloc(sizeBytes);
  data.writeUInt32BE(0x514649fb, 0); // 'QFI\xfb'
  data.writeUInt32BE(3, 4); // version
  data.writeUInt32BE(16, 20); // cluster_bits: 64 KiB
  data.writeBigUInt64BE(BigInt(sizeBytes), 24); // virtual size
  data.writeUInt32BE(1, 36); // l1_size
  data.writeBigUInt64BE(0x30000n, 40); // l1_table_offset
  data.writeBigUInt64BE(0x10000n, 48); // refcount_table_offset
  data.writeUInt32BE(1, 56); // refcount_table_clusters
  data.writeUInt32BE(4, 96); // refcount_order: 16-bit refcounts
  data.writeUInt32BE(112, 100); // header_length
  return data;
}

/** Create an image and upload data of its disk format to one store; returns its id. */
export async function uploadImage(options: UploadOptions): Promise<string> {
  const facts = devcloud();
  const as = options.as ?? 'admin';
  const token = await tokenFor(as);
  const headers = { 'x-auth-token': token, accept: 'application/json' };
  const created = await fetch(`${facts.glance.url}/v2/images`, {
    method: 'POST', headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ name: options.name, disk_format: options.diskFormat ?? 'raw', container_format: 'bare',
      ...visibilityOf(as, options.visibility), ...options.properties }),
  });
  if (created.status !== 201) throw new Error(`create image: ${created.status} ${await created.text()}`);
  const { id } = (await created.json()) as { id: string };
  const upload = await fetch(`${facts.glance.url}/v2/images/${id}/file`, {
    method: 'PUT', headers: { ...headers, 'content-type': 'application/octet-stream', 'x-image-meta-store': options.store },
    body: imageData(options.diskFormat ?? 'raw', options.sizeBytes ?? 4 * 1024 * 1024),
  });
  if (upload.status !== 204) throw new Error(`upload image: ${upload.status} ${await upload.text()}`);
  markReached('glance');
  return id;
}

/** An image without data, public (ferry's own project reads it). */
export async function createQueuedImage(name: string): Promise<string> {
  const facts = devcloud();
  const token = await tokenFor('admin');
  const created = await fetch(`${facts.glance.url}/v2/images`, {
    method: 'POST', headers: { 'x-auth-token': token, 'content-type': 'application/json' },
    body: JSON.stringify({ name, disk_format: 'raw', container_format: 'bare', ...visibilityOf('admin', undefined) }),
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
/**
 * DELETE the image, and make sure it is gone: Glance 25 answered a DELETE racing a copy's revert with 500 ("Can't operate
 * on closed transaction", its DB session) after it had removed the data but not the record — the image stayed, active,
 * and a test of "the image deleted mid-copy" judged a delete that never happened (seen in a lane run). A 5xx is tried
 * again (at most DELETE_ATTEMPTS, a second apart) and fails the test when it persists; a 4xx is returned as before
 * (404: gone; the clean-ups delete what may be gone or not theirs).
 */
const DELETE_ATTEMPTS = 5;
export async function deleteImage(id: string, as: NonNullable<UploadOptions['as']> = 'admin'): Promise<number> {
  const facts = devcloud();
  const token = await tokenFor(as);
  for (let attempt = 1; ; attempt += 1) {
    const answer = await fetch(`${facts.glance.url}/v2/images/${id}`, { method: 'DELETE', headers: { 'x-auth-token': token } });
    await answer.arrayBuffer();
    // Glance's answer below 500 (204, 404, 409 when an instance is cloned from a copy): the caller's to judge.
    if (answer.status < 500) return answer.status;
    if (attempt >= DELETE_ATTEMPTS) throw new Error(`DELETE /v2/images/${id} as ${as}: ${answer.status} ${DELETE_ATTEMPTS} times`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
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
