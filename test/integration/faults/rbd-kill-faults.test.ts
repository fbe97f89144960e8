import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CEPH_MS, devcloud } from '../../helpers/devcloud.js';
import { startFaultProxy, type Fault, type FaultProxy } from '../../helpers/fault-proxy.js';
import { imagesDeletedAfterAll, readImage } from '../../helpers/glance-admin.js';
import { INTEGRATION_TEST_MS } from '../../helpers/spawn-budget.js';
import {
  cloneInSiteB, DIGEST_MS, FERRY_RUN_MS, ferryAsync, ferrySync, md5OfSnapshot, MiB, rbdEnsureArgs, rbdImageId, rbdMeta, rbdNames, sha512OfSnapshot, siteBLocations, sparseBytes,
  uploadBytes, type FerryRun,
} from '../copy/rbd-transfer-helpers.js';

// Issue 19, item 4: a real `kill -9` of a real `ferry ensure --transfer rbd` at the two instants a hand-built state
// used to stand for. ferry's Glance traffic goes through the fault proxy; when its PATCH /v2/images/ID (the location)
// arrives, the rename is done. The proxy SIGKILLs ferry either before forwarding the PATCH (renamed, nothing
// registered) or after Glance applied it (registered, ferry never saw the answer). Each time a fresh process converges,
// and whatever is registered holds exactly Glance's bytes.
const created = imagesDeletedAfterAll();
let proxy: FaultProxy;

beforeAll(async () => {
  proxy = await startFaultProxy(devcloud().glance.url);
});
afterAll(async () => {
  await proxy.close();
});

async function image(name: string): Promise<string> {
  const id = await uploadBytes(`it-rbd-kill-${name}`, sparseBytes(16 * MiB, 4 * MiB));
  created.push(id);
  return id;
}

/** Run ferry through the proxy and SIGKILL it the moment its location PATCH meets `fault` (from the proxy's `then`). */
async function killedAtThePatch(id: string, fault: Fault): Promise<{ run: FerryRun; upstreamStatus: number | undefined }> {
  let kill = (): void => undefined;
  proxy.add({ method: 'PATCH', path: new RegExp(`^/v2/images/${id}$`), fault, then: () => kill() });
  const running = ferryAsync(rbdEnsureArgs(id), { FERRY_GLANCE_ENDPOINT: proxy.url });
  kill = () => { running.child.kill('SIGKILL'); };
  const run = await running.done;
  const patches = proxy.entries('PATCH', new RegExp(`^/v2/images/${id}$`));
  expect(patches.map((entry) => entry.action), run.stderr).toEqual([fault.kind]);
  return { run, upstreamStatus: patches[0]?.upstreamStatus };
}

/** expectRegisteredVerified's programs: the two digests. */
const REGISTERED_VERIFIED_MS = 2 * DIGEST_MS;
/** expectConverged's: those, rbd ls, and cloneInSiteB's clone and rm. */
const CONVERGED_MS = REGISTERED_VERIFIED_MS + 3 * CEPH_MS;

/** Registered bytes are Glance's: both of Glance's hashes over what a clone of each site-b location reads. */
async function expectRegisteredVerified(id: string): Promise<void> {
  const glance = await readImage(id);
  expect(glance.os_hash_algo).toBe('sha512');
  expect(sha512OfSnapshot('site-b', id)).toBe(glance.os_hash_value);
  expect(md5OfSnapshot('site-b', id)).toBe(glance.checksum);
}

async function expectConverged(id: string): Promise<void> {
  expect(await siteBLocations(id)).toEqual([`rbd://${devcloud().ceph['site-b'].fsid}/images/${id}/snap`]);
  await expectRegisteredVerified(id);
  expect(rbdNames('site-b').filter((name) => name.startsWith(id))).toEqual([id]);
  const clone = cloneInSiteB(id);
  expect(clone.code, clone.stderr).toBe(0);
}

describe('direct transfer: ferry SIGKILLed at its location PATCH, for real', () => {
  it('kill -9 after the rename, before the PATCH reached Glance → nothing registered; a fresh run registers that copy (not copied again)', async () => {
    const id = await image('after-rename');
    const { run } = await killedAtThePatch(id, { kind: 'hang' });
    expect(run.signal).toBe('SIGKILL');
    // The state the kill left: committed under the image id, marked verified, no temporary image, no location.
    expect(await siteBLocations(id)).toEqual([]);
    expect(rbdNames('site-b').filter((name) => name.startsWith(id))).toEqual([id]);
    expect(rbdMeta('site-b', id, 'ferry.verified')).toBe(`sha512:${String((await readImage(id)).os_hash_value)}`);
    const committed = rbdImageId('site-b', id);
    expect(committed).toBeDefined();

    const again = ferrySync(rbdEnsureArgs(id));
    expect(again.code, again.stderr).toBe(0);
    expect(again.json).toMatchObject({ copied: true, transfer: 'rbd', import_requests: 0 });
    // The same RBD image was registered: the re-run did not write a second copy.
    expect(rbdImageId('site-b', id)).toBe(committed);
    await expectConverged(id);
  }, INTEGRATION_TEST_MS + 2 * FERRY_RUN_MS + 4 * CEPH_MS + CONVERGED_MS);

  it('kill -9 during the PATCH (Glance applied it, ferry never saw the answer) → registered and verified; a fresh run says already local', async () => {
    const id = await image('during-patch');
    const { run, upstreamStatus } = await killedAtThePatch(id, { kind: 'reset-after' });
    expect(run.signal).toBe('SIGKILL');
    expect(upstreamStatus).toBe(200);
    // Registered by the dying run, and what it registered is Glance's bytes.
    expect(await siteBLocations(id)).toHaveLength(1);
    await expectRegisteredVerified(id);
    const committed = rbdImageId('site-b', id);

    const again = ferrySync(rbdEnsureArgs(id));
    expect(again.code, again.stderr).toBe(0);
    expect(again.json).toMatchObject({ copied: false, transfer: null, import_requests: 0 });
    expect(rbdImageId('site-b', id)).toBe(committed);
    await expectConverged(id);
  }, INTEGRATION_TEST_MS + 2 * FERRY_RUN_MS + REGISTERED_VERIFIED_MS + 2 * CEPH_MS + CONVERGED_MS);
});
