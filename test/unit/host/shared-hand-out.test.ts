import { describe, expect, it } from 'vitest';
import type { EnsureOutcome } from '../../../src/copy/ensure-result.js';
import { createSingleFlight } from '../../../src/copy/single-flight.js';
import { answerBudgetMs, shareHandOut } from '../../../src/host/shared-hand-out.js';
import { fakeClock } from '../../helpers/fake-clock.js';
import { IMAGE_ID } from '../../helpers/image-body.js';

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

describe('shareHandOut: retries acting for users', () => {
  const outcome = { needed: false } as unknown as EnsureOutcome;
  function retries() {
    const flights = createSingleFlight<EnsureOutcome>();
    let runs = 0;
    let finish = (): void => undefined;
    const done = new Promise<void>((resolve) => { finish = resolve; });
    const ask = (actingFor: string | undefined) => shareHandOut({ imageRef: IMAGE_ID, store: 'site-b', actingFor, requestTimeoutMs: undefined,
      agentTimeoutMs: 600_000, flights, clock: fakeClock(), signal: new AbortController().signal,
      wait: async () => { runs += 1; await done; return outcome; } });
    return { ask, finish, runs: () => runs, flights };
  }

  it('shareHandOut: retries with one user\'s token share one wait; another user\'s token gets a wait of its own', async () => {
    const { ask, finish, runs, flights } = retries();
    const answers = [ask('token-a'), ask('token-a'), ask('token-b'), ask(undefined)];
    await Promise.resolve();
    await Promise.resolve();
    expect(runs()).toBe(3);
    expect(flights.size).toBe(3);
    finish();
    expect(await Promise.all(answers)).toEqual([outcome, outcome, outcome, outcome]);
  });
});
