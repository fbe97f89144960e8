import { z } from 'zod';
import type { CopyStatus } from '../copy/copy-status.js';

/** `ferry status IMAGE --json`, and the agent's answer to GET /v1/status: one document, built here only. */
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

export function statusDocument({ image, lock }: CopyStatus): StatusJson {
  return {
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
  };
}
