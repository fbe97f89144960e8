import { describe, expect, it } from 'vitest';
import { createSingleFlight } from '../../../src/copy/single-flight.js';

/** The agent's host-wide single flight is the copy engine's: these are the properties the agent relies on. */
describe('single flight as the agent uses it', () => {
  it('single flight: one caller leaving keeps the work going for the others', async () => {
    const flights = createSingleFlight<string>();
    let started = 0;
    let release = (): void => undefined;
    let workSignal: AbortSignal | undefined;
    const work = (signal: AbortSignal) => {
      started += 1;
      workSignal = signal;
      return new Promise<string>((resolve) => { release = () => resolve('done'); });
    };
    const leaving = new AbortController();
    const first = flights.run('k', leaving.signal, work);
    const second = flights.run('k', new AbortController().signal, work);
    leaving.abort(new Error('gone'));
    await expect(first).rejects.toThrow('gone');
    await Promise.resolve();
    expect(workSignal?.aborted).toBe(false);
    release();
    await expect(second).resolves.toBe('done');
    expect(started).toBe(1);
  });

  it('single flight: the last caller leaving aborts the work, and a caller arriving meanwhile starts fresh work', async () => {
    const flights = createSingleFlight<string>();
    const signals: AbortSignal[] = [];
    const work = (signal: AbortSignal) => {
      signals.push(signal);
      // Settles only on abort, and only a little later: the window where a new caller could join dead work.
      return new Promise<string>((resolve, reject) => {
        signal.addEventListener('abort', () => setTimeout(() => reject(new Error('aborted')), 20), { once: true });
        if (signals.length > 1) setTimeout(() => resolve('fresh'), 5);
      });
    };
    const only = new AbortController();
    const first = flights.run('k', only.signal, work);
    await Promise.resolve();
    only.abort(new Error('gone'));
    await expect(first).rejects.toThrow('gone');
    expect(signals[0]?.aborted).toBe(true);
    await expect(flights.run('k', undefined, work)).resolves.toBe('fresh');
    expect(signals).toHaveLength(2);
  });
});
