import { describe, expect, it } from 'vitest';
import { recover } from '../../../scripts/soak/recover.js';

/** An `up` that fails its first `failures` calls, then succeeds. */
function upFailing(failures: number): { up: () => Promise<void>; calls: () => number } {
  let calls = 0;
  return {
    up: () => {
      calls += 1;
      return calls <= failures ? Promise.reject(new Error(`scripts/devcloud/up exited 1 (call ${calls})`)) : Promise.resolve();
    },
    calls: () => calls,
  };
}

describe("recover: a fault's recovery, tried again", () => {
  it.each([
    ['up answers at once', 0, { ok: true, tries: 1 }],
    ['up fails once (a monitor restart met it), then answers (seed 37)', 1, { ok: true, tries: 2 }],
    ['up fails twice, then answers', 2, { ok: true, tries: 3 }],
  ])('%s', async (_name, failures, outcome) => {
    const up = upFailing(failures);
    expect(await recover(up.up, { retries: 2, pauseMs: 0 })).toEqual(outcome);
    expect(up.calls()).toBe(outcome.tries);
  });

  it('up never answers: three tries, then the failure returned (not thrown), with the last error', async () => {
    const up = upFailing(10);
    const outcome = await recover(up.up, { retries: 2, pauseMs: 0 });
    expect(outcome).toMatchObject({ ok: false, tries: 3 });
    expect(String((outcome as { error: unknown }).error)).toContain('call 3');
    expect(up.calls()).toBe(3);
  });
});
