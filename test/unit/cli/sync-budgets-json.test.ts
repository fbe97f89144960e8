import { describe, expect, it } from 'vitest';
import { budgetToJson } from '../../../src/cli/render/sync.js';
import { evictStore } from '../../../src/evict/evict-store.js';
import { fiveCopyWorld } from '../evict/evict-world.js';
import { NOW } from '../evict/copy-facts-fixture.js';

// sync's JSON `budgets[].evictions`: the copies a store's eviction acted on. A copy the plan kept (under budget) and a
// later round evicted because an earlier candidate was kept at its last look is one of them.

describe('sync --json budgets[].evictions', () => {
  it('lists the copies evicted in a later round (planned keep, outcome evicted) as well as the planned ones', async () => {
    const world = fiveCopyWorld();
    world.duringGrace(() => world.copies.get('b-idle')?.clones.push({ trash: false, created: NOW }));
    const report = await evictStore(world.ctx, { store: 'site-b', cluster: { confFile: '/etc/ceph/site-b.conf', user: 'ferry-evict' },
      run: 'run-1', by: 'test', ceph: { runner: world.runner }, graceMs: 30_000, budget: '900M' });
    const json = budgetToJson({ store: 'site-b', report });
    expect(json.evictions.map((copy) => [copy.image, copy.action, copy.outcome])).toEqual([['b-idle', 'evict', 'kept'], ['a-idle', 'keep', 'evicted']]);
    expect(json.counts?.evicted).toBe(1);
  });
});
