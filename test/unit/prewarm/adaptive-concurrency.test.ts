import { describe, expect, it } from 'vitest';
import { decideConcurrency, startAdaptiveConcurrency, type AdaptiveConcurrency } from '../../../src/prewarm/adaptive-concurrency.js';
import { createConcurrencyGovernor } from '../../../src/prewarm/concurrency-governor.js';
import { createSlotScheduler } from '../../../src/prewarm/slot-scheduler.js';
import type { StoreResult } from '../../../src/prewarm/store-result.js';

const MiB = 1024 * 1024;
/** A window of `mibPerS` MiB/s over 10 s. */
const window = (mibPerS: number, failures = 0) => ({ bytes: mibPerS * 10 * MiB, elapsedMs: 10_000, failures });
const state = (over: Partial<AdaptiveConcurrency>): AdaptiveConcurrency => ({ ...startAdaptiveConcurrency(4), warm: true, ...over });

describe('decideConcurrency', () => {
  it.each([
    { name: 'the warm-up window (the run\'s start): not judged', s: startAdaptiveConcurrency(4), w: window(20), limit: 4, step: 'hold' },
    { name: 'first judged window: one step up', s: state({}), w: window(20), limit: 5, step: 'up' },
    { name: 'throughput grew ≥ 10 %: one step up', s: state({ limit: 5, previous: 20 * MiB, best: { limit: 4, throughput: 20 * MiB } }), w: window(22.5), limit: 6, step: 'up' },
    { name: 'grew < 10 %: hold (a plateau: Glance runs what it can)', s: state({ limit: 6, previous: 22 * MiB, best: { limit: 6, throughput: 22 * MiB } }), w: window(23.5), limit: 6, step: 'hold' },
    { name: 'fell a little: hold', s: state({ limit: 6, previous: 22 * MiB, best: { limit: 6, throughput: 22 * MiB } }), w: window(20), limit: 6, step: 'hold' },
    { name: 'fell > 15 % below the best at another limit: back to the best', s: state({ limit: 7, previous: 22 * MiB, best: { limit: 6, throughput: 22 * MiB } }), w: window(17), limit: 6, step: 'back-to-best' },
    { name: 'a copy failed in Glance: one step down', s: state({ limit: 6, previous: 22 * MiB, best: { limit: 6, throughput: 22 * MiB } }), w: window(25, 1), limit: 5, step: 'down' },
    { name: 'failed at the floor: hold', s: state({ limit: 1, previous: 5 * MiB }), w: window(5, 2), limit: 1, step: 'hold' },
    { name: 'growing at the ceiling: hold', s: state({ limit: 12, previous: 20 * MiB, best: { limit: 12, throughput: 20 * MiB } }), w: window(30), limit: 12, step: 'hold' },
  ])('decideConcurrency: $name', ({ s, w, limit, step }) => {
    const decision = decideConcurrency(s, w);
    expect(decision.state.limit).toBe(limit);
    expect(decision.step).toBe(step);
    expect(decision.why).toMatch(/MiB\/s at \d+/);
    expect(decision.state.warm).toBe(true);
  });

  it('decideConcurrency: a limit that dropped is not tried again (no swinging up and back)', () => {
    const dropped = decideConcurrency(state({ limit: 7, reached: 7, previous: 22 * MiB, best: { limit: 6, throughput: 22 * MiB } }), window(17));
    expect(dropped.state).toMatchObject({ limit: 6, ceiling: 6, reached: 7 });
    const again = decideConcurrency(dropped.state, window(23));
    expect(again).toMatchObject({ step: 'hold', state: { limit: 6 } });
  });

  it('decideConcurrency: a run that keeps growing climbs one step per window to the ceiling, and reports what it reached', () => {
    let s = startAdaptiveConcurrency(4, 8);
    const steps: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      s = decideConcurrency(s, window(10 + i * 5)).state;
      steps.push(s.limit);
    }
    expect(steps).toEqual([4, 5, 6, 7, 8, 8, 8]);
    expect(s.reached).toBe(8);
  });
});

describe('createConcurrencyGovernor', () => {
  const copied = (stores: string[]): ReadonlyMap<string, StoreResult> => new Map(stores.map((store) => [store, { outcome: 'copied', reason: 'copied' }]));
  const failed: ReadonlyMap<string, StoreResult> = new Map([['site-b', { outcome: 'failed', failure: 'failed', reason: 'Glance failed it' }]]);

  it('createConcurrencyGovernor: a window closes after `limit` finished jobs; bytes count once per copied store; a Glance failure steps down', () => {
    let now = 0;
    const clock = { now: () => now } as unknown as Parameters<typeof createConcurrencyGovernor>[0];
    const applied: number[] = [];
    const governor = createConcurrencyGovernor(clock, 2, (limit) => applied.push(limit));
    governor.jobEnded(10 * MiB, copied(['site-a']));
    now = 1000;
    governor.jobEnded(10 * MiB, copied(['site-a']));
    expect(applied).toEqual([2]);
    expect(governor.changes[0]).toMatchObject({ atMs: 1000, limit: 2, step: 'hold', why: expect.stringContaining('warm-up') as unknown });
    governor.jobEnded(10 * MiB, copied(['site-a', 'site-b']));
    expect(applied).toEqual([2]);
    now = 3000;
    governor.jobEnded(10 * MiB, copied(['site-a']));
    expect(applied).toEqual([2, 3]);
    expect(governor.changes[1]).toMatchObject({ atMs: 3000, limit: 3, step: 'up', why: expect.stringContaining('15.0 MiB/s at 2') as unknown });
    for (let i = 0; i < 3; i += 1) governor.jobEnded(10 * MiB, i === 0 ? failed : copied(['site-a']));
    expect(applied).toEqual([2, 3, 2]);
    expect(governor.changes[2]).toMatchObject({ step: 'down', limit: 2 });
    expect(governor.reached).toBe(3);
  });
});

describe('createSlotScheduler.setGlobal', () => {
  it('setGlobal: a higher limit starts queued jobs at once; a lower one lets running jobs end first', async () => {
    const scheduler = createSlotScheduler({ global: 1, perStore: 10 });
    const gates: (() => void)[] = [];
    const started: number[] = [];
    const jobs = [0, 1, 2].map((n) => scheduler.run(['site-a'], () => new Promise<void>((resolve) => { started.push(n); gates.push(resolve); })));
    await Promise.resolve();
    expect(started).toEqual([0]);
    scheduler.setGlobal(3);
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    expect(scheduler.running).toBe(3);
    scheduler.setGlobal(1);
    expect(scheduler.running).toBe(3);
    for (const release of gates) release();
    await Promise.all(jobs);
    expect(scheduler.running).toBe(0);
  });
});
