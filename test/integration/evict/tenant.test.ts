import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { syncJsonSchema } from '../../../src/cli/render/sync.js';
import { cloudEnv, devcloud, FERRY } from '../../helpers/devcloud.js';
import { imagesDeletedAfterAll, uploadImage } from '../../helpers/glance-admin.js';
import { SITE_C } from '../../helpers/site-c-copies.js';

// A tenant (project demo: it can create images and make them community) must not steer sync (Glance 25, Ceph 16,
// store site-c). The run is a dry run as ferry-evict (project admin, no admin role): nothing is copied or removed, the
// plan is what is asserted.

const MIB = 2 ** 20;
const created = imagesDeletedAfterAll();
const work = mkdtempSync(join(tmpdir(), 'ferry-it-tenant-'));

function ferry(args: readonly string[]): { code: number; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [`${process.cwd()}/bin/ferry`, ...args, '--json'],
    { env: { ...process.env, ...cloudEnv(FERRY.evictCloud) }, encoding: 'utf8', timeout: 120_000 });
  return { code: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}

async function image(name: string, as: 'admin' | 'demo', visibility: 'public' | 'community'): Promise<string> {
  const id = await uploadImage({ name, store: 'central', sizeBytes: MIB, as, visibility });
  created.push(id);
  return id;
}

describe('a tenant cannot steer sync (site-c)', () => {
  it('sync with a budget: a second project\'s community image named like the golden one is neither wanted nor copied', async () => {
    const name = `it-tenant-golden-${process.pid}`;
    const golden = await image(name, 'admin', 'public');
    const lookalike = await image(name, 'demo', 'community');
    const policy = join(work, 'edge.yaml');
    writeFileSync(policy, `version: 1\nplacements:\n  - {name: golden, images: {names: [${name}]}, stores: [${SITE_C.store}]}\n`
      + `stores:\n  ${SITE_C.store}: {budget: 10T, ceph_conf: ${devcloud().ceph['site-b'].conf}, rbd_user: ${FERRY.evictRbdUser}, pool: ${SITE_C.pool}}\n`);
    const run = ferry(['sync', '--policy', policy, '--dry-run']);
    expect(run.code, run.stderr).toBe(0);
    const json = syncJsonSchema.parse(JSON.parse(run.stdout));
    expect(json.placements).toEqual([{ name: 'golden', stores: [SITE_C.store], images: 1, unresolved: 0, drift: 1 }]);
    const planned = (json.result?.items ?? []).map((entry) => entry.image);
    expect(planned).toContain(golden);
    expect(planned).not.toContain(lookalike);
  });
});
