import { describe, expect, it } from 'vitest';
import { FerryError } from '../../../src/errors/ferry-error.js';
import type { Acceptor } from '../../../src/wait/verdict.js';
import { waitFor } from '../../../src/wait/wait-for.js';
import { fakeClock } from '../../helpers/fake-clock.js';

type Snap = 'copying' | 'done' | 'failed' | 'odd';
const acceptors: readonly Acceptor<Snap, string>[] = [
  (s) => (s === 'done' ? { state: 'success', value: 'ok' } : undefined),
  (s) => (s === 'failed' ? { state: 'failure', reason: 'it failed' } : undefined),
  (s) => (s === 'copying' ? { state: 'retry', note: 'copying' } : undefined),
];
const delay = { minDelayMs: 100, maxDelayMs: 1_000, factor: 2, deadlineSlackMs: 50 };

function sequence(...snaps: Snap[]): (signal: AbortSignal | undefined) => Promise<Snap> {
  let i = 0;
  return () => Promise.resolve(snaps[Math.min(i++, snaps.length - 1)]!);
}

describe('waitFor', () => {
  it('waitFor: polls at once and sleeps the backoff sequence until success', async () => {
    const clock = fakeClock();
    const outcome = await waitFor(sequence('copying', 'copying', 'copying', 'done'), acceptors,
      { deadlineMs: 60_000, delay, clock, random: () => 1 });
    expect(outcome).toMatchObject({ state: 'success', value: 'ok', polls: 4 });
    expect(clock.sleeps).toEqual([100, 200, 400]);
  });

  it('waitFor: first terminal verdict wins; failure carries the reason and what was seen', async () => {
    const outcome = await waitFor(sequence('copying', 'odd', 'failed'), acceptors,
      { deadlineMs: 60_000, delay, clock: fakeClock(), random: () => 0 });
    expect(outcome).toEqual({ state: 'failure', reason: 'it failed', last: 'failed', seen: { copying: 1, unjudged: 1 }, polls: 3, elapsedMs: 200 });
  });

  it('waitFor: times out with a last poll just before the deadline', async () => {
    const clock = fakeClock();
    const outcome = await waitFor(sequence('copying'), acceptors, { deadlineMs: 1_000, delay, clock, random: () => 1 });
    expect(clock.sleeps).toEqual([100, 200, 400, 250]);
    expect(outcome).toMatchObject({ state: 'timeout', polls: 5, seen: { copying: 5 }, last: 'copying' });
    expect(outcome.elapsedMs).toBe(950);
  });

  it('waitFor: retryable transport errors are retries, tallied by code', async () => {
    let calls = 0;
    const poll = (): Promise<Snap> => {
      calls += 1;
      if (calls === 1) return Promise.reject(new FerryError('FERRY_UNREACHABLE', 'down', 'retry', { retryable: true }));
      return Promise.resolve('done');
    };
    const outcome = await waitFor(poll, acceptors, { deadlineMs: 10_000, delay, clock: fakeClock(), random: () => 0 });
    expect(outcome).toMatchObject({ state: 'success', polls: 2 });
  });

  it('waitFor: a non-retryable error propagates', async () => {
    const poll = (): Promise<Snap> => Promise.reject(new FerryError('FERRY_IMAGE_NOT_FOUND', 'gone', 'none'));
    await expect(waitFor(poll, acceptors, { deadlineMs: 10_000, delay, clock: fakeClock() }))
      .rejects.toMatchObject({ code: 'FERRY_IMAGE_NOT_FOUND' });
  });

  it('waitFor: an estimate makes the sleeps close in on the expected end', async () => {
    const clock = fakeClock();
    let eta = 8_000;
    const etaAcceptor: Acceptor<Snap, string> = (s) => {
      if (s !== 'copying') return undefined;
      const verdict = { state: 'retry' as const, etaMs: eta };
      return verdict;
    };
    const poll = (): Promise<Snap> => {
      eta = 8_000 - clock.now();
      return Promise.resolve(clock.now() >= 8_000 ? 'done' : 'copying');
    };
    const outcome = await waitFor(poll, [acceptors[0]!, etaAcceptor], {
      deadlineMs: 60_000, delay: { ...delay, maxDelayMs: 10_000 }, clock, random: () => 0.5 });
    expect(outcome).toMatchObject({ state: 'success' });
    expect(clock.sleeps).toEqual([4_000, 2_000, 1_000, 500, 250, 125, 100, 100]);
    expect(clock.now() - 8_000).toBeLessThanOrEqual(100);
  });

  it('waitFor: an abort mid-sleep settles at once and leaves no listener behind', async () => {
    const controller = new AbortController();
    const realSleepClock = { ...fakeClock(), sleep: (ms: number, signal?: AbortSignal) => new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      signal?.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason as Error); }, { once: true });
    }) };
    const pending = waitFor(sequence('copying'), acceptors, { deadlineMs: 600_000, delay: { ...delay, minDelayMs: 60_000, maxDelayMs: 60_000 },
      clock: realSleepClock, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('operator pressed Ctrl-C')), 5);
    const outcome = await pending;
    expect(outcome).toMatchObject({ state: 'aborted', reason: 'operator pressed Ctrl-C', polls: 1 });
  });

  it('waitFor: an already aborted signal polls nothing', async () => {
    let polled = false;
    const poll = (): Promise<Snap> => { polled = true; return Promise.resolve('done'); };
    const outcome = await waitFor(poll, acceptors, { deadlineMs: 1_000, signal: AbortSignal.abort('stop') });
    expect(outcome).toMatchObject({ state: 'aborted', reason: 'stop', polls: 0 });
    expect(polled).toBe(false);
  });
});
