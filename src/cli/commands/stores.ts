import { z } from 'zod';
import { readStoreOverview, type StoreOverview } from '../../glance/store-overview.js';
import type { CommandSpec } from '../command-spec.js';
import { configFlag } from '../global-options.js';
import { renderStores } from '../render/stores.js';

export const storesJsonSchema = z.object({
  stores: z.array(z.object({
    id: z.string(),
    description: z.string().nullable(),
    default: z.boolean(),
    read_only: z.boolean(),
    copy_target: z.boolean(),
    type: z.string().nullable(),
    pool: z.string().nullable(),
    fsid: z.string().nullable(),
    local: z.boolean(),
  }).strict()),
  local: z.string().nullable(),
  local_why: z.string().nullable(),
  source: z.enum(['GET /v2/info/stores/detail', 'GET /v2/info/stores']),
}).strict();

export type StoresJson = z.infer<typeof storesJsonSchema>;

export function storesToJson(overview: StoreOverview): StoresJson {
  return {
    stores: overview.stores.map((s) => ({ id: s.id, description: s.description ?? null, default: s.isDefault, read_only: s.readOnly,
      copy_target: !s.readOnly, type: s.type ?? null, pool: s.pool ?? null, fsid: s.fsid ?? null, local: s.local })),
    local: overview.local ?? null,
    local_why: overview.stores.find((s) => s.local)?.localWhy ?? null,
    source: overview.source,
  };
}

export const storesCommand: CommandSpec<StoreOverview> = {
  name: 'stores',
  summary: 'The stores Glance offers (GET /v2/info/stores[/detail]) and which one is this host\'s',
  description: 'Local = the configured store (--store, FERRY_STORE, nova.conf images_rbd_glance_store_name) by exact id, else '
    + 'the rbd store whose fsid Glance reports (Glance >= 30) equal to --fsid. Types and pools need the admin-only /detail; '
    + 'without it ferry falls back to the plain list. Glance reports no per-store health: a store whose backend is down is '
    + 'still listed, and shows only as a failed copy (ferry status).',
  examples: ['ferry stores', 'ferry stores --store site-b --json', 'ferry stores -f value -c local'],
  arguments: [],
  options: [configFlag('store'), configFlag('fsid')],
  jsonSchema: storesJsonSchema,
  async run(ctx) {
    const cloud = await ctx.connect();
    const { store } = ctx.config.copy;
    const { fsid } = ctx.config.ceph;
    return readStoreOverview(cloud.glance, { ...(store ? { store } : {}), ...(fsid ? { fsid } : {}) }, ctx.signal);
  },
  toJson: storesToJson,
  render: renderStores,
};
