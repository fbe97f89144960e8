import type { BenchDevcloud } from './devcloud-facts.js';
import type { GlanceAdmin } from './glance-admin.js';

/**
 * A raw image of exactly these bytes, uploaded into `store` with plain fetch (the image's hash is then known to the
 * caller); remembered by `admin` for deleteAll.
 */
export async function uploadBytes(devcloud: BenchDevcloud, admin: GlanceAdmin, name: string, bytes: Buffer, store = 'site-a'): Promise<string> {
  const token = await admin.token();
  const created = await fetch(`${devcloud.glance.url}/v2/images`, { method: 'POST', headers: { 'x-auth-token': token, 'content-type': 'application/json' },
    body: JSON.stringify({ name, disk_format: 'raw', container_format: 'bare' }) });
  const { id } = (await created.json()) as { id: string };
  (admin.created as Set<string>).add(id);
  const put = await fetch(`${devcloud.glance.url}/v2/images/${id}/file`, { method: 'PUT',
    headers: { 'x-auth-token': token, 'content-type': 'application/octet-stream', 'x-image-meta-store': store }, body: bytes });
  if (put.status !== 204) throw new Error(`upload ${name}: ${put.status}`);
  return id;
}
