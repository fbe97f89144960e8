import { describe, expect, it } from 'vitest';
import { parseTimeWindow, windowWaitMs } from '../../../src/clock/time-window.js';
import { isFerryError } from '../../../src/errors/ferry-error.js';

const at = (hhmm: string): number => Date.parse(`2026-11-29T${hhmm}:00Z`);
const MIN = 60_000;

describe('windowWaitMs', () => {
  it.each([
    { window: '22:00-06:00', now: '23:30', wait: 0 },
    { window: '22:00-06:00', now: '05:59', wait: 0 },
    { window: '22:00-06:00', now: '06:00', wait: 16 * 60 * MIN },
    { window: '22:00-06:00', now: '21:59', wait: MIN },
    { window: '01:00-03:30', now: '02:00', wait: 0 },
    { window: '01:00-03:30', now: '03:30', wait: (21 * 60 + 30) * MIN },
    { window: '01:00-03:30', now: '00:00', wait: 60 * MIN },
  ])('$window at $now: waits $wait ms', ({ window, now, wait }) => {
    expect(windowWaitMs(parseTimeWindow(window), at(now))).toBe(wait);
  });

  it.each(['22:00', '24:00-06:00', '22:00-22:00', '10-12', '22:00 - 06:00x'])('refuses %s with one message naming the form', (text) => {
    expect(() => parseTimeWindow(text)).toThrow(/--window must be HH:MM-HH:MM in UTC/);
    try {
      parseTimeWindow(text);
    } catch (error) {
      expect(isFerryError(error, 'FERRY_INVALID_OPTION')).toBe(true);
    }
  });
});

describe('paceDelayMs', () => {
  it.each([
    { bytes: 0, rate: 1000, started: 0, now: 0, delay: 0 },
    { bytes: 1000, rate: 1000, started: 0, now: 0, delay: 1000 },
    { bytes: 1000, rate: 1000, started: 0, now: 400, delay: 600 },
    { bytes: 1000, rate: 1000, started: 0, now: 1500, delay: 0 },
    { bytes: 1000, rate: 0, started: 0, now: 0, delay: 0 },
  ])('$bytes bytes at $rate B/s, $now ms in: wait $delay ms', async ({ bytes, rate, started, now, delay }) => {
    const { paceDelayMs } = await import('../../../src/rbd/paced-inspector.js');
    expect(paceDelayMs(bytes, rate, started, now)).toBe(delay);
  });
});
