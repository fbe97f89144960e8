import { z } from 'zod';
import type { EnsureOutcome } from '../copy/ensure-result.js';

/** `ferry ensure --json`, and the agent's answer to POST /v1/ensure: one document, built here only. */
export const ensureJsonSchema = z.object({
  image: z.string(),
  store: z.string(),
  /** false: the image's backend on this host is not rbd (images_type_mapping), so no copy is needed and target is null. */
  needed: z.boolean(),
  copied: z.boolean(),
  joined: z.boolean(),
  /** The transfer that brought the store when this call copied it (glance copy-image, or the direct rbd one); null otherwise. */
  transfer: z.enum(['glance', 'rbd']).nullable().optional(),
  seconds: z.number(),
  target: z.object({ fsid: z.string(), pool: z.string(), image: z.string(), snapshot: z.string(), url: z.string() }).nullable(),
  why: z.string(),
  /** The import task that brought the store (ours or the one joined); null when it was there already. */
  task: z.string().nullable(),
  /** The task whose expired import lock ferry made Glance bust (--take-over-expired); null otherwise. */
  took_over: z.string().nullable(),
  backend: z.object({ backend: z.string(), converted: z.boolean(), reason: z.string() }).optional(),
  image_reads: z.number().int(),
  import_requests: z.number().int(),
});

export type EnsureJson = z.infer<typeof ensureJsonSchema>;

/** The one mapping of an ensure() outcome to its document. */
export function ensureDocument(result: EnsureOutcome): EnsureJson {
  return !result.needed ? {
    image: result.imageId, store: result.store, needed: false, copied: false, joined: false,
    seconds: Math.round(result.elapsedMs) / 1000, target: null, why: result.backend.reason, task: null, took_over: null,
    backend: { backend: result.backend.backend, converted: result.backend.converted, reason: result.backend.reason },
    image_reads: result.imageReads, import_requests: 0,
  } : {
    image: result.imageId,
    store: result.store,
    needed: true,
    copied: result.copied,
    joined: result.joined,
    transfer: result.transfer ?? null,
    seconds: Math.round(result.elapsedMs) / 1000,
    target: { ...result.target },
    why: result.why,
    task: result.taskId ?? null,
    took_over: result.tookOver ?? null,
    image_reads: result.imageReads,
    import_requests: result.importRequests,
  };
}
