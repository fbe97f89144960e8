import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureJsonSchema } from '../../../src/contract/ensure-document.js';
import { cephAll, CEPH_MS, devcloud } from '../../helpers/devcloud.js';
import { INTEGRATION_TEST_MS } from '../../helpers/spawn-budget.js';
import { imagesDeletedAfterAll, readImage } from '../../helpers/glance-admin.js';
import { startAgent, type AgentProcess } from '../agent/agent-process.js';
import {
  cloneInSiteB, DIGEST_MS, md5OfSnapshot, MiB, rbdImageId, rbdMeta, rbdNames, sha512OfSnapshot, siteBLocations, sparseBytes, uploadBytes, waitingForRbd,
} from '../copy/rbd-transfer-helpers.js';

// Issue 19, item 4: two `ferry agent` processes that are two hosts to ferry (each in a UTS namespace of its own, so
// os.hostname() differs; each with its own socket and state), the same Glance and the same target cluster, both with
// `--transfer rbd`, asked as nova asks: POST /v1/ensure on their sockets. Then the cross-host abandonment path: a
// writer on the other host killed mid-transfer leaves a temporary image this host cannot judge by pid; it is waited
// for while recent and removed only after the quiet time (--rbd-quiet-time, here its floor of 90 s).
const created = imagesDeletedAfterAll();
const RACE_RUNS = Number(process.env.FERRY_RBD_RACE_RUNS ?? 5);
const QUIET_S = 90;
const HOSTS = ['ferry-it-host-a', 'ferry-it-host-b'] as const;
/** The races, one test each: a test's limit is one race's spawns, a hang found within one run's. */
const RACES = Array.from({ length: RACE_RUNS }, (_, run) => ({ run: run + 1 }));
/** From the abandoned image's modify time until host-b must have answered: the quiet time and 45 s (asserted below). */
const QUIET_WAIT_MS = (QUIET_S + 45) * 1000;
let passedRaces = 0;
let contendedRaces = 0;
let hostA: AgentProcess;
let hostB: AgentProcess;

beforeAll(async () => {
  const transfer = ['--transfer', 'rbd', '--source-ceph-conf', `site-a=${devcloud().ceph['site-a'].conf}`, '--rbd-quiet-time', String(QUIET_S)];
  [hostA, hostB] = await Promise.all([startAgent(transfer, { hostname: HOSTS[0] }), startAgent(transfer, { hostname: HOSTS[1] })]);
});
afterAll(async () => {
  await Promise.all([hostA.stop(), hostB.stop()]);
  // Concurrency tests are trusted after many runs: say how many passed.
  console.log(`rbd transfer, two agents on two hosts: ${passedRaces}/${RACE_RUNS} races passed; in ${contendedRaces} the loser waited for the winner's temporary image`);
});

async function image(name: string, size: number, data: number): Promise<string> {
  const id = await uploadBytes(`it-rbd-hosts-${name}`, sparseBytes(size, data));
  created.push(id);
  return id;
}

interface Progress { readonly phase: string; readonly note?: string }
interface StreamedEnsure { readonly status: number; readonly progress: readonly Progress[]; readonly last: unknown }

/**
 * POST /v1/ensure as nova asks, streamed (Accept: application/x-ndjson): the progress events show what the agent did
 * while the caller waited (`joining` "another writer has … open"), the last line is the ensure document.
 */
function ensureOn(agent: AgentProcess, id: string): Promise<StreamedEnsure> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ image: id });
    const request = httpRequest({ socketPath: agent.socket, method: 'POST', path: '/v1/ensure',
      headers: { accept: 'application/x-ndjson', 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => { text += chunk.toString(); });
      response.on('error', reject);
      response.on('end', () => {
        const lines = text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as { progress?: Progress });
        resolve({ status: response.statusCode ?? 0, progress: lines.flatMap((line) => (line.progress ? [line.progress] : [])), last: lines.at(-1) });
      });
    });
    request.on('error', reject);
    request.end(body);
  });
}

function documentOf(answer: StreamedEnsure): ReturnType<typeof ensureJsonSchema.parse> {
  expect(answer.status, JSON.stringify(answer.last)).toBe(200);
  return ensureJsonSchema.parse(answer.last);
}

/** Whether the agent waited for another writer's temporary image (the direct transfer's `joining` progress). */
const waitedForWriter = (answer: StreamedEnsure, partial: string): boolean =>
  answer.progress.some((event) => event.phase === 'joining' && (event.note ?? '').includes(`${partial} open: waiting`));

/** expectConverged()'s programs: two digests, the pool's names, nova's clone (made and removed in one program). */
const CONVERGED_MS = 2 * DIGEST_MS + 2 * CEPH_MS;
/** One location, holding Glance's bytes (sha512 and md5 of what a clone reads), clonable by nova, no temporary image left. */
async function expectConverged(id: string): Promise<void> {
  const glance = await readImage(id);
  expect(await siteBLocations(id)).toEqual([`rbd://${devcloud().ceph['site-b'].fsid}/images/${id}/snap`]);
  expect(sha512OfSnapshot('site-b', id)).toBe(glance.os_hash_value);
  expect(md5OfSnapshot('site-b', id)).toBe(glance.checksum);
  expect(rbdNames('site-b').filter((name) => name.startsWith(id))).toEqual([id]);
  const clone = cloneInSiteB(id);
  expect(clone.code, clone.stderr).toBe(0);
}

/**
 * What a host finds of the abandoned temporary image, in one program: its writer (image-meta ferry.writer), its RBD
 * id, and its modify time as ferry reads it (`rbd info`, whole seconds).
 */
function leftoverOf(name: string): { writer: string | undefined; id: string | undefined; modifiedAtSec: number } {
  const [writer, out] = cephAll('site-b', [['rbd', 'image-meta', 'get', `images/${name}`, 'ferry.writer'], ['rbd', 'info', '--format', 'json', `images/${name}`]], 'admin');
  const info = (out?.code === 0 ? JSON.parse(out.stdout) : {}) as { id?: string; modify_timestamp?: string; create_timestamp?: string };
  return { writer: writer?.code === 0 ? writer.stdout.trim() : undefined, id: info.id,
    modifiedAtSec: Math.floor(Date.parse(info.modify_timestamp ?? info.create_timestamp ?? '') / 1000) };
}

describe('direct transfer: two agents on two hosts', () => {
  it.each(RACES)(`race: both hosts asked at once for the same image and store (run $run of ${RACE_RUNS}): one writes, both answer the same clone target, one location`, async ({ run }) => {
    const id = await image(`race-${run - 1}`, 16 * MiB, 4 * MiB);
    const [answerA, answerB] = await Promise.all([ensureOn(hostA, id), ensureOn(hostB, id)]);
    const [a, b] = [documentOf(answerA), documentOf(answerB)];
    expect(a.target).toEqual({ fsid: devcloud().ceph['site-b'].fsid, pool: 'images', image: id, snapshot: 'snap',
      url: `rbd://${devcloud().ceph['site-b'].fsid}/images/${id}/snap` });
    expect(b.target).toEqual(a.target);
    expect([a.copied, b.copied].filter((copied) => copied === true), JSON.stringify([a, b])).toHaveLength(1);
    const [writer, doc] = a.copied ? [hostA, a] : [hostB, b];
    expect(doc.transfer).toBe('rbd');
    // The committed image names its one writer: the host that answered copied, by its own host name and pid.
    expect(rbdMeta('site-b', id, 'ferry.writer')).toBe(`${HOSTS[writer === hostA ? 0 : 1]}:${String(writer.child.pid)}`);
    if (waitedForWriter(a.copied ? answerB : answerA, `${id}.ferry-partial`)) contendedRaces += 1;
    await expectConverged(id);
    passedRaces += 1;
    // Neither host ever took the other's live image for a leftover.
    expect(hostA.stderr() + hostB.stderr()).not.toContain('removing the leftover temporary image');
  }, INTEGRATION_TEST_MS + CEPH_MS + CONVERGED_MS);

  it(`cross-host: host-a killed -9 mid-transfer → host-b waits while the temporary image is recent, removes it after ${QUIET_S} s quiet, copies`, async () => {
    const id = await image('abandoned', 256 * MiB, 192 * MiB);
    const partial = `${id}.ferry-partial`;
    const onA = ensureOn(hostA, id).then((answer) => (ensureJsonSchema.safeParse(answer.last).success ? 'answered' : 'connection lost'),
      () => 'connection lost');
    // host-a is writing once import-diff has the temporary image open: waited for in one program, 60 s at most, beside
    // the request to host-a.
    if (!(await waitingForRbd('open', partial, 60))) throw new Error('timed out after 60000 ms waiting for host-a to write the temporary image');
    hostA.child.kill('SIGKILL');
    expect(await onA).toBe('connection lost');
    expect(await hostA.stop()).toBeNull();
    const found = leftoverOf(partial);
    // Left behind, naming its writer on the other host: host-b cannot ask that pid.
    expect(found.writer).toBe(`${HOSTS[0]}:${String(hostA.child.pid)}`);
    expect(await siteBLocations(id)).toEqual([]);
    const leftover = found.id;
    const quietFromMs = found.modifiedAtSec * 1000;
    expect(Date.now() - quietFromMs).toBeLessThan(30_000);

    let answeredAt: number | undefined;
    const onB = ensureOn(hostB, id).then((answer) => { answeredAt = Date.now(); return answer; });
    // Before the quiet time: host-b waits; the image it found is untouched and nothing is registered.
    await new Promise((resolve) => setTimeout(resolve, quietFromMs + (QUIET_S - 15) * 1000 - Date.now()));
    expect(answeredAt).toBeUndefined();
    expect(rbdImageId('site-b', partial)).toBe(leftover);
    expect(await siteBLocations(id)).toEqual([]);
    // After it: removed as a leftover, copied anew, registered.
    const answerB = await onB;
    // It waited because of that image: its progress said so while the caller waited.
    expect(waitedForWriter(answerB, partial), JSON.stringify(answerB.progress)).toBe(true);
    const b = documentOf(answerB);
    expect(b).toMatchObject({ copied: true, transfer: 'rbd', target: { image: id } });
    expect(answeredAt ?? 0).toBeGreaterThanOrEqual(quietFromMs + QUIET_S * 1000);
    // …and soon after it: the agent's --rbd-quiet-time took effect, not the 180 s default.
    expect(answeredAt ?? Number.POSITIVE_INFINITY).toBeLessThan(quietFromMs + (QUIET_S + 45) * 1000);
    console.log(`cross-host leftover: host-b answered ${((answeredAt ?? 0) - quietFromMs) / 1000} s after the image's modify time (quiet time ${QUIET_S} s)`);
    expect(hostB.stderr()).toContain('removing the leftover temporary image');
    await expectConverged(id);
    // The wait for host-a's write and the leftover's read before the quiet time, its id read after it.
  }, INTEGRATION_TEST_MS + 3 * CEPH_MS + QUIET_WAIT_MS + CONVERGED_MS);
});
