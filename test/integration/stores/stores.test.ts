import { describe, expect, it } from 'vitest';
import { storesJsonSchema } from '../../../src/contract/stores-document.js';
import { cloudEnv, devcloud, markReached } from '../../helpers/devcloud.js';
import { runFerry } from '../../helpers/run-ferry.js';

describe('ferry stores against the real Glance', () => {
  it('ferry stores --store site-b --json: every store of enabled_backends, types from /detail, site-b local', async () => {
    const run = await runFerry(['stores', '--store', 'site-b', '--json'], { env: cloudEnv() });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    markReached('glance');
    const json = storesJsonSchema.parse(JSON.parse(run.stdout));
    expect(json.stores.map((s) => s.id).sort()).toEqual([...devcloud().glance.stores].sort());
    expect(json).toMatchObject({ local: 'site-b', source: 'GET /v2/info/stores/detail' });
    expect(json.stores.find((s) => s.id === 'site-b')).toMatchObject({ type: 'rbd', pool: 'images', local: true, copy_target: true });
  });

  it('ferry stores as a member: the plain list (403 on /detail), no types', async () => {
    const run = await runFerry(['stores', '--json'], { env: cloudEnv('devcloud-member') });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const json = storesJsonSchema.parse(JSON.parse(run.stdout));
    expect(json).toMatchObject({ local: null, source: 'GET /v2/info/stores' });
    expect(json.stores.every((s) => s.type === null)).toBe(true);
  });
});
