// nova's real Rbd.clone() with the ferry patch when the agent is away: the patch falls back to nova's own copy (one
// warning naming the cause), or waits for an agent that restarts. Against the dev cloud, nova 26 (Debian 12's).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAgent } from '../../../src/agent/agent-client.js';
import { ceph, devcloud } from '../../helpers/devcloud.js';
import { deleteImage, imageTasks, tokenFor, uploadImage, waitUnlocked } from '../../helpers/glance-admin.js';
import { startAgent, type AgentProcess } from './agent-process.js';
import { novaClone, novaConf, patchedNova, type CloneResult, type FerryOptions } from './nova-tree.js';

const created: string[] = [];
const clones: string[] = [];
let work: string;
let token: string;
let nova: ReturnType<typeof patchedNova>;

async function image(name: string): Promise<string> {
  const id = await uploadImage({ name: `it-nova-fallback-${name}`, store: 'site-a', sizeBytes: 8 * 1024 * 1024 });
  created.push(id);
  return id;
}

function clone(id: string, name: string, ferry: FerryOptions, options: { withoutClient?: boolean; timeoutSeconds?: number } = {}): Promise<CloneResult> {
  clones.push(`vms/${name}`);
  return novaClone({ root: nova.root, conf: novaConf(work, 'site-b', ferry), image: id, name, token, socket: ferry.socket, ...options });
}

/** A clone nova made from the site-b copy of the image (not a download: that would have no parent). */
function expectClonedFromCopy(name: string, id: string): void {
  const info = ceph('site-b', 'rbd', ['info', `vms/${name}`]);
  expect(info.code, info.stderr).toBe(0);
  expect(info.stdout).toContain(`parent: images/${id}@snap`);
}

/** Whether nova processes have reached the agent: a wait in flight, or an ensure answered (its metrics). */
async function novaReachedAgent(socket: string): Promise<boolean> {
  const answer = await callAgent(socket, { method: 'GET', path: '/metrics' }).catch(() => undefined);
  const text = typeof answer?.body === 'string' ? answer.body : '';
  return /^ferry_agent_waits_in_flight [1-9]/m.test(text) || /^ferry_agent_ensures_total\{[^}]*\} [1-9]/m.test(text);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'ferry-nova-fallback-'));
  token = await tokenFor('admin');
  nova = patchedNova();
});

afterAll(async () => {
  nova.cleanup();
  for (const name of clones) ceph('site-b', 'rbd', ['rm', '--no-progress', name]);
  for (const id of created) {
    await waitUnlocked(id);
    await deleteImage(id);
  }
  rmSync(work, { recursive: true, force: true });
});

describe('nova 26 with the ferry patch, the agent away', () => {
  it('no agent (no socket file) → nova asks again for images_rbd_ferry_agent_retry_timeout, logs ONE warning naming the cause, and clones through its own copy', async () => {
    const id = await image('no-agent');
    const name = `it-nova-noagent-${id.slice(0, 8)}`;
    const socket = join(work, 'nobody-here.sock');
    const result = await clone(id, name, { socket, retryTimeout: 2 });
    expect(result).toMatchObject({ ok: true, patched: true, client: true });
    expect(result.retries).toBeGreaterThanOrEqual(2);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toContain(`The ferry agent cannot copy image ${id} to rbd store site-b, Nova copies it itself`);
    expect(result.warnings[0]).toMatch(/FERRY_AGENT_UNAVAILABLE: the ferry agent at .*nobody-here\.sock does not answer: .*(No such file or directory|ENOENT)/);
    expectClonedFromCopy(name, id);
    // nova's own copy: one Glance copy task, requested by nova.
    expect((await imageTasks(id)).filter((t) => t.input.backend?.includes('site-b'))).toHaveLength(1);
  });

  it('the ferry_agent module missing → the same fallback, the warning names the import error', async () => {
    const id = await image('no-module');
    const name = `it-nova-nomodule-${id.slice(0, 8)}`;
    const result = await clone(id, name, { socket: join(work, 'unused.sock') }, { withoutClient: true });
    expect(result).toMatchObject({ ok: true, patched: true, client: false, retries: 0 });
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toContain("the ferry_agent module cannot be imported (ModuleNotFoundError: No module named 'ferry_agent')");
    expectClonedFromCopy(name, id);
  });

  it('images_rbd_ferry_agent_fallback = false and no agent → ImageUnacceptable naming FERRY_AGENT_UNAVAILABLE, nova does not copy', async () => {
    const id = await image('no-fallback');
    const result = await clone(id, `it-nova-nofallback-${id.slice(0, 8)}`, { socket: join(work, 'nobody.sock'), fallback: false, retryTimeout: 0 });
    expect(result).toMatchObject({ ok: false, error: 'ImageUnacceptable', warnings: [], retries: 0 });
    expect(result.message).toContain('Copy to store site-b unsuccessful because: FERRY_AGENT_UNAVAILABLE');
    // No retry (retry timeout 0) and no copy's wait; seconds are mostly nova's imports, slow on a loaded machine.
    expect(result.seconds).toBeLessThan(30);
    expect(await imageTasks(id)).toHaveLength(0);
  });
});

describe('nova 26 with the ferry patch, the agent restarted', () => {
  let agent: AgentProcess | undefined;
  afterAll(async () => { await agent?.stop(); });

  it('the agent restarted (SIGTERM, exit, start on the same socket) while 10 nova processes clone 5 images → zero failed clones', async () => {
    agent = await startAgent();
    const socket = agent.socket;
    const ids = await Promise.all([1, 2, 3, 4, 5].map((n) => image(`restart-${n}`)));
    const started = Date.now();
    const runs = Array.from({ length: 10 }, (_, n) => {
      const id = ids[n % ids.length] ?? '';
      const name = `it-nova-restart${n}-${id.slice(0, 8)}`;
      return clone(id, name, { socket }, { timeoutSeconds: 300 }).then((result) => ({ result, id, name }));
    });
    // Restart once the first requests reach the agent (nova's imports take seconds, more on a loaded machine), as
    // systemd does: stop, wait for the exit (in-flight requests drain within the grace), start again on the same socket.
    for (let i = 0; i < 1200 && !(await novaReachedAgent(socket)); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    const restartAt = (Date.now() - started) / 1000;
    const stopped = await agent.stop();
    const downAt = (Date.now() - started) / 1000;
    agent = await startAgent([], { socket });
    const upAt = (Date.now() - started) / 1000;
    const done = await Promise.all(runs);
    const failed = done.filter(({ result }) => !result.ok);
    const retried = done.filter(({ result }) => result.retries > 0).length;
    const fellBack = done.filter(({ result }) => result.warnings.length > 0).length;
    console.error(`nova restart: SIGTERM at ${restartAt.toFixed(1)} s, old agent exited ${String(stopped)} at ${downAt.toFixed(1)} s, `
      + `new agent up at ${upAt.toFixed(1)} s; clones done ${done.map(({ result }) => result.seconds.toFixed(1)).join(' ')} s; `
      + `${retried} asked again, ${fellBack} fell back, ${failed.length} failed`);
    expect(stopped).toBe(0);
    expect(failed.map(({ result }) => result.message)).toEqual([]);
    for (const { id, name } of done) expectClonedFromCopy(name, id);
    // The restart came while nova was cloning: some process found the agent away and asked again.
    expect(retried).toBeGreaterThan(0);
  }, 420_000);
});

/** A stand-in for the agent on a Unix socket: it answers every ensure with `document`, and counts the requests. */
async function fakeAgent(socket: string, document: unknown): Promise<{ server: Server; requests: () => number }> {
  let requests = 0;
  const server = createServer((request, response) => {
    requests += 1;
    request.resume();
    request.once('end', () => {
      const text = JSON.stringify(document);
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      response.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return { server, requests: () => requests };
}

describe('nova 26 with the ferry patch, an answer it must not trust', () => {
  it('an agent that answers with ANOTHER image\'s clone target → nova does not clone it: one warning naming both images, nova\'s own copy, the clone\'s parent is the image asked for', async () => {
    const id = await image('asked');
    // Another image already clonable at site-b: a target nova's is_cloneable() would accept.
    const other = await uploadImage({ name: 'it-nova-fallback-other', store: 'site-b', sizeBytes: 1024 * 1024 });
    created.push(other);
    const fsid = devcloud().ceph['site-b'].fsid;
    const socket = join(work, 'lying-agent.sock');
    const liar = await fakeAgent(socket, { image: other, store: 'site-b', needed: true, copied: false, joined: false, seconds: 0.01,
      target: { fsid, pool: 'images', image: other, snapshot: 'snap', url: `rbd://${fsid}/images/${other}/snap` }, why: 'present',
      task: null, took_over: null, image_reads: 1, import_requests: 0 });
    try {
      const name = `it-nova-other-${id.slice(0, 8)}`;
      const result = await clone(id, name, { socket, retryTimeout: 2 });
      expect(result).toMatchObject({ ok: true, patched: true, retries: 0 });
      expect(liar.requests()).toBe(1);
      expect(result.warnings).toHaveLength(1);
      expect(result.warnings[0]).toContain(`The ferry agent cannot copy image ${id} to rbd store site-b, Nova copies it itself`);
      expect(result.warnings[0]).toContain(`the ferry agent answered for image ${other}, not ${id}`);
      expectClonedFromCopy(name, id);
    } finally {
      await new Promise((resolve) => liar.server.close(resolve));
    }
  });

  it('an agent that does not serve nova\'s store (the site-a agent asked for site-b) → FERRY_STORE_NOT_ALLOWED: nova falls back at once (not asked again), one warning naming the code, clones from its own copy', async () => {
    const agent = await startAgent([], { site: 'site-a' });
    try {
      const id = await image('not-served');
      const name = `it-nova-notserved-${id.slice(0, 8)}`;
      const result = await clone(id, name, { socket: agent.socket, retryTimeout: 30 });
      expect(result).toMatchObject({ ok: true, patched: true, retries: 0 });
      expect(result.seconds).toBeLessThan(25);
      expect(result.warnings).toHaveLength(1);
      expect(result.warnings[0]).toContain('FERRY_STORE_NOT_ALLOWED');
      expectClonedFromCopy(name, id);
      // nova's own copy: one Glance copy task into site-b, none by the agent.
      expect((await imageTasks(id)).filter((t) => t.input.backend?.includes('site-b'))).toHaveLength(1);
    } finally {
      await agent.stop();
    }
  });
});
