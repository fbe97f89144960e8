import { FerryError } from '../../errors/ferry-error.js';
import type { PrewarmEvent } from '../../fleet/prewarm-events.js';
import { PREWARM_DEFAULTS, REQUEST_MODES, type PrewarmOptions, type RequestMode } from '../../prewarm/prewarm-options.js';
import { ADAPTIVE_DEFAULTS } from '../../prewarm/adaptive-concurrency.js';
import { parsePropertyFilters, type PrewarmSelection } from '../../fleet/prewarm-selection.js';
import type { CommandContext, OptionSpec } from '../command-spec.js';
import { configFlag, TRANSFER_FLAGS } from '../global-options.js';
import { createPrewarmProgress } from '../render/prewarm-progress.js';
import { parseByteRate } from '../../config/byte-rate.js';
import { buildCephCluster } from '../../config/build-ceph-cluster.js';
import { parseTimeWindow } from '../../clock/time-window.js';

// The flags and terminal progress that prewarm, sync and status --matrix share.

/** --tag/--property/--all/--visibility: shared by prewarm and status --matrix. */
export const SELECTION_OPTIONS: readonly OptionSpec[] = [
  { name: 'tag', value: 'TAG', description: 'select the images carrying this tag' },
  { name: 'property', value: 'KEY=VALUE', repeatable: true, description: 'select the images whose property KEY has VALUE (all must match)' },
  { name: 'all', description: 'select every image visible to the caller' },
  { name: 'visibility', value: 'V', description: 'with --tag/--property/--all: public, private, shared, community or all' },
];

/** The options that shape a run: shared by prewarm and sync. */
export const RUN_OPTIONS: readonly OptionSpec[] = [
  { name: 'concurrency', value: 'N', description: `images copied at once, fixed (default: adaptive, from ${PREWARM_DEFAULTS.concurrency} up to ${ADAPTIVE_DEFAULTS.ceiling} as Glance's throughput grows)` },
  { name: 'per-store', value: 'N', description: 'images copied into any one store at once (default: the --concurrency value, or the adaptive ceiling)' },
  { name: 'request-mode', value: 'MODE', description: `image: one import per image naming all its stores; store: one per store (default ${PREWARM_DEFAULTS.requestMode})` },
  { name: 'fan-out', value: 'N', description: 'with --transfer rbd/auto: send an image to its stores as a tree, each store that holds a proven copy serving N others at once, the first holders N in all (docs/deploy/fan-out.md; default: off, every store from one read of the source)' },
  { name: 'rate-limit', value: 'RATE', description: 'with --transfer rbd: each direct copy (one read of a source, written to its stores; with --fan-out one hop, one link) moves at most RATE, e.g. 100MB/s, 50MiB/s, 800Mbit/s (default: no limit)' },
  { name: 'window', value: 'HH:MM-HH:MM', description: 'start copies only in this daily window, UTC (22:00-06:00 wraps midnight); outside it they wait; a running copy finishes' },
  { name: 'any-format', description: 'copy non-raw images into rbd stores too (nova clones only raw ones from there)' },
  ...['timeout', 'poll-interval', 'stale-lock-after', 'take-over-expired', ...TRANSFER_FLAGS, 'ceph-conf', 'rbd-user'].map(configFlag),
];

const list = (value: unknown): readonly string[] => (Array.isArray(value) ? (value as string[]) : typeof value === 'string' ? [value] : []);
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export function selectionFromFlags(ctx: CommandContext): PrewarmSelection {
  const properties = list(ctx.flags.property);
  const tag = text(ctx.flags.tag);
  const visibility = text(ctx.flags.visibility);
  return {
    ...(ctx.args.length > 0 ? { images: ctx.args } : {}),
    ...(tag === undefined ? {} : { tag }),
    ...(properties.length > 0 ? { properties: parsePropertyFilters(properties) } : {}),
    ...(ctx.flags.all === true ? { all: true } : {}),
    ...(visibility === undefined ? {} : { visibility }),
  };
}

function countFlag(ctx: CommandContext, name: string): number | undefined {
  const value = text(ctx.flags[name]);
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > PREWARM_DEFAULTS.maxConcurrency) {
    throw new FerryError('FERRY_INVALID_OPTION', `--${name} must be an integer from 1 to ${PREWARM_DEFAULTS.maxConcurrency}, got '${value}'`,
      `Pass e.g. --${name} 4.`, { option: name });
  }
  return Number(value);
}

/** The flags every run takes (limits, request mode, format, copy timings from the config), minus stores. */
export function runOptionsFromFlags(ctx: CommandContext): Omit<PrewarmOptions, 'stores'> {
  const mode = text(ctx.flags['request-mode']);
  if (mode !== undefined && !(REQUEST_MODES as readonly string[]).includes(mode)) {
    throw new FerryError('FERRY_INVALID_OPTION', `--request-mode must be one of ${REQUEST_MODES.join(', ')}, got '${mode}'`,
      'image: one import request per image naming all its stores; store: one request per store.', { option: 'request-mode' });
  }
  const concurrency = countFlag(ctx, 'concurrency');
  const perStore = countFlag(ctx, 'per-store');
  const fanOut = countFlag(ctx, 'fan-out');
  const rateLimit = text(ctx.flags['rate-limit']);
  const window = text(ctx.flags.window);
  const localCluster = buildCephCluster(ctx.config.ceph);
  return {
    ...(rateLimit === undefined ? {} : { bytesPerSecond: parseByteRate(rateLimit) }),
    ...(window === undefined ? {} : { window: parseTimeWindow(window) }),
    ...(fanOut === undefined ? {} : { fanOut }),
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(perStore === undefined ? {} : { perStoreConcurrency: perStore }),
    ...(mode === undefined ? {} : { requestMode: mode as RequestMode }),
    anyFormat: ctx.flags['any-format'] === true,
    timeoutMs: ctx.config.copy.timeoutMs,
    // --poll-interval caps the pauses; the floor is prewarm's own (PREWARM_DEFAULTS.minPollDelayMs), not ensure's.
    maxPollDelayMs: ctx.config.copy.maxPollDelayMs,
    staleLockAfterMs: ctx.config.copy.staleLockAfterMs,
    takeOverExpired: ctx.config.copy.takeOverExpired,
    transfer: ctx.config.copy.transfer,
    sourceCephConfs: ctx.config.copy.sourceCephConfs,
    ...(ctx.config.copy.sourceRbdUser === undefined ? {} : { sourceRbdUser: ctx.config.copy.sourceRbdUser }),
    rbdQuietMs: ctx.config.copy.rbdQuietMs,
    ...(localCluster === undefined ? {} : { localCluster, localStore: ctx.config.copy.store }),
    signal: ctx.signal,
  };
}

/**
 * Progress on the terminal: on a TTY the live area (bar + a line per running copy, refreshed every second) with the
 * plan, failures and stopping kept above it; elsewhere a plain line per event. Returns the callback and a stop.
 */
export function prewarmProgressSink(ctx: CommandContext): { onProgress: (event: PrewarmEvent) => void; stop: () => void } {
  const view = createPrewarmProgress(Date.now());
  const notice = ctx.notice ?? (() => undefined);
  if (ctx.interactive !== true) {
    return { onProgress: (event) => { const line = view.handle(event, Date.now()); if (line !== undefined) notice(line); }, stop: () => undefined };
  }
  const ticker = setInterval(() => ctx.progress.update(view.frame(Date.now())), 1000);
  ticker.unref();
  return {
    onProgress(event) {
      const line = view.handle(event, Date.now());
      const keep = event.type === 'planned' || event.type === 'aborting' || (event.type === 'item-done' && event.item.outcome === 'failed');
      if (line !== undefined && keep) notice(line);
      ctx.progress.update(view.frame(Date.now()));
    },
    stop: () => clearInterval(ticker),
  };
}
