/** Glance image bodies shaped like the real ones (reference/glance-multistore.md §4), for scripted tests. */
export const FSID_A = '1c8b72c6-a5a4-4acb-8aac-181c2f242f55';
export const FSID_B = 'f7361058-0c4e-46a3-ac5c-987f4f577315';
export const IMAGE_ID = '872abc64-2f0b-4c7a-9d4e-3b1a2c5d6e7f';

export interface ImageShape {
  readonly stores?: readonly string[];
  readonly importing?: readonly string[] | undefined;
  readonly failed?: readonly string[] | undefined;
  readonly lock?: string | undefined;
  readonly diskFormat?: string;
  readonly status?: string;
  readonly size?: number;
}

const FSIDS: Record<string, string> = { 'site-a': FSID_A, 'site-b': FSID_B };

export function imageBody(shape: ImageShape): Record<string, unknown> {
  const stores = shape.stores ?? ['site-a'];
  const body: Record<string, unknown> = {
    id: IMAGE_ID, name: 'cirros-raw', status: shape.status ?? 'active', disk_format: shape.diskFormat ?? 'raw',
    container_format: 'bare', visibility: 'shared', size: shape.size ?? 20 * 1024 * 1024, virtual_size: null,
    checksum: 'd9a1e5e8b755591e5a5bfa04504319df', protected: false, min_ram: 0, min_disk: 0,
    owner: '11111111111111111111111111111111', os_hidden: false, tags: [],
    created_at: '2026-11-21T18:00:00Z', updated_at: '2026-11-21T18:00:01Z',
    self: `/v2/images/${IMAGE_ID}`, file: `/v2/images/${IMAGE_ID}/file`, schema: '/v2/schemas/image',
    locations: stores.map((store) => ({
      url: FSIDS[store] ? `rbd://${FSIDS[store]}/images/${IMAGE_ID}/snap` : `file:///var/lib/glance/${store}/${IMAGE_ID}`,
      metadata: { store },
    })),
    stores: stores.join(','),
  };
  if (shape.importing !== undefined) body.os_glance_importing_to_stores = shape.importing.join(',');
  if (shape.failed !== undefined) body.os_glance_failed_import = shape.failed.join(',');
  if (shape.lock !== undefined) body.os_glance_import_task = shape.lock;
  return body;
}
