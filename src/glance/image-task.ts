import { z } from 'zod';
import { asUtcTimestamp } from './image-schema.js';
import { validateResponse } from '../openstack/validate-response.js';

export const TASK_STATUSES = ['pending', 'processing', 'success', 'failure'] as const;
export type GlanceTaskStatus = (typeof TASK_STATUSES)[number];

/**
 * An import task of an image (`GET /v2/images/{id}/tasks`, `GET /v2/tasks/{id}`). Glance gives no progress bar:
 * `message` is "Copied N MiB" refreshed at most every 60 s, and `updatedAt` is what the 60-min stale-lock rule reads.
 */
export interface GlanceTask {
  readonly id: string;
  readonly type: string;
  readonly status: GlanceTaskStatus;
  readonly message: string;
  /** `input.backend`: the target stores after all_stores expansion; empty when the task has none. */
  readonly stores: readonly string[];
  readonly imageId: string | undefined;
  readonly owner: string | null;
  /** ISO 8601 in UTC, always with a zone (Glance's tasks list omits it; see asUtcTimestamp). */
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly expiresAt: string | undefined;
  /**
   * The request id of the API call that created the task: the `x-openstack-request-id` of the import's 202. How a
   * client tells its own task from another's (the 202 carries no task id).
   */
  readonly requestId: string | undefined;
  readonly raw: Readonly<Record<string, unknown>>;
}

const orNull = <T extends z.ZodType>(schema: T) => z.union([schema, z.null()]);

const taskWire = z.looseObject({
  id: z.string(),
  type: z.string(),
  status: z.enum(TASK_STATUSES),
  message: orNull(z.string()).optional(),
  input: orNull(
    z.looseObject({
      image_id: z.string().optional(),
      backend: orNull(z.array(z.string())).optional(),
    }),
  ).optional(),
  image_id: orNull(z.string()).optional(),
  owner: orNull(z.string()).optional(),
  created_at: z.string(),
  updated_at: z.string(),
  expires_at: orNull(z.string()).optional(),
  request_id: orNull(z.string()).optional(),
});

const taskListWire = z.looseObject({ tasks: z.array(z.unknown()) });

export const GET_TASK_ENDPOINT = 'GET /v2/tasks/{id}';
export const LIST_IMAGE_TASKS_ENDPOINT = 'GET /v2/images/{id}/tasks';

export function parseTask(raw: unknown, endpoint: string = GET_TASK_ENDPOINT): GlanceTask {
  return taskFromWire(validateResponse(taskWire, raw, endpoint));
}

/** Parses `{"tasks": [...]}`, in Glance's order. */
export function parseTaskList(raw: unknown, endpoint: string = LIST_IMAGE_TASKS_ENDPOINT): readonly GlanceTask[] {
  const list = validateResponse(taskListWire, raw, endpoint);
  return Object.freeze(list.tasks.map((task, i) => taskFromWire(validateResponse(taskWire, task, endpoint, ['tasks', i]))));
}

function taskFromWire(wire: z.output<typeof taskWire>): GlanceTask {
  return Object.freeze({
    id: wire.id,
    type: wire.type,
    status: wire.status,
    message: wire.message ?? '',
    stores: Object.freeze([...(wire.input?.backend ?? [])]),
    imageId: wire.image_id ?? wire.input?.image_id ?? undefined,
    owner: wire.owner ?? null,
    createdAt: asUtcTimestamp(wire.created_at),
    updatedAt: asUtcTimestamp(wire.updated_at),
    expiresAt: wire.expires_at === null || wire.expires_at === undefined ? undefined : asUtcTimestamp(wire.expires_at),
    requestId: wire.request_id ?? undefined,
    raw: Object.freeze({ ...wire }),
  });
}
