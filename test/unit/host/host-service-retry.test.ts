import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Cloud } from '../../../src/cloud/cloud.js';
import { resolveConfig } from '../../../src/config/resolve-config.js';
import { isFerryError } from '../../../src/errors/ferry-error.js';
import { createHostService, type HostEnsureCall } from '../../../src/host/host-service.js';
import { FSID_B, IMAGE_ID } from '../../helpers/image-body.js';
import { copyContext, scriptedGlance } from '../../helpers/scripted-glance.js';

// The agent's answer to nova's retry after a failed clone, through the host's service as the agent calls it: Glance
// scripted (the copy listed in site-b), the look at the copy by a stand-in for rbd_store_copies.py (FERRY_RBD_PYTHON)
// that answers "absent" for its first `gone` looks, then the copy, and counts its runs. The clock is fake.

let dir: string;
let previousPython: string | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ferry-retry-'));
  previousPython = process.env.FERRY_RBD_PYTHON;
});
afterEach(() => {
  if (previousPython === undefined) delete process.env.FERRY_RBD_PYTHON;
  else process.env.FERRY_RBD_PYTHON = previousPython;
  rmSync(dir, { recursive: true, force: true });
});

/** The look's stand-in: absent for the first `gone` runs, then the copy with its protected snapshot. */
function pool(gone: number): { looks: () => number } {
  const count = join(dir, 'looks');
  writeFileSync(count, '');
  const script = join(dir, 'python3');
  writeFileSync(script, `#!/bin/sh
echo x >> '${count}'
n=$(wc -l < '${count}')
if [ "$n" -le ${gone} ]; then echo '{"images":[{"name":"${IMAGE_ID}","absent":true}]}'
else echo '{"images":[{"name":"${IMAGE_ID}","protected":true,"meta":{}}]}'; fi
`);
  chmodSync(script, 0o755);
  process.env.FERRY_RBD_PYTHON = script;
  return { looks: () => readFileSync(count, 'utf8').split('\n').filter(Boolean).length };
}

function service(timeoutSeconds = '600') {
  const conf = join(dir, 'ceph.conf');
  writeFileSync(conf, '[global]\n');
  const glance = scriptedGlance({ images: [{ stores: ['site-a', 'site-b'] }] });
  const config = resolveConfig({ flags: { store: 'site-b', fsid: FSID_B, 'ceph-conf': conf, timeout: timeoutSeconds }, env: {}, cwd: '/', homeDir: '/nonexistent' });
  const ctx = copyContext(glance, undefined, FSID_B);
  const cloud = { ...ctx, config, session: { token: () => Promise.resolve('t') }, close: () => Promise.resolve() } as unknown as Cloud;
  return { host: createHostService({ acquire: () => ({ cloud, config, release: () => undefined }) }), clock: ctx.clock, glance };
}

const failedClone = { pool: 'images', image: IMAGE_ID, snapshot: 'snap' };
const retry = (timeoutMs: number | undefined): HostEnsureCall => ({ imageRef: IMAGE_ID, store: 'site-b', failedClone,
  signal: new AbortController().signal, onProgress: () => undefined, ...(timeoutMs === undefined ? {} : { timeoutMs }) });

describe('the agent\'s answer to a retry after a failed clone', () => {
  // The fake clock's sleeps jump: the caller's timer (15 s) fires at the end of the sleep that crosses it, at most one
  // delay (5 s) later; the real clock aborts the caller's place on the wait at 15 s itself.
  it('a copy that stays gone: answered FERRY_HAND_OUT_TIMEOUT before the request\'s 20 s deadline (nova waits 20 + 30 s), never after it', async () => {
    const { host, clock } = service();
    const { looks } = pool(1_000);
    const answer = await host.ensure(retry(20_000)).then(() => 'handed out', (error: unknown) => (isFerryError(error) ? error.code : String(error)));
    expect([answer, clock.now() >= 15_000 && clock.now() < 20_000]).toEqual(['FERRY_HAND_OUT_TIMEOUT', true]);
    expect(looks()).toBeLessThan(15);
  });

  it('no timeout in the request: the agent\'s own --timeout (40 s) bounds the answer', async () => {
    const { host, clock } = service('40');
    pool(1_000);
    await expect(host.ensure(retry(undefined))).rejects.toMatchObject({ code: 'FERRY_HAND_OUT_TIMEOUT' });
    expect(clock.now()).toBeGreaterThanOrEqual(35_000);
    expect(clock.now()).toBeLessThan(40_000);
  });

  it('three nova workers retrying the same image share one wait: one look per poll, not one per worker', async () => {
    const { host, glance } = service();
    const { looks } = pool(3);
    const answers = await Promise.all([retry(600_000), retry(600_000), retry(600_000)].map((call) => host.ensure(call)));
    expect(answers.map((a) => (a.document as { target?: { image: string } }).target?.image)).toEqual([IMAGE_ID, IMAGE_ID, IMAGE_ID]);
    expect([looks(), glance.calls.getImage]).toEqual([4, 4]);
  });

  it('a first ask: one ensure, no look, whatever the pool holds', async () => {
    const { host } = service();
    const { looks } = pool(1_000);
    await host.ensure({ ...retry(20_000), failedClone: undefined });
    expect(looks()).toBe(0);
  });
});
