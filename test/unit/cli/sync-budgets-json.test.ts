import { describe, expect, it } from 'vitest';
import { textStyle } from '../../../src/cli/output/text-style.js';
import { budgetToJson } from '../../../src/contract/sync-document.js';
import { renderSync } from '../../../src/cli/render/sync.js';
import { evictStore } from '../../../src/evict/evict-store.js';
import type { EvictOptions } from '../../../src/evict/evict-options.js';
import { prewarm } from '../../../src/prewarm/prewarm.js';
import type { SyncReport } from '../../../src/sync/sync-report.js';
import { createSyncMetrics } from '../../../src/sync/sync-metrics.js';
import { copyContext } from '../../helpers/scripted-glance.js';
import { fenceLeftOn, fiveCopyWorld, type World } from '../evict/evict-world.js';
import { NOW } from '../evict/copy-facts-fixture.js';
import { imageId, scriptedImages } from '../prewarm/scripted-images.js';

// sync's JSON `budgets[].evictions`: the copies a store's eviction acted on. A copy the plan kept (under budget) and a
// later round evicted because an earlier candidate was kept at its last look is one of them. And the fences a store's
// eviction could not lift, said as ferry evict says them: JSON, text, metric.

const evictOptions = (world: World, extra: Partial<EvictOptions> = {}): EvictOptions => ({ store: 'site-b',
  cluster: { confFile: '/etc/ceph/site-b.conf', user: 'ferry-evict' }, run: 'run-1', by: 'test', ceph: { runner: world.runner }, graceMs: 30_000, ...extra });

/** A pass that placed its one image already in place, and evicted in site-b with a fence left on b-idle. */
async function passWithFenceLeft(): Promise<SyncReport> {
  const world = fiveCopyWorld();
  fenceLeftOn(world, 'b-idle');
  const report = await evictStore(world.ctx, evictOptions(world));
  const result = await prewarm(copyContext(scriptedImages({ [imageId(1)]: { reads: [{ stores: ['central', 'site-a'] }] } })),
    { images: [imageId(1)] }, { stores: ['site-a'] });
  return { policy: 'edge.yaml', placements: [], wanted: 1, driftBefore: 0, driftAfter: 0, converged: true, result, budgets: [{ store: 'site-b', report }] };
}

describe('sync --json budgets[].evictions', () => {
  it('lists the copies evicted in a later round (planned keep, outcome evicted) as well as the planned ones', async () => {
    const world = fiveCopyWorld();
    world.duringGrace(() => world.copies.get('b-idle')?.clones.push({ trash: false, created: NOW }));
    const report = await evictStore(world.ctx, evictOptions(world, { budget: '900M' }));
    const json = budgetToJson({ store: 'site-b', report });
    expect(json.evictions.map((copy) => [copy.image, copy.action, copy.outcome])).toEqual([['b-idle', 'evict', 'kept'], ['a-idle', 'keep', 'evicted']]);
    expect(json.counts?.evicted).toBe(1);
  });
});

describe('sync with budgets: a fence its eviction could not lift', () => {
  it('the text warns of it under the budgets table, in ferry evict\'s words with the store named; the JSON lists it', async () => {
    const report = await passWithFenceLeft();
    const text = renderSync({ report, watch: undefined }, textStyle(false));
    expect(text).toContain('warning: site-b: 1 fence could not be lifted; each holds its copy until it runs out (120 s after its last look):\n'
      + '  b-idle (b-idle): its fence could not be lifted (RBD error reading metadata): it runs out on its own 120 s after its last look');
    expect(budgetToJson(report.budgets[0]!).fences_left).toEqual([{ image: 'b-idle', rbd_image: 'b-idle',
      detail: 'its fence could not be lifted (RBD error reading metadata): it runs out on its own 120 s after its last look' }]);
  });

  it('sync --watch metrics: ferry_sync_fences_left per store, the last pass\'s, as ferry_evict_fences_left', async () => {
    const metrics = createSyncMetrics({ processMetrics: false });
    const report = await passWithFenceLeft();
    metrics.recordPass({ number: 1, elapsedMs: 1000, report, error: undefined, policyError: undefined, clean: true, nextInMs: 1000 });
    expect(await metrics.registry.metrics()).toContain('ferry_sync_fences_left{store="site-b"} 1');
  });
});
