import { describe, expect, it } from 'vitest';
import { DELAY_DEFAULTS, nextDelay } from '../../../src/wait/next-delay.js';

const policy = { minDelayMs: 100, maxDelayMs: 2_000, factor: 2, deadlineSlackMs: 50 };

describe('nextDelay', () => {
  it.each([
    { attempt: 1, random: 0, expected: 100 },
    { attempt: 1, random: 1, expected: 100 },
    { attempt: 2, random: 1, expected: 200 },
    { attempt: 3, random: 1, expected: 400 },
    { attempt: 3, random: 0.5, expected: 250 },
    { attempt: 10, random: 1, expected: 2_000 },
    { attempt: 10, random: 0, expected: 100 },
  ])('backoff: attempt $attempt, random $random → $expected ms', ({ attempt, random, expected }) => {
    expect(nextDelay(attempt, 60_000, policy, () => random)).toBe(expected);
  });

  it.each([
    { etaMs: 8_000, random: 0.5, expected: 2_000 },
    { etaMs: 1_000, random: 0.5, expected: 500 },
    { etaMs: 1_000, random: 0, expected: 450 },
    { etaMs: 1_000, random: 1, expected: 550 },
    { etaMs: 150, random: 1, expected: 100 },
  ])('with an estimate: eta $etaMs ms → $expected ms', ({ etaMs, random, expected }) => {
    expect(nextDelay(1, 60_000, policy, () => random, etaMs)).toBe(expected);
  });

  it.each([
    { etaMs: 200, expected: 100 },
    { etaMs: 0, expected: 100 },
    { etaMs: -1_000, expected: 500 },
    { etaMs: -60_000, expected: 2_000 },
  ])('nextDelay: near or past the estimate (eta $etaMs ms) → $expected ms, whatever the attempt', ({ etaMs, expected }) => {
    expect(nextDelay(9, 60_000, policy, () => 0.5, etaMs)).toBe(expected);
  });

  it('nextDelay: shortened so the last poll lands before the deadline', () => {
    expect(nextDelay(10, 700, policy, () => 1)).toBe(650);
  });

  it('nextDelay: 0 when no time is left for another poll', () => {
    expect(nextDelay(1, 50, policy, () => 1)).toBe(0);
    expect(nextDelay(1, -5, policy, () => 1)).toBe(0);
  });

  it('nextDelay: defaults keep the first delay at the floor', () => {
    expect(nextDelay(1, 60_000, DELAY_DEFAULTS, () => 1)).toBe(DELAY_DEFAULTS.minDelayMs);
  });
});
