import { z } from 'zod';
import type { StoreAnswer } from '../fleet/probe-stores.js';
import type { StoreOverview } from '../glance/store-overview.js';

// `ferry stores --json`: Glance's stores, the local one and why, and whether each answers (docs/cli.md).

/** What `ferry stores` reports: Glance's list and, per store, whether it answers (probes ferry could make itself). */
export interface StoresReport {
  readonly overview: StoreOverview;
  readonly answers: readonly StoreAnswer[];
}

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
    answers: z.boolean().nullable(),
    answers_why: z.string(),
  }).strict()),
  local: z.string().nullable(),
  local_why: z.string().nullable(),
  source: z.enum(['GET /v2/info/stores/detail', 'GET /v2/info/stores']),
  source_why: z.string().nullable(),
}).strict();

export type StoresJson = z.infer<typeof storesJsonSchema>;

export function storesDocument({ overview, answers }: StoresReport): StoresJson {
  return {
    stores: overview.stores.map((s) => {
      const answer = answers.find((a) => a.store === s.id);
      return { id: s.id, description: s.description ?? null, default: s.isDefault, read_only: s.readOnly,
        copy_target: !s.readOnly, type: s.type ?? null, pool: s.pool ?? null, fsid: s.fsid ?? null, local: s.local,
        answers: answer?.answers ?? null, answers_why: answer?.why ?? 'not checked' };
    }),
    local: overview.local ?? null,
    local_why: overview.stores.find((s) => s.local)?.localWhy ?? null,
    source: overview.source,
    source_why: overview.sourceWhy ?? null,
  };
}
