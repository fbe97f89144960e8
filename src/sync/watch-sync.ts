import type { CopyContext } from '../copy/copy-context.js';
import type { FerryErrorCode } from '../errors/error-table.js';
import { isFerryError } from '../errors/ferry-error.js';
import type { FleetVerbs } from '../fleet/fleet-verb.js';
import { nextPassDelay } from './next-pass-delay.js';
import { syncOnce } from './sync-once.js';
import type { PassError, SyncOptions, SyncReport } from './sync-report.js';
import type { SyncPolicy } from '../fleet/sync-policy.js';

export interface WatchOptions extends SyncOptions {
  /** Pause between two clean passes. */
  readonly intervalMs: number;
  /** Cap of the backoff after unclean passes. Default: 16 × the interval, at most an hour (never below the interval). */
  readonly maxBackoffMs?: number;
  /** One call per pass: the CLI's log line. */
  readonly onPass?: (pass: WatchPass) => void;
}

export type { PassError } from './sync-report.js';

export interface WatchPass {
  readonly number: number;
  readonly elapsedMs: number;
  /** undefined when the pass ended in an error. */
  readonly report: SyncReport | undefined;
  readonly error: PassError | undefined;
  /** The policy file could not be read again; the pass used the last good one. */
  readonly policyError: PassError | undefined;
  /** No failed copy and no error: the next pause is the plain interval. */
  readonly clean: boolean;
  readonly nextInMs: number;
}

export interface WatchSummary {
  readonly passes: number;
  readonly uncleanPasses: number;
  readonly last: SyncReport | undefined;
  readonly lastError: PassError | undefined;
}

/** Errors that need an operator, not a retry: at the first pass they stop the watch (a misconfigured start). */
const NEEDS_OPERATOR: ReadonlySet<FerryErrorCode> = new Set(['FERRY_INVALID_OPTION', 'FERRY_INVALID_CONFIG', 'FERRY_AUTH_FAILED',
  'FERRY_FORBIDDEN', 'FERRY_ENDPOINT_NOT_FOUND']);

export function watchMaxBackoffMs(intervalMs: number): number {
  return Math.max(intervalMs, Math.min(intervalMs * 16, 3_600_000));
}

/**
 * Keep a policy converged: a sync pass, a pause, again, until the signal fires. The policy is read again before each
 * pass (`loadPolicy`), so edits apply without a restart; a file that no longer parses keeps the last good policy.
 * Once it has started, the watch never stops on a failure: a pass that failed copies or hit an error (Glance down,
 * a timeout) is logged, and the pause doubles per unclean pass in a row, up to `maxBackoffMs`. Each pass is bounded:
 * every wait inside it has a deadline. At the first pass, an error that needs an operator (bad policy, credentials,
 * policy refusal) is thrown instead, so a broken start is loud.
 */
export async function watchSync(ctx: CopyContext, verbs: FleetVerbs, loadPolicy: () => SyncPolicy, options: WatchOptions): Promise<WatchSummary> {
  const { clock, logger } = ctx;
  const { signal } = options;
  const random = options.random ?? Math.random;
  const maxBackoffMs = options.maxBackoffMs ?? watchMaxBackoffMs(options.intervalMs);
  let policy: SyncPolicy | undefined;
  let passes = 0;
  let unclean = 0;
  let uncleanInRow = 0;
  let last: SyncReport | undefined;
  let lastError: PassError | undefined;

  // A function, not a narrowed property: the signal changes while a pass awaits.
  const stopped = (): boolean => signal?.aborted === true;
  while (!stopped()) {
    passes += 1;
    const started = clock.now();
    let policyError: PassError | undefined;
    try {
      policy = loadPolicy();
    } catch (error) {
      if (policy === undefined || !isFerryError(error)) throw error;
      policyError = { code: error.code, message: error.message };
      logger.warn({ code: error.code }, `policy not reloaded, keeping the last good one: ${error.message}`);
    }
    let report: SyncReport | undefined;
    let error: PassError | undefined;
    try {
      report = await syncOnce(ctx, verbs, policy, options);
      last = report;
    } catch (caught) {
      if (stopped()) break;
      if (!isFerryError(caught) || (passes === 1 && NEEDS_OPERATOR.has(caught.code))) throw caught;
      error = { code: caught.code, message: caught.message };
      lastError = error;
    }
    const clean = error === undefined && report !== undefined && report.result.counts.failed === 0;
    uncleanInRow = clean ? 0 : uncleanInRow + 1;
    if (!clean) unclean += 1;
    const nextInMs = nextPassDelay(options.intervalMs, uncleanInRow, maxBackoffMs, random);
    options.onPass?.(Object.freeze({ number: passes, elapsedMs: clock.now() - started, report, error, policyError, clean, nextInMs }));
    if (report?.result.aborted === true) break;
    try {
      await clock.sleep(nextInMs, signal);
    } catch {
      break;
    }
  }
  return Object.freeze({ passes, uncleanPasses: unclean, last, lastError });
}
