// Glance verbs the recorder needs, with every created image tracked so that cleanup() removes it again.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Answer, Recorder } from './recorder.js';
import { expectStatus, field, stringField } from './recorder.js';

export const FIXTURE_PREFIX = 'ferry-fixture-';
const UNLOCK_DEADLINE_MS = 180_000;

export class GlanceSession {
  private readonly created: { id: string; token: string }[] = [];
  readonly url: string;

  constructor(
    readonly rec: Recorder,
    readonly admin: string,
    readonly member: string,
  ) {
    this.url = rec.cloud.glance.url;
  }

  imageUrl(id: string): string {
    return `${this.url}/v2/images/${id}`;
  }

  async create(name: string, token = this.admin, tags: readonly string[] = []): Promise<string> {
    const answer = await this.rec.call({
      method: 'POST',
      url: `${this.url}/v2/images`,
      token,
      json: { name: FIXTURE_PREFIX + name, disk_format: 'raw', container_format: 'bare', tags },
    });
    expectStatus(answer, 201, `create image ${name}`);
    const id = stringField(answer.body, 'id');
    if (id === undefined) throw new Error(`create image ${name}: no id`);
    this.created.push({ id, token });
    return id;
  }

  async upload(id: string, mib: number, store: string, token = this.admin): Promise<void> {
    const answer = await this.rec.call({
      method: 'PUT',
      url: `${this.imageUrl(id)}/file`,
      token,
      bytes: randomBytes(mib * 1024 * 1024),
      headers: { 'X-Image-Meta-Store': store },
    });
    expectStatus(answer, 204, `upload ${mib} MiB to ${store}`);
  }

  /** An active raw image whose data is in `store`. */
  async activeImage(name: string, mib: number, store: string, token = this.admin): Promise<string> {
    const id = await this.create(name, token);
    await this.upload(id, mib, store, token);
    return id;
  }

  get(id: string, token = this.admin): Promise<Answer> {
    return this.rec.call({ method: 'GET', url: this.imageUrl(id), token });
  }

  copy(id: string, body: Record<string, unknown>, token = this.admin): Promise<Answer> {
    return this.rec.call({
      method: 'POST',
      url: `${this.imageUrl(id)}/import`,
      token,
      json: { method: { name: 'copy-image' }, ...body },
    });
  }

  /** Polls until os_glance_import_task is gone; returns the last image body. */
  async waitUnlocked(id: string): Promise<unknown> {
    const deadline = performance.now() + UNLOCK_DEADLINE_MS;
    while (performance.now() < deadline) {
      const answer = await this.get(id);
      expectStatus(answer, 200, `poll image ${id}`);
      if (field(answer.body, 'os_glance_import_task') === undefined) return answer.body;
      await sleep(100);
    }
    throw new Error(`image ${id}: import lock still held after ${UNLOCK_DEADLINE_MS / 1000} s`);
  }

  /** Removes the image's data from one store (DELETE /v2/stores/{store}/{id}), to copy there again. */
  async removeFromStore(id: string, store: string): Promise<void> {
    const answer = await this.rec.call({ method: 'DELETE', url: `${this.url}/v2/stores/${store}/${id}`, token: this.admin });
    expectStatus(answer, 204, `remove ${id} from ${store}`);
  }

  async delete(id: string): Promise<void> {
    const index = this.created.findIndex((c) => c.id === id);
    const token = index >= 0 ? this.created[index]!.token : this.admin;
    await this.rec.call({ method: 'DELETE', url: this.imageUrl(id), token });
    if (index >= 0) this.created.splice(index, 1);
  }

  /** Deletes what this run created, and what an interrupted earlier run left (by name prefix). */
  async cleanup(): Promise<void> {
    for (const { id } of [...this.created]) {
      await this.waitUnlocked(id).catch(() => undefined);
      await this.delete(id);
    }
    for (const token of [this.admin, this.member]) {
      const list = await this.rec.call({ method: 'GET', url: `${this.url}/v2/images?limit=1000`, token });
      const images = field(list.body, 'images');
      if (!Array.isArray(images)) continue;
      for (const image of images) {
        const name = stringField(image, 'name');
        const id = stringField(image, 'id');
        if (id !== undefined && name?.startsWith(FIXTURE_PREFIX) === true) {
          await this.rec.call({ method: 'DELETE', url: this.imageUrl(id), token });
        }
      }
    }
  }
}

export function randomUuid(): string {
  return crypto.randomUUID();
}
