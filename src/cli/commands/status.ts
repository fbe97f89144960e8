import { z } from 'zod';
import { copyStatus, type CopyStatus } from '../../copy/copy-status.js';
import type { CommandSpec } from '../command-spec.js';
import { renderStatus } from '../render/status.js';

export const statusJsonSchema = z.object({
  image: z.string(),
  name: z.string().nullable(),
  status: z.string(),
  disk_format: z.string().nullable(),
  size: z.number().nullable(),
  stores: z.array(z.string()),
  importing: z.array(z.string()),
  failed: z.array(z.string()),
  lock: z.object({
    task: z.string(),
    age_seconds: z.number().nullable(),
    seconds_since_update: z.number().nullable(),
    task_status: z.string().nullable(),
    task_message: z.string().nullable(),
  }).nullable(),
  locations: z.array(z.object({ url: z.string(), store: z.string().nullable() })).nullable(),
});

export type StatusJson = z.infer<typeof statusJsonSchema>;

export const statusCommand: CommandSpec<CopyStatus> = {
  name: 'status',
  summary: 'Show where IMAGE lives: stores, imports in progress, failed stores, the import lock and its task age',
  examples: ['ferry status 3f1c2a9e-5b7d-4c1e-9a8f-0d2e4b6c8a10', 'ferry status cirros-raw --json'],
  arguments: [{ name: 'IMAGE', description: 'image ID or unique name', required: true }],
  options: [],
  jsonSchema: statusJsonSchema,
  async run(ctx) {
    const cloud = await ctx.connect();
    return copyStatus(cloud, ctx.args[0] ?? '', { signal: ctx.signal });
  },
  toJson: ({ image, lock }): StatusJson => ({
    image: image.id,
    name: image.name,
    status: image.status,
    disk_format: image.diskFormat,
    size: image.size,
    stores: [...image.stores],
    importing: [...image.importingTo],
    failed: [...image.failedImport],
    lock: lock === undefined ? null : {
      task: lock.taskId,
      age_seconds: lock.ageMs === undefined ? null : Math.round(lock.ageMs / 1000),
      seconds_since_update: lock.sinceUpdateMs === undefined ? null : Math.round(lock.sinceUpdateMs / 1000),
      task_status: lock.task?.status ?? null,
      task_message: lock.task?.message ?? null,
    },
    locations: image.locations === undefined ? null : image.locations.map((l) => ({ url: l.url, store: l.store ?? null })),
  }),
  render: renderStatus,
};
