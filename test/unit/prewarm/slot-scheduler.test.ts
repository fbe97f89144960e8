import { describe, expect, it } from 'vitest';
import { createSlotScheduler } from '../../../src/prewarm/slot-scheduler.js';

/** Jobs that end when the test says so, recording what ran at the same time. */
function harness(limits: { global: number; perStore: number }) {
  const scheduler = createSlotScheduler(limits);
  const running = new Map<string, readonly string[]>();
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  let maxRunning = 0;
  const maxPerStore = new Map<string, number>();
  const submit = (name: string, stores: readonly string[]) => scheduler.run(stores, () => new Promise<string>((resolve) => {
    started.push(name);
    running.set(name, stores);
    maxRunning = Math.max(maxRunning, running.size);
    for (const store of stores) {
      const count = [...running.values()].filter((s) => s.includes(store)).length;
      maxPerStore.set(store, Math.max(maxPerStore.get(store) ?? 0, count));
    }
    finishers.set(name, () => {
      running.delete(name);
      resolve(name);
    });
  }));
  const finish = async (name: string): Promise<void> => {
    finishers.get(name)?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { scheduler, submit, finish, settle, started, stats: () => ({ maxRunning, maxPerStore: Object.fromEntries(maxPerStore) }) };
}

describe('createSlotScheduler', () => {
  it('createSlotScheduler: never more than the global limit run at once, in submission order', async () => {
    const h = harness({ global: 2, perStore: 10 });
    const done = ['a', 'b', 'c', 'd'].map((name) => h.submit(name, ['site-a']));
    await h.settle();
    expect(h.started).toEqual(['a', 'b']);
    expect(h.scheduler.queued).toBe(2);
    await h.finish('a');
    expect(h.started).toEqual(['a', 'b', 'c']);
    for (const name of ['b', 'c', 'd']) await h.finish(name);
    expect(await Promise.all(done)).toEqual(['a', 'b', 'c', 'd']);
    expect(h.stats().maxRunning).toBe(2);
    expect(h.scheduler.running).toBe(0);
  });

  it('createSlotScheduler: a full store lets a later job for another store pass', async () => {
    const h = harness({ global: 4, perStore: 1 });
    void h.submit('a1', ['site-a']);
    void h.submit('a2', ['site-a']);
    void h.submit('b1', ['site-b']);
    await h.settle();
    expect(h.started).toEqual(['a1', 'b1']);
    await h.finish('a1');
    expect(h.started).toEqual(['a1', 'b1', 'a2']);
  });

  it('createSlotScheduler: a multi-store job takes a slot in every store at once', async () => {
    const h = harness({ global: 4, perStore: 1 });
    void h.submit('ab', ['site-a', 'site-b']);
    void h.submit('b', ['site-b']);
    void h.submit('c', ['central']);
    await h.settle();
    expect(h.started).toEqual(['ab', 'c']);
    await h.finish('ab');
    expect(h.started).toEqual(['ab', 'c', 'b']);
    expect(h.stats().maxPerStore).toEqual({ 'site-a': 1, 'site-b': 1, central: 1 });
  });

  it('createSlotScheduler: a failing job releases its slots and rejects its own promise only', async () => {
    const scheduler = createSlotScheduler({ global: 1, perStore: 1 });
    const failing = scheduler.run(['site-a'], () => Promise.reject(new Error('boom')));
    const next = scheduler.run(['site-a'], () => Promise.resolve('ok'));
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ok');
    expect(scheduler.running).toBe(0);
  });
});
