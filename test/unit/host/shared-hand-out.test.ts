import { describe, expect, it } from 'vitest';
import { answerBudgetMs } from '../../../src/host/shared-hand-out.js';

// How long the agent may keep nova's retry: the sooner of the request's timeout and the agent's own, less 5 s (half of
// it at most). nova's client waits its timeout + 30 s.
const cases = [
  { request: undefined, agent: 600_000, expected: 595_000, why: 'no timeout sent: the agent\'s --timeout' },
  { request: 20_000, agent: 600_000, expected: 15_000, why: 'the request\'s, sooner' },
  { request: 900_000, agent: 600_000, expected: 595_000, why: 'the agent\'s, sooner' },
  { request: 6_000, agent: 600_000, expected: 3_000, why: 'a short timeout: half of it, never 1 s' },
  { request: 1_000, agent: 600_000, expected: 500, why: 'shorter than the margin: still half' },
];

describe('answerBudgetMs', () => {
  it.each(cases)('$why: ($request, $agent) → $expected', ({ request, agent, expected }) => {
    expect(answerBudgetMs(request, agent)).toBe(expected);
  });
});
