import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { evictJsonSchema } from '../../../src/contract/evict-document.js';
import { usageJsonSchema } from '../../../src/contract/usage-document.js';
import { readStoreCopies, COPY_SNAPSHOT } from '../../../src/rbd/store-copies.js';
import { cloudEnv, devcloud, FERRY } from '../../helpers/devcloud.js';
import { FAULT_MS, faults } from '../../helpers/devcloud-faults.js';

// A 0-byte RBD image in a store's pool: what Glance leaves of a copy it created not knowing the size (it grows the
// image as it writes) when glance-api is killed before its first write; the soak of 2026-11-29 found one in site-b's
// images pool ("half-created", 0 B in `rbd ls -l`). librbd 16.2.15 aborts any process that asks diff_iterate of a
// 0-byte image with fast-diff (DiffIterate.cc:341, SIGABRT): every pool listing of the store died with it, and
// `ferry evict`, `status --usage` and sync's budgets of that store exited 35 until someone removed it by hand. Now the
// listing reads it as an image of 0 bytes (none allocated) and every other image as before.

const STORE = 'site-b';
const NAME = `it-zero-byte-${process.pid}`;
/** One ferry CLI run (status --usage, evict --dry-run) against the store: Glance's listing and one pool listing, 120 s. */
const FERRY_CLI_MS = 120_000;

afterAll(() => faults.rbdRemove(STORE, NAME), FAULT_MS);

function ferry(command: readonly string[]): { code: number; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [`${process.cwd()}/bin/ferry`, ...command, '--store', STORE, '--ceph-conf', devcloud().ceph[STORE].conf,
    '--rbd-user', FERRY.evictRbdUser, '--json'], { env: { ...process.env, ...cloudEnv(FERRY.evictCloud) }, encoding: 'utf8', timeout: FERRY_CLI_MS });
  return { code: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}

describe('a 0-byte RBD image in a store\'s pool (Glance killed before its first write into a copy)', () => {
  it('the pool listing names it with 0 bytes and completes; ferry evict --dry-run and status --usage read the store', async () => {
    faults.rbdZeroByte(STORE, NAME);

    const listing = await readStoreCopies({ confFile: devcloud().ceph[STORE].conf, user: FERRY.evictRbdUser, pool: 'images', snapshot: COPY_SNAPSHOT });
    expect(listing.images.find((entry) => entry.name === NAME)).toMatchObject({ kind: 'image', sizeBytes: 0, usedBytes: 0, protected: undefined });

    const usage = ferry(['status', '--usage', '--idle', '0']);
    expect(usage.code, usage.stderr).toBe(0);
    expect(usageJsonSchema.parse(JSON.parse(usage.stdout)).stores[0]).toMatchObject({ store: STORE, pool: 'images', error: null });

    const evict = ferry(['evict', '--idle', '0', '--dry-run']);
    expect(evict.code, evict.stderr).toBe(0);
    expect(evictJsonSchema.parse(JSON.parse(evict.stdout))).toMatchObject({ store: STORE, pool: 'images' });
  }, FAULT_MS + 3 * FERRY_CLI_MS);
});
