import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchDevcloud } from './devcloud-facts.js';

/**
 * Set-up and clean-up against the real Glance with plain fetch, independent of the code under test (the approach of
 * test/helpers/glance-admin.ts). Every image it creates is remembered until `deleteAll` removes it.
 */
export interface GlanceAdmin {
  readonly created: ReadonlySet<string>;
  token(): Promise<string>;
  /** Public, so that ferry's own identity (project ferry, role ferry) sees it as it sees a cloud's base images. */
  uploadImage(options: { name: string; store: string; sizeBytes: number }): Promise<string>;
  readImage(id: string, signal?: AbortSignal): Promise<Record<string, unknown>>;
  copyTasks(id: string): Promise<readonly { id: string; status: string; backend: readonly string[] }[]>;
  /** Waits (bounded) for the import lock to go, then deletes; an image left locked is deleted anyway. */
  deleteImage(id: string): Promise<void>;
  deleteAll(): Promise<void>;
}

/** Tokens live an hour; a benchmark run is far shorter, so one token serves it. */
export function createGlanceAdmin(devcloud: BenchDevcloud): GlanceAdmin {
  const created = new Set<string>();
  let token: Promise<string> | undefined;
  const glance = devcloud.glance.url;

  const authenticate = async (): Promise<string> => {
    const user = devcloud.users.admin;
    const response = await fetch(`${devcloud.keystone.url}/auth/tokens`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ auth: {
        identity: { methods: ['password'], password: { user: { name: user.name, domain: { id: 'default' }, password: user.password } } },
        scope: { project: { name: user.project, domain: { id: 'default' } } } } }),
    });
    if (response.status !== 201) throw new Error(`keystone auth as admin: ${response.status}`);
    return response.headers.get('x-subject-token') ?? '';
  };
  const headers = async (): Promise<Record<string, string>> => ({ 'x-auth-token': await admin.token(), accept: 'application/json' });

  const admin: GlanceAdmin = {
    created,
    token: () => (token ??= authenticate()),
    async uploadImage({ name, store, sizeBytes }) {
      const h = await headers();
      const response = await fetch(`${glance}/v2/images`, {
        method: 'POST', headers: { ...h, 'content-type': 'application/json' },
        body: JSON.stringify({ name, disk_format: 'raw', container_format: 'bare', visibility: 'public' }),
      });
      if (response.status !== 201) throw new Error(`create image: ${response.status} ${await response.text()}`);
      const { id } = (await response.json()) as { id: string };
      created.add(id);
      const upload = await fetch(`${glance}/v2/images/${id}/file`, {
        method: 'PUT', headers: { ...h, 'content-type': 'application/octet-stream', 'x-image-meta-store': store },
        body: randomBytes(sizeBytes),
      });
      if (upload.status !== 204) throw new Error(`upload image ${id} to ${store}: ${upload.status} ${await upload.text()}`);
      return id;
    },
    async readImage(id, signal) {
      const response = await fetch(`${glance}/v2/images/${id}`, { headers: await headers(), ...(signal ? { signal } : {}) });
      if (response.status !== 200) throw new Error(`read image ${id}: ${response.status}`);
      return (await response.json()) as Record<string, unknown>;
    },
    async copyTasks(id) {
      const response = await fetch(`${glance}/v2/images/${id}/tasks`, { headers: await headers() });
      const body = (await response.json()) as { tasks: { id: string; status: string; input?: { backend?: string[] | null } | null }[] };
      return body.tasks.map((t) => ({ id: t.id, status: t.status, backend: t.input?.backend ?? [] }));
    },
    async deleteImage(id) {
      const deadline = performance.now() + 120_000;
      while (performance.now() < deadline) {
        const image = await admin.readImage(id).catch(() => undefined);
        if (image?.os_glance_import_task === undefined) break;
        await sleep(200);
      }
      const response = await fetch(`${glance}/v2/images/${id}`, { method: 'DELETE', headers: await headers() });
      if (response.status !== 204 && response.status !== 404) throw new Error(`delete image ${id}: ${response.status}`);
      created.delete(id);
    },
    async deleteAll() {
      for (const id of [...created]) await admin.deleteImage(id).catch((error: unknown) => console.error(`cleanup: ${String(error)}`));
    },
  };
  return admin;
}
