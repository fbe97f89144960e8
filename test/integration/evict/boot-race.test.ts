import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evictJsonSchema, type EvictJson } from '../../../src/cli/reports/evict-json.js';
import { ceph, cloudEnv, devcloud, FERRY } from '../../helpers/devcloud.js';
import { imagesDeletedAfterAll, tokenFor, uploadImage } from '../../helpers/glance-admin.js';
import { startAgent, type AgentProcess } from '../agent/agent-process.js';
import { DEBIAN_NOVA, novaClone, novaConf, patchedNova, type CloneResult } from '../agent/nova-tree.js';

// The boot race (issue 28): nova 26's real Rbd.clone() with ferry's patch and a real agent, booting one image again and
// again at site-c (pool images-c of site-b's cluster) while `ferry evict --idle 0` removes that image's copy there
// again and again. Each boot's clone is removed after it (its instance deleted), so the copy is idle and a candidate
// at every run. The boots must all succeed, and the evictions must really have happened during the loop.
// It takes minutes (each boot is a nova process), so it runs only when FERRY_EVICT_RACE_BOOTS sets the number of boots:
// FERRY_EVICT_RACE_BOOTS=100 node scripts/run-integration.mjs test/integration/evict/boot-race.test.ts (docs/evict.md).

const STORE = 'site-c';
const POOL = 'images-c';
const BOOTS = Number(process.env.FERRY_EVICT_RACE_BOOTS ?? 0);
const BOOTERS = 2;
const created = imagesDeletedAfterAll();
let agent: AgentProcess;
let nova: ReturnType<typeof patchedNova>;
let work: string;

function evict(): Promise<EvictJson | undefined> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`${process.cwd()}/bin/ferry`, 'evict', '--store', STORE, '--ceph-conf', devcloud().ceph['site-b'].conf,
      '--rbd-user', FERRY.evictRbdUser, '--idle', '0', '--grace', '1s', '--json'],
    { env: { ...process.env, ...cloudEnv(FERRY.evictCloud) }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`ferry evict exited ${code}: ${stdout}\n${stderr}`));
      else resolve(evictJsonSchema.parse(JSON.parse(stdout)));
    });
  });
}

beforeAll(async () => {
  if (BOOTS === 0) return;
  work = mkdtempSync(join(tmpdir(), 'ferry-evict-race-'));
  nova = patchedNova(DEBIAN_NOVA);
  agent = await startAgent(['--allow-store', STORE]);
}, 120_000);

afterAll(async () => {
  if (BOOTS === 0) return;
  await agent.stop();
  nova.cleanup();
  rmSync(work, { recursive: true, force: true });
}, 120_000);

describe.skipIf(BOOTS === 0)('the boot race: nova\'s real Rbd.clone() through the agent while ferry evict removes the copy', () => {
  it(`${BOOTS} boots of one image at site-c while ferry evict --idle 0 runs against its copy again and again: 0 failed boots, evictions counted`, async () => {
    const id = await uploadImage({ name: 'it-evict-race', store: 'central', sizeBytes: 8 * 2 ** 20 });
    created.push(id);
    const token = await tokenFor('admin');
    const conf = novaConf(work, STORE, { socket: agent.socket });
    const results: CloneResult[] = [];
    const runs = { total: 0, evicted: 0, keptInUse: 0, refused: 0 };
    let booting = true;

    const evictor = (async () => {
      while (booting) {
        const report = await evict();
        runs.total += 1;
        const row = report?.copies.find((copy) => copy.image === id);
        if (row?.outcome === 'evicted') runs.evicted += 1;
        if (row?.outcome === 'kept' && row.outcome_reason === 'in-use') runs.keptInUse += 1;
        if (row?.outcome === 'failed') runs.refused += 1;
      }
    })();
    let next = 0;
    const booter = async (): Promise<void> => {
      while (next < BOOTS) {
        next += 1;
        const name = `it-evict-race-${next}-${id.slice(0, 8)}`;
        // A loaded machine (load 20 on 2 cores, seen) takes minutes for nova's imports alone.
        const result = await novaClone({ root: nova.root, conf, image: id, name, token, socket: agent.socket, timeoutSeconds: 900 });
        results.push(result);
        // The instance is deleted: its clone goes, and the copy is idle again for the next eviction.
        if (result.ok) expect(ceph('site-b', 'rbd', ['rm', '--no-progress', `vms/${name}`], 'admin').code).toBe(0);
      }
    };
    try {
      await Promise.all(Array.from({ length: BOOTERS }, booter));
    } finally {
      booting = false;
      await evictor;
    }
    const failed = results.filter((result) => !result.ok);
    console.log(`boot race: ${results.length} boots, ${failed.length} failed; ${runs.total} evict runs, ${runs.evicted} evictions of the copy, `
      + `${runs.keptInUse} kept at the last look (a clone meanwhile), ${runs.refused} failed removals; `
      + `boots with warnings: ${results.filter((r) => r.warnings.length > 0).length}`);
    expect(failed.map((result) => `${result.error}: ${result.message}`)).toEqual([]);
    expect(results).toHaveLength(BOOTS);
    expect(runs.evicted, 'the copy was evicted during the loop').toBeGreaterThan(0);
    expect(ceph('site-b', 'rbd', ['ls', 'vms'], 'admin').stdout).not.toContain(`it-evict-race-`);
    expect(POOL).toBe(devcloud().glance.rbdStores[STORE]?.pool);
  }, 3_600_000);
});
