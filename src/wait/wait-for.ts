import { systemClock, type Clock } from '../clock/clock.js';
import { isFerryError } from '../errors/ferry-error.js';
import { DELAY_DEFAULTS, nextDelay, type DelayPolicy } from './next-delay.js';
import { judge, type Acceptor, type Verdict } from './verdict.js';

export interface WaitOptions {
  /** Required: nothing waits forever. Relative to the start of the wait. */
  readonly deadlineMs: number;
  readonly delay?: Partial<DelayPolicy>;
  readonly signal?: AbortSignal | undefined;
  readonly clock?: Clock;
  readonly random?: () => number;
  /**
   * Sleep this long before the first poll (default 0: poll at once). For a wait whose first answer is known in
   * advance ("started"), e.g. the first read after an import request. Shortened to fit the deadline like any delay.
   */
  readonly firstDelayMs?: number;
  /** Called after every poll with the snapshot's verdict: progress reporting, never decisions. */
  readonly onPoll?: (event: { readonly polls: number; readonly elapsedMs: number; readonly verdict: Verdict<unknown> }) => void;
}

export type WaitOutcome<S, T> =
  | { readonly state: 'success'; readonly value: T; readonly polls: number; readonly elapsedMs: number }
  | {
      readonly state: 'failure' | 'timeout' | 'aborted';
      readonly reason: string;
      readonly last?: S;
      readonly seen: Readonly<Record<string, number>>;
      readonly polls: number;
      readonly elapsedMs: number;
    };

/**
 * Poll until an acceptor gives a terminal verdict, the deadline passes or the signal aborts. Polls at once, then
 * sleeps per `nextDelay`. Errors the transport calls retryable count as retries (tallied in `seen`); any other
 * error propagates. Returns data; the public caller turns a bad outcome into a FerryError.
 */
export async function waitFor<S, T>(
  poll: (signal: AbortSignal | undefined) => Promise<S>,
  acceptors: readonly Acceptor<S, T>[],
  options: WaitOptions,
): Promise<WaitOutcome<S, T>> {
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const policy: DelayPolicy = { ...DELAY_DEFAULTS, ...options.delay };
  const started = clock.now();
  const seen: Record<string, number> = {};
  let last: S | undefined;
  let polls = 0;
  const elapsed = (): number => clock.now() - started;
  const ended = (state: 'failure' | 'timeout' | 'aborted', reason: string): WaitOutcome<S, T> =>
    ({ state, reason, ...(last !== undefined ? { last } : {}), seen: { ...seen }, polls, elapsedMs: elapsed() });

  const firstDelay = Math.round(Math.min(options.firstDelayMs ?? 0, options.deadlineMs - policy.deadlineSlackMs));
  if (firstDelay > 0) {
    try {
      await clock.sleep(firstDelay, options.signal);
    } catch (error) {
      if (options.signal?.aborted) return ended('aborted', abortReason(options.signal));
      throw error;
    }
  }

  for (;;) {
    if (options.signal?.aborted) return ended('aborted', abortReason(options.signal));
    let verdict: Verdict<T>;
    try {
      polls += 1;
      last = await poll(options.signal);
      verdict = judge(last, acceptors);
    } catch (error) {
      if (options.signal?.aborted) return ended('aborted', abortReason(options.signal));
      if (!isFerryError(error) || error.details.retryable !== true) throw error;
      verdict = { state: 'retry', note: `error: ${error.code}` };
    }
    options.onPoll?.({ polls, elapsedMs: elapsed(), verdict });
    if (verdict.state === 'success') return { state: 'success', value: verdict.value, polls, elapsedMs: elapsed() };
    if (verdict.state === 'failure') return ended('failure', verdict.reason);
    const note = verdict.note ?? 'unjudged';
    seen[note] = (seen[note] ?? 0) + 1;

    const remaining = options.deadlineMs - elapsed();
    const delay = nextDelay(polls, remaining, policy, random, verdict.etaMs);
    if (delay <= 0) return ended('timeout', `no verdict after ${polls} polls in ${Math.round(elapsed())} ms`);
    try {
      await clock.sleep(delay, options.signal);
    } catch (error) {
      if (options.signal?.aborted) return ended('aborted', abortReason(options.signal));
      throw error;
    }
  }
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason.message;
  return typeof reason === 'string' ? reason : 'aborted';
}
