import { describe, expect, it } from 'vitest';
import { usageJsonSchema } from '../../../src/contract/usage-document.js';
import { runWith } from '../prewarm/cli-harness.js';
import { createWorld } from '../evict/evict-world.js';
import { usePoolListingStandIn } from '../evict/pool-listing-stand-in.js';
import { MIB } from '../evict/copy-facts-fixture.js';

/** The scripted cloud's wall clock (test/helpers/fake-clock.ts): ages count from it. */
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);

// `ferry status --usage` in-process: its flags checked before any request, and its text, JSON and rows on a small
// cloud (Glance scripted, the pool's listing printed by a stand-in for rbd_store_copies.py: FERRY_RBD_PYTHON).

const world = () => createWorld([
  { id: 'a-idle', stores: ['site-a', 'site-b'], bytes: 100 * MIB },
  { id: 'b-last', stores: ['site-b'], bytes: 200 * MIB },
  { id: 'c-busy', stores: ['site-a', 'site-b'], bytes: 300 * MIB, clones: [{ trash: true, created: NOW - 60_000 }, { trash: false, created: NOW - 7_200_000 }] },
], NOW);

usePoolListingStandIn(world, 'ferry-usage-cli-');

const base = ['status', '--usage', '--store', 'site-b', '--ceph-conf', '/etc/ceph/site-b.conf'];
const policy = (stores: string) => `version: 1\nplacements:\n  - {name: golden, images: {names: [img-a-idle]}, stores: [site-b]}\nstores:\n${stores}`;
const files = (text: string) => (path: string): string => {
  if (path === 'edge.yaml') return text;
  throw new Error(`ENOENT: no such file, open '${path}'`);
};

describe('ferry status --usage: flags', () => {
  it.each([
    { argv: ['status', '--usage'], code: 2, message: '--usage needs the stores to look at: --store STORE, or --policy FILE' },
    { argv: ['status', '--usage', '--store', 'site-b'], code: 2, message: 'store site-b has no cluster to read: no --ceph-conf was given' },
    { argv: [...base, '--store', 'site-a', '--budget', '1G'], code: 2, message: '--budget is one store\'s, and 2 stores are asked for (site-b, site-a)' },
    { argv: [...base, '--store', 'site-a', '--pool', 'images'], code: 2, message: '--pool is one store\'s' },
    { argv: [...base, '--budget', 'lots'], code: 2, message: '--budget must be bytes or a percentage' },
    { argv: [...base, '--budget', '1G', '--budget-of', 'cluster'], code: 2, message: '--budget-of goes with a percentage --budget' },
    { argv: [...base, '--idle', 'soon'], code: 2, message: '--idle must be a duration' },
    { argv: [...base, '--matrix'], code: 2, message: '--usage and --matrix are two different tables' },
    { argv: [...base, 'cirros'], code: 2, message: '--usage takes no IMAGE, got cirros' },
    { argv: [...base, '--tag', 'golden'], code: 2, message: '--tag goes with --matrix, not --usage' },
    { argv: ['status', 'cirros', '--budget', '1G'], code: 2, message: '--budget goes with --usage' },
    { argv: ['status', '--usage', '--policy', 'missing.yaml'], code: 3, message: 'cannot read the policy file missing.yaml' },
    { argv: ['status', '--usage', '--store', 'site-z', '--ceph-conf', '/c'], code: 23, message: 'Glance has no store \'site-z\'' },
  ])('$argv → exit $code: $message', async ({ argv, code, message }) => {
    const w = world();
    const run = await runWith(argv, w.glance, { readFile: files('') });
    expect(run.stderr).toContain(message);
    expect(run.code).toBe(code);
    expect(w.calls.filter((call) => call.startsWith('rbd') || call.startsWith('DELETE'))).toEqual([]);
  });

  it('with a policy: a store without ceph_conf and no --ceph-conf is named', async () => {
    const run = await runWith(['status', '--usage', '--policy', 'edge.yaml', '--store', 'site-a'], world().glance,
      { readFile: files(policy('  site-b: {budget: 500M, ceph_conf: /etc/ceph/site-b.conf}\n')) });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('store site-a has no cluster to read: the policy edge.yaml gives it no ceph_conf, and no --ceph-conf was given');
  });
});

describe('ferry status --usage', () => {
  it('--json: the documented schema; each copy\'s bytes, clones and last use; the store against its budget', async () => {
    const run = await runWith([...base, '--budget', '500M', '--json'], world().glance);
    expect(run.code).toBe(0);
    const json = usageJsonSchema.parse(JSON.parse(run.stdout));
    expect(json.stores).toEqual([{ store: 'site-b', pool: 'images', used_bytes: 600 * MIB, copy_bytes: 600 * MIB, other_bytes: 0, trash_bytes: 0,
      copies: 3, budget: '500M', budget_bytes: 500 * MIB, verdict: 'over', over_bytes: 100 * MIB, evictable_bytes: 100 * MIB, idle_seconds: 86_400,
      kept: { 'in-use': { copies: 1, bytes: 300 * MIB }, 'last-copy': { copies: 1, bytes: 200 * MIB } }, error: null }]);
    expect(json.copies.map((copy) => [copy.image, copy.store, copy.bytes, copy.clones, copy.trashed_clones, copy.last_used, copy.last_use, copy.locations]))
      .toEqual([
        ['a-idle', 'site-b', 100 * MIB, 0, 0, new Date(NOW - 3 * 86_400_000).toISOString(), 'copied then', 2],
        ['b-last', 'site-b', 200 * MIB, 0, 0, new Date(NOW - 3 * 86_400_000).toISOString(), 'copied then', 1],
        ['c-busy', 'site-b', 300 * MIB, 2, 1, new Date(NOW - 60_000).toISOString(), 'its newest clone', 2],
      ]);
  });

  it('text: the stores against their budgets, what could go and what is kept, then every copy', async () => {
    const run = await runWith([...base, '--budget', '450M'], world().glance);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/STORE +POOL +USED +BUDGET +STATE\n +site-b +images +600 MiB +450 MiB \(450M\) 133% +over by 150 MiB: cannot be met/);
    expect(run.stdout).toContain('site-b: 100 MiB could go now (copies idle ≥ 24 h); kept: 1 in use (clones) (300 MiB), 1 the last copy (200 MiB)');
    expect(run.stdout).toMatch(/IMAGE +STORE +SIZE +CLONES +LAST USED\n +img-a-idle a-idle +site-b +100 MiB +0 +3 d ago/);
    expect(run.stdout).toMatch(/img-c-busy c-busy +site-b +300 MiB +2 \(1 in trash\) +60 s ago/);
  });

  it('no budget: its use and "no budget"', async () => {
    const run = await runWith(base, world().glance);
    expect(run.stdout).toMatch(/site-b +images +600 MiB +no budget +no budget/);
  });

  it('-f csv -c image -c store -c bytes -c clones: one row per copy', async () => {
    const run = await runWith([...base, '-f', 'csv', '-c', 'image', '-c', 'store', '-c', 'bytes', '-c', 'clones'], world().glance);
    expect(run.stdout).toBe(`Image,Store,Bytes,Clones\na-idle,site-b,${100 * MIB},0\nb-last,site-b,${200 * MIB},0\nc-busy,site-b,${300 * MIB},2\n`);
  });

  it('--policy: every store of its stores:, with its budget; a placement pins; a store that cannot be judged is reported, exit 50', async () => {
    const run = await runWith(['status', '--usage', '--policy', 'edge.yaml', '--json'], world().glance, { readFile: files(policy(
      '  site-b: {budget: 1G, idle: 2d, ceph_conf: /etc/ceph/site-b.conf}\n  site-a: {budget: 80%, ceph_conf: /etc/ceph/site-a.conf}\n')) });
    expect(run.code).toBe(50);
    const json = usageJsonSchema.parse(JSON.parse(run.stdout));
    expect(json.stores.map((store) => [store.store, store.verdict, store.budget_bytes, store.idle_seconds, store.kept, store.error?.code ?? null])).toEqual([
      ['site-b', 'under', 1024 * MIB, 172_800, { 'in-use': { copies: 1, bytes: 300 * MIB }, 'last-copy': { copies: 1, bytes: 200 * MIB },
        pinned: { copies: 1, bytes: 100 * MIB } }, null],
      ['site-a', null, null, 0, {}, 'FERRY_CAPACITY_UNKNOWN'],
    ]);
    expect(json.copies.find((copy) => copy.image === 'a-idle')?.pinned).toBe('wanted here by the sync policy (golden)');
  });
});
