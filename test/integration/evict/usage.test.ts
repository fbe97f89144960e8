import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { usageJsonSchema, type UsageJson } from '../../../src/contract/usage-document.js';
import { ceph, CEPH_MS, cloudEnv, devcloud, FERRY } from '../../helpers/devcloud.js';
import { imagesDeletedAfterAll, readImage } from '../../helpers/glance-admin.js';
import { cloneOf, copyImage, SITE_C } from '../../helpers/site-c-copies.js';

// ferry status --usage against the dev cloud (Glance 25, Ceph 16), in store site-c, as ferry-evict (its application
// credential and cephx client.ferry-evict: what looks may use what removes): what it says of each copy (bytes,
// clones, locations) checked against what rbd and Glance say, and the store against a budget before and after
// ferry evict brings it under; that run's --metrics-file says the same.

const MIB = 2 ** 20;
const created = imagesDeletedAfterAll();
const clones: string[] = [];

afterAll(() => {
  for (const clone of clones) ceph('site-b', 'rbd', ['rm', '--no-progress', clone], 'admin');
}, CEPH_MS); // the one clone the test makes

/** One ferry CLI run (status --usage, evict): 120 s. */
const FERRY_CLI_MS = 120_000;
/** Glance's copies to site-c the test waits for (copyImage: up to 120 s each, 3 images). */
const COPIES_MS = 3 * 120_000;
function ferry(command: readonly string[]): { code: number; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [`${process.cwd()}/bin/ferry`, ...command, '--store', SITE_C.store, '--ceph-conf', devcloud().ceph['site-b'].conf,
    '--rbd-user', FERRY.evictRbdUser, '--json'], { env: { ...process.env, ...cloudEnv(FERRY.evictCloud) }, encoding: 'utf8', timeout: FERRY_CLI_MS });
  return { code: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}

function usage(args: readonly string[]): UsageJson {
  const run = ferry(['status', '--usage', ...args]);
  expect(run.code, run.stderr).toBe(0);
  return usageJsonSchema.parse(JSON.parse(run.stdout));
}

/** What rbd says: the copy's allocated bytes (rbd du: its snapshot's and what its head wrote since) and its clones, trash included. */
function rbdSays(id: string): { bytes: number; clones: number } {
  const du = ceph('site-b', 'rbd', ['du', '--format', 'json', `${SITE_C.pool}/${id}`], 'admin');
  expect(du.code, du.stderr).toBe(0);
  const children = ceph('site-b', 'rbd', ['children', '--all', '--format', 'json', `${SITE_C.pool}/${id}@snap`], 'admin');
  expect(children.code, children.stderr).toBe(0);
  const entries = (JSON.parse(du.stdout) as { images: { used_size: number }[] }).images;
  return { bytes: entries.reduce((sum, entry) => sum + entry.used_size, 0), clones: (JSON.parse(children.stdout) as unknown[]).length };
}

describe('ferry status --usage against the dev cloud (site-c)', () => {
  it('each copy\'s bytes, clones and locations as rbd and Glance say; over budget, then under it after ferry evict meets it', async () => {
    const only = await copyImage(created, 4 * MIB, [SITE_C.store], 'it-usage-only');
    const cloned = await copyImage(created, 4 * MIB, ['central', SITE_C.store], 'it-usage-cloned');
    const idle = await copyImage(created, 6 * MIB, ['central', SITE_C.store], 'it-usage-idle');
    cloneOf(clones, cloned, 'it-usage');

    const before = usage(['--idle', '0']);
    const site = before.stores[0]!;
    expect(site).toMatchObject({ store: SITE_C.store, pool: SITE_C.pool, budget: null, verdict: 'none', error: null });
    for (const id of [only, cloned, idle]) {
      const copy = before.copies.find((entry) => entry.image === id);
      const image = await readImage(id);
      expect(copy, `${id} listed`).toMatchObject({ store: SITE_C.store, in_pool: true, ...rbdSays(id), locations: String(image.stores).split(',').length });
    }
    expect(before.copies.find((copy) => copy.image === cloned)?.clones).toBe(1);

    // Room for all but the idle copy: over budget, and ferry evict can meet it (the other two may not go).
    const budget = site.used_bytes! - 6 * MIB + MIB;
    const over = usage(['--idle', '0', '--budget', String(budget)]).stores[0]!;
    expect(over).toMatchObject({ verdict: 'over', budget_bytes: budget, used_bytes: site.used_bytes, kept: { 'in-use': { copies: 1 }, 'last-copy': { copies: 1 } } });
    expect(over.evictable_bytes).toBeGreaterThanOrEqual(6 * MIB);

    const metricsFile = join(mkdtempSync(join(tmpdir(), 'ferry-usage-')), 'ferry-evict-site-c.prom');
    const evicted = ferry(['evict', '--idle', '0', '--grace', '1s', '--budget', String(budget), '--metrics-file', metricsFile]);
    expect(evicted.code, evicted.stderr).toBe(0);
    const metrics = readFileSync(metricsFile, 'utf8');
    expect(metrics).toContain('ferry_evict_store_over_budget{store="site-c"} 0');
    expect(metrics).toContain(`ferry_evict_store_budget_bytes{store="site-c"} ${budget}`);
    expect(metrics).toContain('ferry_evict_evictions{store="site-c",outcome="evicted",reason="idle"} 1');
    const after = usage(['--idle', '0', '--budget', String(budget)]);
    expect(after.stores[0]).toMatchObject({ verdict: 'under', over_bytes: 0 });
    expect(after.stores[0]!.used_bytes).toBeLessThanOrEqual(budget);
    expect(metrics).toContain(`ferry_evict_store_bytes{store="site-c"} ${after.stores[0]!.used_bytes}`);
    expect(after.copies.map((copy) => copy.image)).not.toContain(idle);
    expect(String((await readImage(idle)).stores)).toBe('central');
    // ferry: 3 usage runs and the evict; rbd: the clone, and rbdSays' du and children for each of 3 copies.
  }, COPIES_MS + 4 * FERRY_CLI_MS + 7 * CEPH_MS);
});
