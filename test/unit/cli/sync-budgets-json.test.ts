import { describe, expect, it } from 'vitest';
import { budgetToJson } from '../../../src/cli/render/sync.js';
import { evictStore } from '../../../src/evict/evict-store.js';
import { createWorld } from '../evict/evict-world.js';
import { DAY, MIB, NOW } from '../evict/copy-facts-fixture.js';

// sync's JSON `budgets[].evictions`: the copies a store's eviction acted on. A copy the plan kept (under budget) and a
// later round evicted because an earlier candidate was kept at its last look is one of them.

describe('sync --json budgets[].evictions', () => {
  it('lists the copies evicted in a later round (planned keep, outcome evicted) as well as the planned ones', async () => {
    const world = createWorld([
      { id: 'a-idle', stores: ['site-a', 'site-b'], bytes: 100 * MIB },
      { id: 'b-idle', stores: ['site-a', 'site-b'], bytes: 200 * MIB, created: NOW - 9 * DAY, accessed: NOW - 9 * DAY },
      { id: 'c-busy', stores: ['site-a', 'site-b'], bytes: 300 * MIB, clones: [{ trash: false, created: NOW - DAY }] },
      { id: 'd-only', stores: ['site-b'], bytes: 400 * MIB },
      { id: 'e-fresh', stores: ['site-a', 'site-b'], bytes: 50 * MIB, created: NOW - 3_600_000, accessed: NOW - 3_600_000 },
    ], NOW);
    world.duringGrace(() => world.copies.get('b-idle')?.clones.push({ trash: false, created: NOW }));
    const report = await evictStore(world.ctx, { store: 'site-b', cluster: { confFile: '/etc/ceph/site-b.conf', user: 'ferry-evict' },
      run: 'run-1', by: 'test', ceph: { runner: world.runner }, graceMs: 30_000, budget: '900M' });
    const json = budgetToJson({ store: 'site-b', report });
    expect(json.evictions.map((copy) => [copy.image, copy.action, copy.outcome])).toEqual([['b-idle', 'evict', 'kept'], ['a-idle', 'keep', 'evicted']]);
    expect(json.counts?.evicted).toBe(1);
  });
});
