// What a socket client may make the agent do, against the dev cloud: its own store only (decided before any Glance
// call), `--transfer rbd` without a source configuration served by Glance's copy with a failing check, an image ID
// looked up as an ID only. The agent's Glance traffic goes through a proxy that logs every request: a count that
// does not depend on ferry's own counters.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAgent } from '../../../src/agent/agent-client.js';
import { ensureJsonSchema } from '../../../src/contract/ensure-document.js';
import { devcloud } from '../../helpers/devcloud.js';
import { startFaultProxy, type FaultProxy } from '../../helpers/fault-proxy.js';
import { imageTasks, imagesDeletedAfterAll, readImage, uploadImage } from '../../helpers/glance-admin.js';
import { startAgent, type AgentProcess } from './agent-process.js';
import { python } from './nova-tree.js';

const created = imagesDeletedAfterAll();
let proxy: FaultProxy;
const agents: AgentProcess[] = [];

async function image(name: string, store: string, as?: { name: string }): Promise<string> {
  const id = await uploadImage({ name: as?.name ?? `it-agent-scope-${name}`, store, sizeBytes: 1024 * 1024 });
  created.push(id);
  return id;
}

async function agent(args: readonly string[], options: { healthy?: boolean } = {}): Promise<AgentProcess> {
  const started = await startAgent(['--glance-endpoint', proxy.url, ...args], options);
  agents.push(started);
  return started;
}

/** What Glance holds of an image, as an admin reads it: its stores and its locations (urls and stores). */
async function placementOf(id: string): Promise<{ stores: unknown; locations: unknown }> {
  const body = await readImage(id);
  return { stores: body.stores, locations: body.locations };
}

beforeAll(async () => {
  proxy = await startFaultProxy(devcloud().glance.url);
});

afterAll(async () => {
  for (const each of agents) await each.stop();
  await proxy.close();
});

describe('agent: its own store only', () => {
  it.each([
    { transfer: 'glance', args: [] },
    { transfer: 'rbd', args: ['--transfer', 'rbd', '--source-ceph-conf', `site-a=${devcloud().ceph['site-a'].conf}`] },
  ])('agent scope: the site-b agent (--transfer $transfer) asked for store site-a → 403 FERRY_STORE_NOT_ALLOWED; Glance gets no request at all (no import, no location), the image keeps its stores', async ({ args }) => {
    const served = await agent(args);
    const id = await image('other-site', 'site-b');
    const before = await placementOf(id);
    const seen = proxy.log.length;
    const answer = await callAgent(served.socket, { method: 'POST', path: '/v1/ensure', body: { image: id, store: 'site-a' } });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ error: { code: 'FERRY_STORE_NOT_ALLOWED', details: { store: 'site-a', served: ['site-b'] } } });
    expect((answer.body as { error: { message: string } }).error.message).toContain("serves store 'site-b' only");
    // Decided from the request and the agent's configuration: not one request reached Glance.
    expect(proxy.log.slice(seen).map((entry) => `${entry.method} ${entry.path}`)).toEqual([]);
    expect(await imageTasks(id)).toEqual([]);
    expect(await placementOf(id)).toEqual(before);
  });

  it('agent scope: nova\'s Python client raises FerryAgentError FERRY_STORE_NOT_ALLOWED (403, an answer: cause None) for another store', async () => {
    const served = await agent([]);
    const id = await image('client', 'site-b');
    const seen = proxy.log.length;
    const refused = python(`
import json, ferry_agent
try:
    ferry_agent.ensure(${JSON.stringify(id)}, store='site-a')
except ferry_agent.FerryAgentError as e:
    print(json.dumps({'code': e.code, 'status': e.status, 'cause': e.cause, 'message': e.message}))`, { FERRY_AGENT_SOCKET: served.socket });
    expect(refused).toEqual({ code: 'FERRY_STORE_NOT_ALLOWED', status: 403, cause: null,
      message: "store 'site-a' is not served here: this ferry agent serves store 'site-b' only" });
    expect(proxy.log.slice(seen)).toEqual([]);
  });
});

describe('agent: --transfer rbd needs a source configuration', () => {
  it('the tests\' startAgent(): an agent whose /healthz never says 200 fails the start within its bound, with the agent\'s own words (it used to return after ~10 s as if ready)', async () => {
    const started = Date.now();
    const start = startAgent(['--glance-endpoint', proxy.url, '--transfer', 'rbd'], { startMs: 5_000 });
    await expect(start).rejects.toThrow(/^ferry agent not ready within 5 s \(socket \S+ bound, \/healthz not 200\); its stderr: .*listening/s);
    expect(Date.now() - started).toBeGreaterThanOrEqual(5_000);
  });

  it('agent scope: --transfer rbd without --source-ceph-conf → /healthz 503 failing "transfer" naming the fix; an ensure is served by Glance\'s copy-image', async () => {
    const served = await agent(['--transfer', 'rbd'], { healthy: false });
    const health = await callAgent(served.socket, { method: 'GET', path: '/healthz' });
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ ok: false, failing: ['transfer'],
      checks: { transfer: { ok: false, code: 'FERRY_INVALID_OPTION', message: expect.stringContaining('--source-ceph-conf') as unknown } } });
    const id = await image('rbd-without-source', 'site-a');
    const answer = await callAgent(served.socket, { method: 'POST', path: '/v1/ensure', body: { image: id } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(ensureJsonSchema.parse(answer.body)).toMatchObject({ copied: true, transfer: 'glance', store: 'site-b' });
    expect(proxy.entries('POST', new RegExp(`^/v2/images/${id}/import$`))).toHaveLength(1);
    expect(proxy.entries('PATCH', new RegExp(`^/v2/images/${id}$`))).toEqual([]);
  });
});

describe('agent: an image ID is an ID', () => {
  it('agent scope: an ID Glance has no image for → 404 FERRY_IMAGE_NOT_FOUND, even when an image is NAMED like it (no lookup by name)', async () => {
    const served = await agent([]);
    const ghost = randomUUID();
    await image('decoy', 'site-b', { name: ghost });
    const seen = proxy.log.length;
    const answer = await callAgent(served.socket, { method: 'POST', path: '/v1/ensure', body: { image: ghost } });
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ error: { code: 'FERRY_IMAGE_NOT_FOUND' } });
    expect(proxy.log.slice(seen).map((entry) => `${entry.method} ${entry.path}`)).toEqual([`GET /v2/images/${ghost}`]);
  });
});
