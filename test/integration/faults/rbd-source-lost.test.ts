import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { imagesDeletedAfterAll } from '../../helpers/glance-admin.js';
import { FAULT_KILL_MS, FAULTS_UP_MS } from '../../helpers/devcloud-faults.js';
import { INTEGRATION_TEST_MS } from '../../helpers/spawn-budget.js';
import {
  EXPECT_CONVERGED_MS, expectConverged, FERRY_RUN_MS, ferryAsync, ferrySync, MiB, rbdEnsureArgs, siteBLocations, sparseBytes, uploadBytes, waitForRbd,
} from '../copy/rbd-transfer-helpers.js';

// The direct RBD transfer when its source cluster stops (issue 19, item 4): site-a's OSD is killed mid-transfer. Out of
// rbd-transfer-faults.test.ts because it stops a dev cloud service every other file uses: it runs alone
// (scripts/integration-lanes.mjs ALONE).
const created = imagesDeletedAfterAll();

describe('direct transfer: the source cluster stops mid-transfer', () => {
  it('fault: site-a\'s OSD killed mid-transfer → 37 FERRY_RBD_SOURCE_LOST, nothing registered, nothing left; after up, a re-run converges', async () => {
    const id = await uploadBytes('it-rbd-fault-source-stop', sparseBytes(256 * MiB, 192 * MiB));
    created.push(id);
    const run = ferryAsync(rbdEnsureArgs(id, ['--timeout', '120']));
    waitForRbd('exists', `${id}.ferry-partial`, 60);
    const env = { ...process.env };
    try {
      expect(spawnSync('bash', ['scripts/devcloud/fault', 'kill', 'ceph-site-a-osd'], { encoding: 'utf8', env, timeout: FAULT_KILL_MS }).status).toBe(0);
      const ended = await run.done;
      expect(ended.code, ended.stderr).toBe(37);
      expect(ended.json).toMatchObject({ error: { code: 'FERRY_RBD_SOURCE_LOST' } });
      expect(await siteBLocations(id)).toEqual([]);
    } finally {
      expect(spawnSync('bash', ['scripts/devcloud/up'], { encoding: 'utf8', env, timeout: FAULTS_UP_MS }).status).toBe(0);
    }
    const again = ferrySync(rbdEnsureArgs(id));
    expect(again.code, again.stderr).toBe(0);
    await expectConverged(id);
    // The first run's kill and wait happen while it runs; then up, the re-run and the checks, one after another.
  }, INTEGRATION_TEST_MS + FERRY_RUN_MS + FAULTS_UP_MS + FERRY_RUN_MS + EXPECT_CONVERGED_MS);
});
