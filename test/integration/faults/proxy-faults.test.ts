// Faults between ferry and Glance, injected by a loopback proxy (test/helpers/fault-proxy.ts) that ferry reaches
// through --glance-endpoint; Keystone and Ceph stay direct. Each case: the outcome (exit code, error code), the time
// to it, nothing lost (central location + checksum), convergence on a re-run without the proxy.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cloudEnv, devcloud, markReached } from '../../helpers/devcloud.js';
import { errorOf, ferryChild, lostSince, notConverged, originalCopy, tasksOf, type ChildRun } from '../../helpers/devcloud-faults.js';
import { startFaultProxy, type FaultProxy } from '../../helpers/fault-proxy.js';
import { deleteImage, uploadImage, waitUnlocked } from '../../helpers/glance-admin.js';
import { runFerry } from '../../helpers/run-ferry.js';

const RUN = `it-faults-proxy-${randomBytes(3).toString('hex')}`;
const created: string[] = [];
const IMAGE_PATH = /^\/v2\/images\/[0-9a-f-]{36}$/;
const IMPORT_PATH = /^\/v2\/images\/[0-9a-f-]{36}\/import$/;

async function image(name: string, mib = 2): Promise<string> {
  const id = await uploadImage({ name: `${RUN}-${name}`, store: 'central', sizeBytes: mib * 1024 * 1024 });
  created.push(id);
  return id;
}

let proxy: FaultProxy;
beforeEach(async () => {
  proxy = await startFaultProxy(devcloud().glance.url);
});
afterEach(async () => {
  await proxy.close();
});
afterAll(async () => {
  for (const id of created) {
    await waitUnlocked(id);
    await deleteImage(id);
  }
}, 120_000);

const viaProxy = (): Record<string, string> => ({ ...cloudEnv(), FERRY_FSID: devcloud().ceph['site-b'].fsid, FERRY_GLANCE_ENDPOINT: proxy.url });

/** `ferry ensure ID --store site-b --json` in this process, through the proxy; with the wall time to its exit. */
/**
 * After ferry's deadline: the abort of what is in flight, the JSON written, the process's exit. Times are asserted from
 * ferry's first Glance request (at the proxy) to its exit, not from the spawn: a Node process's start-up on a busy
 * 2-core machine took 3–5 s, which is no part of ferry's deadline (a lane run failed on 12175 ms < 12000 so).
 */
const EXIT_MARGIN_MS = 2_000;

async function ensureViaProxy(id: string, extra: readonly string[] = []): Promise<{ code: number; json: Record<string, unknown>; stderr: string; glanceToExitMs: number }> {
  const started = Date.now();
  const run = await runFerry(['ensure', id, '--store', 'site-b', '--json', ...extra], { env: viaProxy() });
  const ended = Date.now();
  markReached('glance');
  return { code: run.code, json: JSON.parse(run.stdout || '{}') as Record<string, unknown>, stderr: run.stderr, glanceToExitMs: glanceToExit(started, ended) };
}

/** From the first request the proxy saw after `started` to `ended` (the whole run when it saw none). */
function glanceToExit(started: number, ended: number): number {
  const first = proxy.log.find((entry) => proxy.startedAt + entry.atMs >= started);
  return first === undefined ? ended - started : ended - (proxy.startedAt + first.atMs);
}

/** A re-run straight to Glance: exit 0 and the store present exactly once, no lock left. */
async function convergesOnRerun(id: string): Promise<void> {
  const again = await runFerry(['ensure', id, '--store', 'site-b', '--json'], { env: { ...cloudEnv(), FERRY_FSID: devcloud().ceph['site-b'].fsid } });
  expect(again.code, again.stdout).toBe(0);
  expect(await notConverged(id, 'site-b')).toEqual([]);
}

const copyTasksTo = async (id: string, store: string) => (await tasksOf(id)).filter((t) => t.backend.includes(store));
const describeLog = () => proxy.log.map((e) => `${e.atMs}ms ${e.method} ${e.path} ${e.action} ${e.status ?? '-'}`).join('\n');

describe('faults between ferry and Glance (through a fault proxy)', () => {
  it.each([
    { title: '503 on the image read', rule: { method: 'GET', path: IMAGE_PATH, fault: { kind: 'status', status: 503 } } as const, action: 'status' },
    { title: '502 with an HTML body on the image read', rule: { method: 'GET', path: IMAGE_PATH, fault: { kind: 'status', status: 502 } } as const, action: 'status' },
    { title: '503 on the import POST (Glance never saw it)', rule: { method: 'POST', path: IMPORT_PATH, fault: { kind: 'status', status: 503 } } as const, action: 'status' },
    { title: 'a reset before the import POST reached Glance', rule: { method: 'POST', path: IMPORT_PATH, fault: { kind: 'reset-before' } } as const, action: 'reset-before' },
  ])('proxy: $title → retried, exit 0, one copy task', async ({ rule, action }) => {
    const id = await image('before');
    const before = await originalCopy(id);
    proxy.add(rule);
    const run = await ensureViaProxy(id);
    expect(run.code, `${JSON.stringify(run.json)}\n${describeLog()}`).toBe(0);
    expect(run.json).toMatchObject({ image: id, store: 'site-b', copied: true });
    expect(proxy.entries(rule.method, rule.path).map((e) => e.action)).toContain(action);
    // the faulty request was sent again and went through
    expect(proxy.entries(rule.method, rule.path).some((e) => e.action === 'forwarded' && (e.status ?? 0) < 300)).toBe(true);
    expect(proxy.entries('POST', IMPORT_PATH).filter((e) => e.upstreamStatus === 202)).toHaveLength(1);
    expect(await copyTasksTo(id, 'site-b')).toHaveLength(1);
    expect(run.glanceToExitMs).toBeLessThan(20_000);
    expect(await lostSince(before)).toEqual([]);
    await convergesOnRerun(id);
  });

  it('proxy: a reset after the import POST reached Glance → ferry sees the copy started, follows it, exit 0, Glance ran one copy', async () => {
    const id = await image('reset-after', 8);
    const before = await originalCopy(id);
    proxy.add({ method: 'POST', path: IMPORT_PATH, fault: { kind: 'reset-after' } });
    const run = await ensureViaProxy(id);
    expect(run.code, `${JSON.stringify(run.json)}\n${describeLog()}`).toBe(0);
    expect(run.json).toMatchObject({ image: id, store: 'site-b' });
    const posts = proxy.entries('POST', IMPORT_PATH);
    expect(posts[0]).toMatchObject({ action: 'reset-after', upstreamStatus: 202 });
    // no second import sent once the first was seen to have started
    expect(posts.filter((e) => e.upstreamStatus === 202)).toHaveLength(1);
    const tasks = await copyTasksTo(id, 'site-b');
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({ status: 'success', requestId: posts[0]?.requestId });
    expect(run.glanceToExitMs).toBeLessThan(30_000);
    expect(await lostSince(before)).toEqual([]);
    await convergesOnRerun(id);
  });

  it('proxy: a reset after the import POST, then Glance unreachable until the deadline → FERRY_COPY_UNCONFIRMED (34); a re-run joins', async () => {
    const id = await image('unconfirmed', 8);
    const before = await originalCopy(id);
    proxy.add({ method: 'POST', path: IMPORT_PATH, fault: { kind: 'reset-after' }, thenRefuse: true });
    const run = await ensureViaProxy(id, ['--timeout', '10']);
    expect(run.code, `${JSON.stringify(run.json)}\n${describeLog()}`).toBe(34);
    const error = run.json.error as { code: string; message: string; hint: string };
    expect(error.code).toBe('FERRY_COPY_UNCONFIRMED');
    expect(`${error.message} ${error.hint}`).toMatch(/may (be|still be) running/i);
    expect(`${error.message} ${error.hint}`).toMatch(/re-?run|again/i);
    expect(`${error.message} ${error.hint}`).toMatch(/join/i);
    expect(run.glanceToExitMs, describeLog()).toBeLessThanOrEqual(10_000 + EXIT_MARGIN_MS);
    expect(proxy.entries('POST', IMPORT_PATH)).toMatchObject([{ action: 'reset-after', upstreamStatus: 202 }]);
    expect(await lostSince(before)).toEqual([]);
    await convergesOnRerun(id);
    // the re-run joined the copy the lost POST started rather than making another
    expect(await copyTasksTo(id, 'site-b')).toHaveLength(1);
  });

  it('proxy: slow bodies on every image read → exit 0', async () => {
    const id = await image('slow');
    const before = await originalCopy(id);
    proxy.add({ method: 'GET', path: IMAGE_PATH, times: Infinity, fault: { kind: 'slow-body', chunkBytes: 256, intervalMs: 25 } });
    const run = await ensureViaProxy(id);
    expect(run.code, JSON.stringify(run.json)).toBe(0);
    expect(run.json).toMatchObject({ copied: true });
    expect(proxy.entries('GET', IMAGE_PATH).filter((e) => e.action === 'slow-body').length).toBeGreaterThanOrEqual(2);
    expect(await lostSince(before)).toEqual([]);
    await convergesOnRerun(id);
  });

  it('proxy: a truncated image read once → retried, exit 0', async () => {
    const id = await image('truncated');
    const before = await originalCopy(id);
    proxy.add({ method: 'GET', path: IMAGE_PATH, nth: 2, fault: { kind: 'truncate' } });
    const run = await ensureViaProxy(id);
    expect(run.code, `${JSON.stringify(run.json)}\n${describeLog()}`).toBe(0);
    expect(proxy.entries('GET', IMAGE_PATH).map((e) => e.action)).toContain('truncate');
    expect(await lostSince(before)).toEqual([]);
    await convergesOnRerun(id);
  });

  it.each([
    { kind: 'html-200' as const, names: /text\/html|<!DOCTYPE html>|<html/i },
    { kind: 'bad-json-200' as const, names: /not (valid )?JSON|malformed|\{"id": "0000|application\/json/i },
  ])('proxy: $kind on every image read → FERRY_BAD_RESPONSE (18) naming what arrived', async ({ kind, names }) => {
    const id = await image(kind);
    const before = await originalCopy(id);
    proxy.add({ method: 'GET', path: IMAGE_PATH, times: Infinity, fault: { kind } });
    const run = await ensureViaProxy(id, ['--timeout', '15']);
    expect(run.code, JSON.stringify(run.json)).toBe(18);
    const error = run.json.error as { code: string; message: string };
    expect(error.code).toBe('FERRY_BAD_RESPONSE');
    expect(error.message).toMatch(names);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.glanceToExitMs, describeLog()).toBeLessThanOrEqual(15_000 + EXIT_MARGIN_MS);
    expect(await lostSince(before)).toEqual([]);
    await convergesOnRerun(id);
  });

  it('proxy: a 401 on an image read mid-wait (token expired) → ferry authenticates again, exit 0', async () => {
    const id = await image('token', 8);
    const before = await originalCopy(id);
    // the first read finds the image, the second (after the import) is refused as with an expired token
    proxy.add({ method: 'GET', path: IMAGE_PATH, nth: 2, fault: { kind: 'status', status: 401 } });
    const run = await ensureViaProxy(id);
    expect(run.code, `${JSON.stringify(run.json)}\n${describeLog()}`).toBe(0);
    expect(run.json).toMatchObject({ copied: true });
    const reads = proxy.entries('GET', IMAGE_PATH);
    expect(reads[1]).toMatchObject({ action: 'status', status: 401 });
    expect(reads.length).toBeGreaterThanOrEqual(3);
    expect(await lostSince(before)).toEqual([]);
    await convergesOnRerun(id);
  });
});

describe('the deadline is a deadline (ferry as a child process, wall time from spawn to exit)', () => {
  const timed = async (id: string): Promise<ChildRun> => ferryChild(['ensure', id, '--store', 'site-b', '--json', '--timeout', '15'],
    { env: viaProxy(), killAfterMs: 30_000 });

  it.each([
    { kind: 'hang' as const, fault: { kind: 'hang' } as const },
    { kind: 'stall-body' as const, fault: { kind: 'stall-body', afterBytes: 40 } as const },
  ])('proxy: $kind on every image read after the import, --timeout 15 → FERRY_COPY_TIMEOUT (31) within 15 s of its first request, plus its exit', async ({ kind, fault }) => {
    const id = await image(kind);
    const before = await originalCopy(id);
    proxy.add({ method: 'GET', path: IMAGE_PATH, nth: 2, times: Infinity, fault });
    const run = await timed(id);
    expect(run.code, `${run.stdout}\n${run.stderr}\n${describeLog()}`).toBe(31);
    expect(errorOf(run).code).toBe('FERRY_COPY_TIMEOUT');
    // where the time went: process start-up (spawn → first request at the proxy), then ferry's own deadline
    const firstRequestMs = proxy.startedAt + (proxy.log[0]?.atMs ?? 0) - run.startedAt;
    expect(run.wallMs - firstRequestMs, `spawn → first Glance request ${firstRequestMs} ms, spawn → exit ${run.wallMs} ms`)
      .toBeLessThanOrEqual(15_000 + EXIT_MARGIN_MS);
    expect(proxy.entries('GET', IMAGE_PATH).some((e) => e.action === kind)).toBe(true);
    markReached('glance');
    expect(await lostSince(before)).toEqual([]);
    await convergesOnRerun(id);
  });
});
