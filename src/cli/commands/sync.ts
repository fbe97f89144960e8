import { ERROR_TABLE } from '../../errors/error-table.js';
import { FerryError } from '../../errors/ferry-error.js';
import { parseDuration } from '../../clock/parse-duration.js';
import { parseSyncPolicy } from '../../sync/parse-sync-policy.js';
import { syncOnce } from '../../sync/sync-once.js';
import type { SyncPolicy } from '../../sync/sync-policy.js';
import { watchSync } from '../../sync/watch-sync.js';
import type { CommandContext, CommandSpec } from '../command-spec.js';
import { describePass, renderSync, syncJsonSchema, syncToJson, type SyncOutcome } from '../render/sync.js';
import { prewarmProgressSink, RUN_OPTIONS, runOptionsFromFlags } from '../inputs/prewarm-flags.js';
import { PREWARM_COLUMNS, prewarmToRows } from '../render/prewarm-json.js';

/** Read and parse the policy file named by --policy; an unreadable file is FERRY_INVALID_CONFIG too. */
function loadPolicy(ctx: CommandContext, file: string): SyncPolicy {
  let source: string;
  try {
    source = ctx.readFile(file);
  } catch (error) {
    throw new FerryError('FERRY_INVALID_CONFIG', `cannot read the policy file ${file}: ${(error as Error).message}`,
      'Check the path given to --policy.', { file }, { cause: error });
  }
  return parseSyncPolicy(source, file);
}

export const syncCommand: CommandSpec<SyncOutcome> = {
  name: 'sync',
  summary: 'Bring images into the stores a YAML policy declares, and report the drift (--watch keeps it so)',
  description: 'One pass: resolve each placement of the policy, plan every (image, store) it wants, copy what is missing '
    + '(a prewarm of the drift) and report the drift before and after. Never deletes. --watch repeats every --interval, '
    + 'reloading the policy, backing off after passes with failures, until Ctrl-C. Policy format: docs/prewarm.md.',
  examples: [
    'ferry sync --policy /etc/ferry/edge-images.yaml',
    'ferry sync --policy edge.yaml --dry-run --json',
    'ferry sync --policy edge.yaml --watch --interval 5m',
  ],
  arguments: [],
  options: [
    { name: 'policy', value: 'FILE', description: 'the YAML policy: which images must be in which stores' },
    { name: 'watch', description: 'repeat until Ctrl-C, one log line per pass' },
    { name: 'interval', value: 'DURATION', description: 'with --watch: pause between passes, e.g. 30s, 5m, 1h (default 5m)' },
    { name: 'dry-run', description: 'report the drift only; send no import request' },
    ...RUN_OPTIONS,
  ],
  jsonSchema: syncJsonSchema,
  async run(ctx) {
    const file = typeof ctx.flags.policy === 'string' ? ctx.flags.policy : undefined;
    if (file === undefined) {
      throw new FerryError('FERRY_INVALID_OPTION', '--policy FILE is required', 'Name the YAML policy file (format: docs/prewarm.md).', { option: 'policy' });
    }
    const watch = ctx.flags.watch === true;
    const interval = typeof ctx.flags.interval === 'string' ? ctx.flags.interval : undefined;
    if (interval !== undefined && !watch) {
      throw new FerryError('FERRY_INVALID_OPTION', '--interval needs --watch', 'Add --watch, or drop --interval for a single pass.', { option: 'interval' });
    }
    const intervalMs = parseDuration(interval ?? '5m');
    if (intervalMs < 1000) {
      throw new FerryError('FERRY_INVALID_OPTION', `--interval must be at least 1s, got '${interval ?? ''}'`, 'Pass e.g. --interval 30s.', { option: 'interval' });
    }
    const first = loadPolicy(ctx, file);
    const options = { ...runOptionsFromFlags(ctx), dryRun: ctx.flags['dry-run'] === true };
    const cloud = await ctx.connect();
    if (!watch) {
      const progress = prewarmProgressSink(ctx);
      try {
        return { report: await syncOnce(cloud, first, { ...options, onProgress: progress.onProgress }), watch: undefined };
      } finally {
        progress.stop();
      }
    }
    let loaded = false;
    const summary = await watchSync(cloud, () => {
      if (!loaded) {
        loaded = true;
        return first;
      }
      return loadPolicy(ctx, file);
    }, { ...options, intervalMs, onPass: (pass) => ctx.notice?.(describePass(pass)) });
    return { report: summary.last, watch: summary };
  },
  toJson: syncToJson,
  // The last pass's (image, store) items; --watch that completed no pass has none.
  rows: ({ report }) => prewarmToRows(report?.result),
  rowColumns: PREWARM_COLUMNS,
  render: renderSync,
  exitCode: ({ report, watch }) => {
    if (watch !== undefined || report?.result.aborted === true) return ERROR_TABLE.FERRY_ABORTED.exit;
    return (report?.result.counts.failed ?? 0) > 0 ? ERROR_TABLE.FERRY_PARTIAL_FAILURE.exit : 0;
  },
};
