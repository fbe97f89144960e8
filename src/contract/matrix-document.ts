import { z } from 'zod';
import { MATRIX_CELLS, type StoreMatrix } from '../prewarm/store-matrix.js';

// `ferry status --matrix --json`: images × stores, one word per cell (docs/cli.md).

const count = z.number().int().min(0);

export const matrixJsonSchema = z.object({
  stores: z.array(z.string()),
  images: z.array(z.object({
    image: z.string(),
    name: z.string().nullable(),
    status: z.string(),
    disk_format: z.string().nullable(),
    cells: z.record(z.string(), z.enum(MATRIX_CELLS)),
  })),
  unresolved: z.array(z.object({ ref: z.string(), code: z.string(), reason: z.string() })),
  counts: z.object({ present: count, copying: count, failed: count, missing: count }),
});

export type MatrixJson = z.infer<typeof matrixJsonSchema>;

export function matrixDocument(matrix: StoreMatrix): MatrixJson {
  return {
    stores: [...matrix.stores],
    images: matrix.rows.map((row) => ({ image: row.imageId, name: row.imageName, status: row.status, disk_format: row.diskFormat,
      cells: { ...row.cells } })),
    unresolved: matrix.unresolved.map((u) => ({ ref: u.ref, code: u.code, reason: u.reason })),
    counts: { ...matrix.counts },
  };
}
