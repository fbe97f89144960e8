import { FerryError } from '../../errors/ferry-error.js';
import { parseDuration } from '../../clock/parse-duration.js';
import { parseListenAddress, type ListenAddress } from '../../metrics/listen-address.js';
import { startMetricsListener } from '../../metrics/metrics-listener.js';
import { evictVerb } from '../../evict/evict-verb.js';
import type { FleetVerbs } from '../../fleet/fleet-verb.js';
import { prewarmVerb } from '../../prewarm/prewarm-verb.js';
import { syncExitCode } from '../../sync/sync-exit-code.js';
import { createSyncMetrics } from '../../sync/sync-metrics.js';
import { syncOnce } from '../../sync/sync-once.js';
import { watchSync } from '../../sync/watch-sync.js';
import type { CommandContext, CommandSpec } from '../command-spec.js';
import { syncJsonSchema, syncToJson, type SyncOutcome } from '../../contract/sync-document.js';
import { describePass, renderSync } from '../render/sync.js';
import { readPolicyFile } from '../inputs/policy-file.js';
import { prewarmProgressSink, RUN_OPTIONS, runOptionsFromFlags } from '../inputs/prewarm-flags.js';
import { PREWARM_COLUMNS, prewarmToRows } from '../reports/prewarm-rows.js';

/** A sync pass is a prewarm plus an eviction over one snapshot: sync/ is handed the two verbs here, above all three. */
const SYNC_VERBS: FleetVerbs = { prewarm: prewarmVerb, evict: evictVerb };

/** The environment variable equivalent to `--metrics-listen` (e.g. in the sync unit's environment file). */
export const SYNC_METRICS_LISTEN_ENV = 'FERRY_SYNC_METRICS_LISTEN';

/** --metrics-listen, else FERRY_SYNC_METRICS_LISTEN; only a watch serves metrics (a single pass is over before a scrape). */
function metricsAddress(ctx: CommandContext, watch: boolean): ListenAddress | undefined {
  const flag = typeof ctx.flags['metrics-listen'] === 'string' ? ctx.flags['metrics-listen'] : undefined;
  if (flag !== undefined && !watch) {
    throw new FerryError('FERRY_INVALID_OPTION', '--metrics-listen needs --watch', 'Add --watch, or drop --metrics-listen for a single pass.',
      { option: 'metrics-listen' });
  }
  if (!watch) return undefined;
  if (flag !== undefined) return parseListenAddress(flag, '--metrics-listen');
  const env = ctx.env?.[SYNC_METRICS_LISTEN_ENV];
  return env ? parseListenAddress(env, SYNC_METRICS_LISTEN_ENV) : undefined;
}

/** Bound on one /healthz answer of the watch (it reads the last pass; nothing to wait for). */
const SYNC_HEALTH_TIMEOUT_MS = 5_000;

export const syncCommand: CommandSpec<SyncOutcome> = {
  name: 'sync',
  description: 'One pass: resolve each placement of the policy, plan every (image, store) it wants, copy what is missing '
    + '(a prewarm of the drift) and report the drift before and after. A policy with stores: budgets also evicts: after '
    + 'the copies, in each store over its budget, it removes idle copies the policy does not want there (least recently '
    + 'used first, with ferry evict\'s fence, grace and last look; docs/evict.md). Without stores: it removes nothing. '
    + '--watch repeats every --interval, reloading the policy, backing off after passes with failures, until Ctrl-C. '
    + 'Policy format: docs/prewarm.md.',
  examples: [
    'ferry sync --policy /etc/ferry/edge-images.yaml',
    'ferry sync --policy edge.yaml --dry-run --json',
    'ferry sync --policy edge.yaml --watch --interval 5m',
    'ferry sync --policy edge.yaml --watch --metrics-listen 127.0.0.1:9465',
  ],
  arguments: [],
  options: [
    { name: 'policy', value: 'FILE', description: 'the YAML policy: which images must be in which stores' },
    { name: 'watch', description: 'repeat until Ctrl-C, one log line per pass' },
    { name: 'interval', value: 'DURATION', description: 'with --watch: pause between passes, e.g. 30s, 5m, 1h (default 5m)' },
    { name: 'dry-run', description: 'report the drift (and, with budgets, the evictions planned) only; send no import request, remove nothing' },
    { name: 'metrics-listen', value: 'HOST:PORT',
      description: `with --watch: serve GET /metrics (passes, copies, failures, drift) and GET /healthz over TCP here (env ${SYNC_METRICS_LISTEN_ENV})` },
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
    const listen = metricsAddress(ctx, watch);
    const first = readPolicyFile(ctx, file);
    const options = { ...runOptionsFromFlags(ctx), dryRun: ctx.flags['dry-run'] === true };
    const cloud = await ctx.connect();
    if (!watch) {
      const progress = prewarmProgressSink(ctx);
      try {
        return { report: await syncOnce(cloud, SYNC_VERBS, first, { ...options, onProgress: progress.onProgress }), watch: undefined };
      } finally {
        progress.stop();
      }
    }
    const metrics = listen === undefined ? undefined : createSyncMetrics();
    const listener = metrics === undefined || listen === undefined ? undefined : await startMetricsListener({ address: listen,
      from: ctx.flags['metrics-listen'] === undefined ? SYNC_METRICS_LISTEN_ENV : '--metrics-listen', registry: metrics.registry,
      health: () => Promise.resolve(metrics.health()), healthTimeoutMs: SYNC_HEALTH_TIMEOUT_MS, logger: ctx.logger });
    let loaded = false;
    try {
      const summary = await watchSync(cloud, SYNC_VERBS, () => {
        if (!loaded) {
          loaded = true;
          return first;
        }
        return readPolicyFile(ctx, file);
      }, { ...options, intervalMs, onPass: (pass) => {
        metrics?.recordPass(pass);
        ctx.notice?.(describePass(pass));
      } });
      return { report: summary.last, watch: summary };
    } finally {
      await listener?.close();
    }
  },
  toJson: syncToJson,
  // The last pass's (image, store) items; --watch that completed no pass has none.
  rows: ({ report }) => prewarmToRows(report?.result),
  rowColumns: PREWARM_COLUMNS,
  render: renderSync,
  exitCode: ({ report, watch }) => syncExitCode(report, watch !== undefined),
};
