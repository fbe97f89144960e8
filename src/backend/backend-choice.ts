import { z } from 'zod';
import { IMAGE_FORMATS } from './image-formats.js';
import type { ImageFormat, StoredFormat } from './image-formats.js';
import { STORAGE_BACKENDS } from './storage-backend.js';
import type { StorageBackend } from './storage-backend.js';

/** Which backend takes an image, whether its bytes change on the way in, and which option decided. */
export interface BackendChoice {
  readonly backend: StorageBackend;
  /** True when the image's encoding differs from what the backend stores (qemu-img convert on the way in). */
  readonly converted: boolean;
  /** One sentence naming the deciding option, e.g. `images_type_mapping maps qcow2 to qcow2`. */
  readonly reason: string;
  readonly decidedBy: 'images_type_mapping' | 'images_type';
  readonly diskFormat: ImageFormat;
  /** What the backend keeps on disk. */
  readonly storedFormat: StoredFormat;
}

/** The JSON contract of BackendChoice (`ferry backend --json`); docs/backend.md examples are checked against it. */
export const backendChoiceSchema = z.strictObject({
  backend: z.enum(STORAGE_BACKENDS),
  converted: z.boolean(),
  reason: z.string(),
  decidedBy: z.enum(['images_type_mapping', 'images_type']),
  diskFormat: z.enum(IMAGE_FORMATS),
  storedFormat: z.enum(['raw', 'qcow2', 'ploop', 'vmdk', 'vdi', 'vhd', 'vhdx']),
});
