import { z } from 'zod';
import type { BackendChoice } from '../backend/backend-choice.js';

// `ferry backend --json`: the backend nova's images_type(_mapping) picks for the image, and why (docs/cli.md).

/** What `ferry backend` decided, for which image. */
export interface BackendReport {
  readonly imageId: string;
  readonly choice: BackendChoice;
}

export const backendJsonSchema = z.object({
  image: z.string(),
  backend: z.string(),
  converted: z.boolean(),
  reason: z.string(),
  decided_by: z.enum(['images_type_mapping', 'images_type']),
  disk_format: z.string(),
  stored_format: z.string(),
});

export type BackendJson = z.infer<typeof backendJsonSchema>;

export function backendDocument({ imageId, choice }: BackendReport): BackendJson {
  return {
    image: imageId,
    backend: choice.backend,
    converted: choice.converted,
    reason: choice.reason,
    decided_by: choice.decidedBy,
    disk_format: choice.diskFormat,
    stored_format: choice.storedFormat,
  };
}
