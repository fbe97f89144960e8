import { ERROR_TABLE } from '../../errors/error-table.js';
import { FerryError } from '../../errors/ferry-error.js';
import type { PrewarmReport } from '../../fleet/prewarm-report.js';
import { prewarm } from '../../prewarm/prewarm.js';
import type { CommandContext, CommandSpec } from '../command-spec.js';
import { prewarmJsonSchema, prewarmToJson } from '../../contract/prewarm-document.js';
import { PREWARM_COLUMNS, prewarmToRows } from '../reports/prewarm-rows.js';
import { renderPrewarm } from '../render/prewarm.js';
import { prewarmProgressSink, RUN_OPTIONS, runOptionsFromFlags, SELECTION_OPTIONS, selectionFromFlags } from '../inputs/prewarm-flags.js';

const list = (value: unknown): readonly string[] => (Array.isArray(value) ? (value as string[]) : typeof value === 'string' ? [value] : []);

/** --store (repeatable), else the configured store (FERRY_STORE, nova.conf images_rbd_glance_store_name). */
export function storesFromFlags(ctx: CommandContext): readonly string[] {
  const stores = list(ctx.flags.store);
  if (stores.length > 0) return stores;
  if (ctx.config.copy.store !== undefined) return [ctx.config.copy.store];
  throw new FerryError('FERRY_INVALID_OPTION', 'no target store given',
    'Name the stores to copy into: --store NAME (repeat it for several), or set FERRY_STORE.', { option: 'store' });
}

export function prewarmExitCode(report: PrewarmReport): number {
  if (report.aborted) return ERROR_TABLE.FERRY_ABORTED.exit;
  return report.counts.failed > 0 ? ERROR_TABLE.FERRY_PARTIAL_FAILURE.exit : 0;
}

export const prewarmCommand: CommandSpec<PrewarmReport> = {
  name: 'prewarm',
  description: 'Plans every (image, store) first: present, copying (someone else), failed earlier, missing, or not copyable (and why). '
    + 'Then asks Glance to copy what is missing (copy-image) and follows each copy to its end, joining copies others run. '
    + 'Exit 50 when anything failed; Ctrl-C stops starting copies, lists those still running inside Glance and exits 130; '
    + 'running the same command again picks up where it stopped. Guide: docs/prewarm.md.',
  examples: [
    'ferry prewarm --store site-a --store site-b --tag golden',
    'ferry prewarm --store site-b cirros-raw ubuntu-22.04-raw --dry-run',
    'ferry prewarm --store site-a --property os_distro=ubuntu --visibility public --concurrency 8 --json',
    'ferry prewarm --store site-a --store site-b --all',
  ],
  arguments: [{ name: 'IMAGE', description: 'image IDs or unique names (or select with --tag/--property/--all)', required: false, variadic: true }],
  options: [
    { name: 'store', value: 'STORE', repeatable: true, description: 'target Glance store (repeat for several; written in this order)' },
    ...SELECTION_OPTIONS,
    { name: 'dry-run', description: 'print the plan and exit; send no import request' },
    ...RUN_OPTIONS,
  ],
  jsonSchema: prewarmJsonSchema,
  async run(ctx) {
    const selection = selectionFromFlags(ctx);
    const stores = storesFromFlags(ctx);
    const cloud = await ctx.connect();
    const progress = prewarmProgressSink(ctx);
    try {
      return await prewarm(cloud, selection, {
        ...runOptionsFromFlags(ctx),
        stores,
        dryRun: ctx.flags['dry-run'] === true,
        onProgress: progress.onProgress,
      });
    } finally {
      progress.stop();
    }
  },
  toJson: prewarmToJson,
  rows: prewarmToRows,
  rowColumns: PREWARM_COLUMNS,
  render: renderPrewarm,
  exitCode: prewarmExitCode,
};
