import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createEvictMetrics } from '../../../src/evict/evict-metrics.js';
import { evictStore } from '../../../src/evict/evict-store.js';
import { createSyncMetrics } from '../../../src/sync/sync-metrics.js';
import { createWorld } from './evict-world.js';
import { MIB, NOW } from './copy-facts-fixture.js';

// `ferry evict --metrics-file`: what one run leaves for node_exporter's textfile collector, named as sync's budget
// metrics with the one-shot's prefix, and documented (docs/evict.md, "See it").

const EVICT_NAMES = ['ferry_evict_build_info', 'ferry_evict_store_bytes', 'ferry_evict_store_budget_bytes', 'ferry_evict_store_over_budget',
  'ferry_evict_store_kept_bytes', 'ferry_evict_fences_left', 'ferry_evict_evictions', 'ferry_evict_last_run_timestamp_seconds'];

async function run(budget: string) {
  const world = createWorld([
    { id: 'a-idle', stores: ['site-a', 'site-b'], bytes: 100 * MIB },
    { id: 'c-busy', stores: ['site-a', 'site-b'], bytes: 300 * MIB, clones: [{ trash: false, created: NOW - 60_000 }] },
    { id: 'd-only', stores: ['site-b'], bytes: 200 * MIB },
  ], NOW);
  const report = await evictStore(world.ctx, { store: 'site-b', cluster: { confFile: '/c' }, ceph: { runner: world.runner }, budget, run: 'r', by: 't' });
  const metrics = createEvictMetrics();
  metrics.record(report, NOW + 31_000);
  return metrics.registry.metrics();
}

describe('createEvictMetrics', () => {
  it('the names: what the registry exports, as docs/evict.md lists them', async () => {
    const names = (await createEvictMetrics().registry.getMetricsAsJSON()).map((metric) => metric.name);
    expect(names).toEqual(EVICT_NAMES);
    const documented = [...readFileSync('docs/evict.md', 'utf8').matchAll(/^\| `(ferry_evict_\w+)` \|/gm)].map((match) => match[1]);
    expect(documented).toEqual(EVICT_NAMES);
  });

  it('sync and evict name a store\'s budget series alike: ferry_<exporter>_store_{bytes,budget_bytes,over_budget,kept_bytes}', async () => {
    const suffixes = (names: readonly string[], prefix: string) => names.filter((name) => name.startsWith(`${prefix}_store_`)).map((name) => name.slice(prefix.length));
    const sync = (await createSyncMetrics({ processMetrics: false }).registry.getMetricsAsJSON()).map((metric) => metric.name);
    expect(suffixes(EVICT_NAMES, 'ferry_evict')).toEqual(suffixes(sync, 'ferry_sync'));
  });

  it('a run that met its budget: the bytes after it, the budget, not over, the eviction with why, when', async () => {
    const text = await run('550M');
    expect(text).toContain(`ferry_evict_store_bytes{store="site-b"} ${500 * MIB}`);
    expect(text).toContain(`ferry_evict_store_budget_bytes{store="site-b"} ${550 * MIB}`);
    expect(text).toContain('ferry_evict_store_over_budget{store="site-b"} 0');
    expect(text).toContain('ferry_evict_evictions{store="site-b",outcome="evicted",reason="idle"} 1');
    expect(text).toContain(`ferry_evict_store_kept_bytes{store="site-b",reason="in-use"} ${300 * MIB}`);
    expect(text).toContain(`ferry_evict_last_run_timestamp_seconds{store="site-b"} ${(NOW + 31_000) / 1000}`);
    expect(text).toContain('ferry_evict_fences_left{store="site-b"} 0');
  });

  it('a run that could not meet it: over_budget 1, and what kept the rest', async () => {
    const text = await run('400M');
    expect(text).toContain('ferry_evict_store_over_budget{store="site-b"} 1');
    expect(text).toContain(`ferry_evict_store_bytes{store="site-b"} ${500 * MIB}`);
    expect(text).toContain(`ferry_evict_store_kept_bytes{store="site-b",reason="last-copy"} ${200 * MIB}`);
  });
});
