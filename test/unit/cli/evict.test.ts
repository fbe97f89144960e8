import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeMetricsFile } from '../../../src/cli/output/write-metrics-file.js';
import { evictJsonSchema } from '../../../src/contract/evict-document.js';
import { runWith } from '../prewarm/cli-harness.js';
import { createWorld } from '../evict/evict-world.js';
import { usePoolListingStandIn } from '../evict/pool-listing-stand-in.js';
import { MIB } from '../evict/copy-facts-fixture.js';

/** The scripted cloud's wall clock (test/helpers/fake-clock.ts): ages count from it. */
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);

// `ferry evict` in-process: its flags checked before any request, and a dry run's text, JSON and rows against a small
// cloud (Glance scripted, the pool's listing printed by a stand-in for the python program: FERRY_RBD_PYTHON).

const world = () => createWorld([
  { id: 'a-idle', stores: ['site-a', 'site-b'], bytes: 100 * MIB },
  { id: 'c-busy', stores: ['site-a', 'site-b'], bytes: 300 * MIB, clones: [{ trash: true, created: NOW - 60_000 }] },
], NOW);

const dir = usePoolListingStandIn(world, 'ferry-evict-cli-');

const base = ['evict', '--store', 'site-b', '--ceph-conf', '/etc/ceph/site-b.conf', '--idle', '1h'];

describe('ferry evict: flags', () => {
  it.each([
    { argv: ['evict', '--ceph-conf', '/c'], code: 2, message: '--store STORE is required' },
    { argv: ['evict', '--store', 'site-b'], code: 2, message: '--ceph-conf FILE is required: the ceph.conf of store site-b\'s cluster' },
    { argv: [...base, '--budget', '5 gigs'], code: 2, message: '--budget must be bytes or a percentage' },
    { argv: [...base, '--budget', '500G', '--budget-of', 'cluster'], code: 2, message: '--budget-of goes with a percentage --budget' },
    { argv: [...base, '--budget', '80%', '--budget-of', 'rack'], code: 2, message: '--budget-of must be pool or cluster, got \'rack\'' },
    { argv: [...base, '--idle', 'soon'], code: 2, message: '--idle must be a duration' },
    { argv: [...base, '--policy', '/nonexistent/policy.yaml'], code: 3, message: 'cannot read the policy file /nonexistent/policy.yaml' },
    { argv: [...base, '--metrics-file', '/tmp/evict.txt'], code: 2, message: '--metrics-file must end in .prom (node_exporter\'s textfile collector reads only *.prom), got \'/tmp/evict.txt\'' },
    { argv: [...base, '--metrics-file', '/tmp/evict.prom', '--dry-run'], code: 2, message: '--metrics-file records what a run did, and --dry-run does nothing' },
  ])('$argv → exit $code: $message', async ({ argv, code, message }) => {
    const w = world();
    const run = await runWith(argv, w.glance);
    expect(run.code).toBe(code);
    expect(run.stderr).toContain(message);
    expect(w.calls.filter((call) => call.startsWith('DELETE'))).toEqual([]);
  });
});

describe('ferry evict --dry-run', () => {
  it('--json: one document that parses with the documented schema; nothing fenced or removed', async () => {
    const w = world();
    const run = await runWith([...base, '--dry-run', '--json'], w.glance);
    expect(run.code).toBe(0);
    const json = evictJsonSchema.parse(JSON.parse(run.stdout));
    expect(json.copies.map((copy) => [copy.image, copy.action, copy.reason, copy.outcome])).toEqual([['a-idle', 'evict', 'idle', null],
      ['c-busy', 'keep', 'in-use', null]]);
    expect(json.budget).toMatchObject({ verdict: 'none', used_bytes: 400 * MIB, after_bytes: 300 * MIB, kept: { 'in-use': { copies: 1, bytes: 300 * MIB } } });
    expect(w.calls.filter((call) => call.startsWith('DELETE'))).toEqual([]);
  });

  it('a budget it cannot meet: exit 51, and the text says by how much and what kept the rest', async () => {
    const run = await runWith([...base, '--dry-run', '--budget', '100M'], world().glance);
    expect(run.code).toBe(51);
    expect(run.stdout).toMatch(/IMAGE +SIZE +LAST USED +CLONES +DECISION +WHY/);
    expect(run.stdout).toContain('pool 400 MiB → 300 MiB after the plan: still 200 MiB over its budget 100 MiB (100M)');
    expect(run.stdout).toContain('kept: 1 in use (clones) (300 MiB)');
  });

  it('-f csv -c image -c action -c reason: the plan as rows', async () => {
    const run = await runWith([...base, '--dry-run', '-f', 'csv', '-c', 'image', '-c', 'action', '-c', 'reason'], world().glance);
    expect(run.stdout).toBe('Image,Action,Reason\na-idle,evict,idle\nc-busy,keep,in-use\n');
  });
});

describe('writeMetricsFile', () => {
  it('writes the file by a rename (no temporary file left), over an older one', () => {
    const file = join(dir, 'ferry-evict-site-b.prom');
    writeMetricsFile(file, 'old 1\n');
    writeMetricsFile(file, 'ferry_evict_store_bytes{store="site-b"} 1\n');
    expect(readFileSync(file, 'utf8')).toBe('ferry_evict_store_bytes{store="site-b"} 1\n');
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('a directory that cannot be written: FERRY_INVALID_OPTION naming the file', () => {
    expect(() => writeMetricsFile('/nonexistent/dir/x.prom', '')).toThrow(/cannot write the metrics file \/nonexistent\/dir\/x.prom/);
  });
});
