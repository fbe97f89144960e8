import type { CopyContext } from '../copy/copy-context.js';
import type { GlanceImage } from '../glance/image.js';
import { classifyPlacement } from '../fleet/classify-placement.js';
import type { PrewarmSelection } from '../fleet/prewarm-selection.js';
import { selectImages, type UnresolvedImage } from '../fleet/select-images.js';
import { readStoreCatalogue, requireStores, type StoreFacts } from '../fleet/store-catalogue.js';

/** One cell of the images × stores table: the plan states, without judging whether a copy could be made. */
export const MATRIX_CELLS = ['present', 'copying', 'failed', 'missing'] as const;
export type MatrixCell = (typeof MATRIX_CELLS)[number];

export interface MatrixRow {
  readonly imageId: string;
  readonly imageName: string | null;
  readonly status: string;
  readonly diskFormat: string | null;
  /** Per store, in the matrix's store order. */
  readonly cells: Readonly<Record<string, MatrixCell>>;
}

export interface StoreMatrix {
  readonly stores: readonly string[];
  readonly rows: readonly MatrixRow[];
  readonly unresolved: readonly UnresolvedImage[];
  readonly counts: Readonly<Record<MatrixCell, number>>;
}

/** Where one image stands in one store: present, copying (an import writes it now), failed (last import), missing. Pure. */
export function matrixCell(image: GlanceImage, store: StoreFacts): MatrixCell {
  // Copyability does not matter here, only where the image is: judge as if any format could go anywhere.
  const verdict = classifyPlacement(image, store.id, { ...store, readOnly: false }, { anyFormat: true });
  switch (verdict.state) {
    case 'present':
    case 'copying':
    case 'missing':
      return verdict.state;
    case 'failed-earlier':
      return 'failed';
    case 'not-copyable':
      return image.failedImport.includes(store.id) ? 'failed' : 'missing';
  }
}

/** Pure: the table for the given images and stores. */
export function buildStoreMatrix(images: readonly GlanceImage[], stores: readonly StoreFacts[],
  unresolved: readonly UnresolvedImage[] = []): StoreMatrix {
  const counts: Record<MatrixCell, number> = { present: 0, copying: 0, failed: 0, missing: 0 };
  const rows = images.map((image): MatrixRow => {
    const cells: Record<string, MatrixCell> = {};
    for (const store of stores) {
      const cell = matrixCell(image, store);
      cells[store.id] = cell;
      counts[cell] += 1;
    }
    return Object.freeze({ imageId: image.id, imageName: image.name, status: image.status, diskFormat: image.diskFormat, cells: Object.freeze(cells) });
  });
  return Object.freeze({ stores: Object.freeze(stores.map((s) => s.id)), rows: Object.freeze(rows), unresolved, counts: Object.freeze(counts) });
}

/** Read the selected images and the stores (all writable ones unless named), and build the table. Reads only. */
export async function readStoreMatrix(ctx: Pick<CopyContext, 'glance'>, selection: PrewarmSelection,
  options: { readonly stores?: readonly string[]; readonly signal?: AbortSignal } = {}): Promise<StoreMatrix> {
  const catalogue = await readStoreCatalogue(ctx.glance, options.signal);
  const stores = options.stores !== undefined && options.stores.length > 0
    ? requireStores(catalogue, options.stores)
    : catalogue.stores.filter((store) => !store.readOnly);
  const selected = await selectImages(ctx.glance, selection, { signal: options.signal });
  return buildStoreMatrix(selected.images, stores, selected.unresolved);
}
