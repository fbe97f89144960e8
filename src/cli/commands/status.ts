import { z } from 'zod';
import { statusDocument, statusJsonSchema } from '../../contract/status-document.js';
import { copyStatus, type CopyStatus } from '../../copy/copy-status.js';
import { FerryError } from '../../errors/ferry-error.js';
import { assertSelection } from '../../prewarm/prewarm-selection.js';
import { readStoreMatrix, type StoreMatrix } from '../../prewarm/store-matrix.js';
import type { CommandSpec } from '../command-spec.js';
import { matrixJsonSchema, matrixToJson, matrixToRows, renderMatrix } from '../render/matrix.js';
import { renderStatus } from '../render/status.js';
import { SELECTION_OPTIONS, selectionFromFlags } from '../inputs/prewarm-flags.js';


/** `ferry status IMAGE` reads one image; `ferry status --matrix …` reads a table of images × stores. */
export type StatusReport = { readonly kind: 'image'; readonly status: CopyStatus } | { readonly kind: 'matrix'; readonly matrix: StoreMatrix };

export const statusCommand: CommandSpec<StatusReport> = {
  name: 'status',
  description: 'With --matrix: a table of images × stores (present / copying / failed / missing) for the named images, '
    + '--tag/--property, or --all; --store limits the columns (default: every writable store).',
  examples: ['ferry status 3f1c2a9e-5b7d-4c1e-9a8f-0d2e4b6c8a10', 'ferry status cirros-raw --json',
    'ferry status --matrix --tag golden', 'ferry status --matrix --all --store site-a --store site-b --json'],
  arguments: [{ name: 'IMAGE', description: 'image ID or unique name (with --matrix: any number of them)', required: false, variadic: true }],
  options: [
    { name: 'matrix', description: 'images × stores table instead of one image' },
    { name: 'store', value: 'STORE', repeatable: true, description: 'with --matrix: the store columns (default: every writable store)' },
    ...SELECTION_OPTIONS,
  ],
  jsonSchema: z.union([statusJsonSchema, matrixJsonSchema]),
  async run(ctx) {
    if (ctx.flags.matrix === true) {
      const selection = selectionFromFlags(ctx);
      assertSelection(selection);
      const stores = Array.isArray(ctx.flags.store) ? ctx.flags.store as readonly string[] : [];
      const cloud = await ctx.connect();
      return { kind: 'matrix', matrix: await readStoreMatrix(cloud, selection, { stores, signal: ctx.signal }) };
    }
    const matrixOnly = ['store', ...SELECTION_OPTIONS.map((o) => o.name)].filter((name) => ctx.flags[name] !== undefined);
    if (ctx.args.length !== 1 || matrixOnly.length > 0) {
      throw new FerryError('FERRY_INVALID_OPTION', ctx.args.length === 0 ? 'no IMAGE given'
        : matrixOnly.length > 0 ? `--${matrixOnly[0]} goes with --matrix` : `one IMAGE at a time, got ${ctx.args.length}`,
      'Give one IMAGE (ferry status IMAGE), or ask for a table with --matrix (ferry status --matrix IMAGE... | --tag T | --all).');
    }
    const cloud = await ctx.connect();
    return { kind: 'image', status: await copyStatus(cloud, ctx.args[0] ?? '', { signal: ctx.signal }) };
  },
  toJson: (report) => (report.kind === 'image' ? statusDocument(report.status) : matrixToJson(report.matrix)),
  rows: (report) => (report.kind === 'matrix' ? matrixToRows(report.matrix) : undefined),
  render: (report, style) => (report.kind === 'image' ? renderStatus(report.status, style) : renderMatrix(report.matrix, style)),
};
