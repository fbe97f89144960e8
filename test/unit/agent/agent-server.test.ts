import { lstatSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { connect } from 'node:net';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAgentMetrics } from '../../../src/agent/agent-metrics.js';
import { resolveAgentOptions } from '../../../src/agent/agent-options.js';
import { createAgentServer, type AgentServer } from '../../../src/agent/agent-server.js';
import type { HostEnsureCall, HostHealth, HostService } from '../../../src/host/host-service.js';
import { FerryError } from '../../../src/errors/ferry-error.js';
import { silentLogger } from '../../../src/logging/logger.js';
import { connectionFate, rawConnection } from '../../helpers/raw-connection.js';
import { send, tempSocketDir } from './agent-http.js';

const IMAGE = '872abc64-2f0b-4c7a-9d4e-3b1a2c5d6e7f';
const DOC = { image: IMAGE, store: 'site-b', needed: true, copied: false, joined: false, seconds: 0.01, target: null, why: 'x',
  image_reads: 1, import_requests: 0 };

interface Gate { open(): void; readonly promise: Promise<void> }
function gate(): Gate {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => { open = resolve; });
  return { open, promise };
}

/** A service whose ensure() answers DOC, or waits on `hold` first; it records every call. */
function fakeService(overrides: Partial<HostService> & { hold?: Gate } = {}): HostService & { calls: HostEnsureCall[] } {
  const calls: HostEnsureCall[] = [];
  const healthy: HostHealth = { token: { ok: true }, glance: { ok: true }, fsid: { ok: true, fsid: 'f' }, transfer: { ok: true } };
  return {
    calls,
    defaultStore: () => 'site-b',
    async ensure(call) {
      calls.push(call);
      if (overrides.hold) {
        await Promise.race([overrides.hold.promise, new Promise((_, reject) => {
          call.signal.addEventListener('abort', () => reject(call.signal.reason as Error), { once: true });
        })]);
      }
      call.onProgress({ imageId: IMAGE, store: call.store, phase: 'done', elapsedMs: 10, polls: 1 });
      return { document: { ...DOC, store: call.store }, importRequests: 0, joined: false, available: { source: 'copied', copiedBytes: 1024 } };
    },
    status: (imageRef) => Promise.resolve({ image: imageRef }),
    health: () => Promise.resolve(healthy),
    ...overrides,
  };
}

let socketDir: ReturnType<typeof tempSocketDir>;
let running: AgentServer | undefined;

async function start(service: HostService, options: Parameters<typeof resolveAgentOptions>[0] = {}) {
  const metrics = createAgentMetrics({ processMetrics: false });
  const server = createAgentServer({ service, metrics, logger: silentLogger,
    options: resolveAgentOptions({ socketPath: socketDir.socket, ...options }) });
  await server.listen();
  running = server;
  return { server, metrics };
}

beforeAll(() => {
  nock.enableNetConnect('localhost');
});
afterAll(() => {
  nock.disableNetConnect();
});
afterEach(async () => {
  await running?.shutdown();
  running = undefined;
  socketDir.cleanup();
});

describe('agent server', () => {
  beforeEach(() => {
    socketDir = tempSocketDir();
  });

  it('agent: POST /v1/ensure answers the service document, with the default store', async () => {
    const service = fakeService();
    await start(service);
    const answer = await send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: IMAGE }) });
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual(DOC);
    expect(service.calls.map((c) => ({ imageRef: c.imageRef, store: c.store, timeoutMs: c.timeoutMs })))
      .toEqual([{ imageRef: IMAGE, store: 'site-b', timeoutMs: undefined }]);
  });

  it('agent: store (one of --allow-store) and timeout (seconds) from the request reach the service', async () => {
    const service = fakeService();
    await start(service, { allowStores: ['site-b', 'site-a'] });
    const answer = await send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: 'cirros-raw', store: 'site-a', timeout: 2.5 }) });
    expect(answer.json()).toMatchObject({ store: 'site-a' });
    expect(service.calls[0]).toMatchObject({ imageRef: 'cirros-raw', store: 'site-a', timeoutMs: 2500 });
  });

  it.each([
    { case: 'another site\'s store', allowStores: undefined, store: 'site-a', served: ['site-b'], says: "serves store 'site-b' only" },
    { case: 'a store off the allow-list', allowStores: ['site-b', 'site-c'], store: 'site-a', served: ['site-b', 'site-c'],
      says: "serves stores 'site-b', 'site-c' only" },
  ])('agent: $case → 403 FERRY_STORE_NOT_ALLOWED naming the stores served; the service is never asked', async ({ allowStores, store, served, says }) => {
    const service = fakeService();
    const { metrics } = await start(service, allowStores === undefined ? {} : { allowStores });
    const answer = await send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: IMAGE, store }),
      headers: { accept: 'application/x-ndjson' } });
    expect(answer.status).toBe(403);
    const json = answer.json() as { error: { code: string; message: string; hint: string; details: unknown } };
    expect(json.error).toMatchObject({ code: 'FERRY_STORE_NOT_ALLOWED', details: { store, served } });
    expect(json.error.message).toBe(`store '${store}' is not served here: this ferry agent ${says}`);
    expect(json.error.hint).toContain('--allow-store');
    expect(service.calls).toEqual([]);
    expect(await metrics.registry.getSingleMetricAsString('ferry_agent_responses_total')).toContain('route="ensure",status="403"} 1');
  });

  it('agent: a store on the allow-list other than its own is served; its own store still answers a request without one', async () => {
    const service = fakeService();
    await start(service, { allowStores: ['site-b', 'site-c'] });
    expect((await send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: IMAGE, store: 'site-c' }) })).status).toBe(200);
    expect((await send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: IMAGE }) })).status).toBe(200);
    expect(service.calls.map((call) => call.store)).toEqual(['site-c', 'site-b']);
  });

  it('agent: retry_after_failed_clone (nova asks again after a failed clone) reaches the service; a request without it (a first ask, an older patch) has none', async () => {
    const service = fakeService();
    await start(service);
    const failed = { pool: 'images-c', image: IMAGE, snapshot: 'snap' };
    expect((await send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: IMAGE, retry_after_failed_clone: failed }) })).status).toBe(200);
    expect((await send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: IMAGE, store: 'site-b', timeout: 600 }) })).status).toBe(200);
    expect(service.calls.map((call) => call.failedClone)).toEqual([failed, undefined]);
  });

  it.each([
    ['bad JSON', '{"image":', /not JSON/],
    ['a failed clone without its snapshot', JSON.stringify({ image: IMAGE, retry_after_failed_clone: { pool: 'p', image: 'i' } }),
      /retry_after_failed_clone\.snapshot: /],
    ['a failed clone with an unknown field', JSON.stringify({ image: IMAGE, retry_after_failed_clone: { pool: 'p', image: 'i', snapshot: 's', fsid: 'f' } }),
      /unknown field 'fsid'/],
    ['an empty body', '', /empty request body/],
    ['an unknown field', JSON.stringify({ image: IMAGE, stores: ['x'] }), /unknown field 'stores'/],
    ['a wrong type', JSON.stringify({ image: 42 }), /image: /],
    ['a malformed image ID', JSON.stringify({ image: '872abc64-2f0b-4c7a' }), /looks like an image ID but is not a UUID/],
    ['a bad store name', JSON.stringify({ image: IMAGE, store: '../x' }), /store: letters, digits/],
    ['a negative timeout', JSON.stringify({ image: IMAGE, timeout: -1 }), /timeout: /],
    ['an array body', '[]', /body: /],
  ])('agent: %s → 400 FERRY_AGENT_BAD_REQUEST naming the problem, nothing asked of the service', async (_name, body, message) => {
    const service = fakeService();
    await start(service);
    const answer = await send(socketDir.socket, 'POST', '/v1/ensure', { body });
    expect(answer.status).toBe(400);
    const json = answer.json() as { error: { code: string; message: string; hint: string } };
    expect(json.error.code).toBe('FERRY_AGENT_BAD_REQUEST');
    expect(json.error.message).toMatch(message);
    expect(json.error.hint).not.toBe('');
    expect(service.calls).toHaveLength(0);
  });

  it('agent: a body over 64 KiB → 400, and the agent keeps serving', async () => {
    const service = fakeService();
    await start(service);
    const big = JSON.stringify({ image: IMAGE, pad: 'x'.repeat(70 * 1024) });
    const answer = await send(socketDir.socket, 'POST', '/v1/ensure', { body: big });
    expect(answer.status).toBe(400);
    expect(answer.json()).toMatchObject({ error: { code: 'FERRY_AGENT_BAD_REQUEST', message: 'request body over 65536 bytes' } });
    expect((await send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: IMAGE }) })).status).toBe(200);
  });

  it('agent: a body over 64 KiB without Content-Length (chunked) → 400', async () => {
    await start(fakeService());
    const answer = await send(socketDir.socket, 'POST', '/v1/ensure', { body: 'x'.repeat(70 * 1024), headers: { 'transfer-encoding': 'chunked' } });
    expect(answer.status).toBe(400);
  });

  it('agent: unknown route → 404, wrong method → 405 with Allow, both as error JSON', async () => {
    await start(fakeService());
    const missing = await send(socketDir.socket, 'GET', '/v2/ensure');
    expect(missing.status).toBe(404);
    expect(missing.json()).toMatchObject({ error: { code: 'FERRY_AGENT_BAD_REQUEST' } });
    const wrong = await send(socketDir.socket, 'GET', '/v1/ensure');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe('POST');
    expect((await send(socketDir.socket, 'DELETE', '/healthz')).status).toBe(405);
  });

  it('agent: a service FerryError → its status and the same code/message/hint as the CLI prints', async () => {
    const failure = new FerryError('FERRY_COPY_FAILED', 'Glance reports the copy to site-b failed', 'Look at the task.',
      { imageId: IMAGE, taskId: 'T1', token: 'must-not-leak' });
    await start(fakeService({ ensure: () => Promise.reject(failure) }));
    const answer = await send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: IMAGE }) });
    expect(answer.status).toBe(422);
    expect(answer.json()).toEqual({ error: { code: 'FERRY_COPY_FAILED', message: failure.message, hint: failure.hint,
      details: { image_id: IMAGE, task_id: 'T1', token: '<redacted>' } } });
  });

  it('agent: an unexpected error → 500 FERRY_INTERNAL without its message (which could hold anything)', async () => {
    await start(fakeService({ ensure: () => Promise.reject(new Error('token gAAAAsecret in a message')) }));
    const answer = await send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: IMAGE }) });
    expect(answer.status).toBe(500);
    expect(answer.text).not.toContain('gAAAAsecret');
    expect(answer.json()).toMatchObject({ error: { code: 'FERRY_INTERNAL' } });
  });

  it('agent: no store in the request and none configured → 400 FERRY_INVALID_OPTION', async () => {
    await start(fakeService({ defaultStore: () => undefined }));
    const answer = await send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: IMAGE }) });
    expect(answer.status).toBe(400);
    expect(answer.json()).toMatchObject({ error: { code: 'FERRY_INVALID_OPTION' } });
  });

  it('agent: Accept: application/x-ndjson streams progress lines, the document last', async () => {
    await start(fakeService());
    const answer = await send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: IMAGE }), headers: { accept: 'application/x-ndjson' } });
    expect(answer.headers['content-type']).toBe('application/x-ndjson');
    const lines = answer.text.trim().split('\n').map((line) => JSON.parse(line) as unknown);
    expect(lines).toEqual([{ progress: { image: IMAGE, store: 'site-b', phase: 'done', elapsed_seconds: 0.01, polls: 1 } }, DOC]);
  });

  it('agent: a streamed failure ends with the error line', async () => {
    await start(fakeService({ ensure: () => Promise.reject(new FerryError('FERRY_IMAGE_NOT_FOUND', 'no image', 'check')) }));
    const answer = await send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: IMAGE }), headers: { accept: 'application/x-ndjson' } });
    const lines = answer.text.trim().split('\n');
    expect(JSON.parse(lines.at(-1) ?? '')).toEqual({ error: { code: 'FERRY_IMAGE_NOT_FOUND', message: 'no image', hint: 'check', details: {} } });
  });

  it('agent: --max-waits caps distinct waits (429 FERRY_AGENT_BUSY); a request for a running wait still joins it', async () => {
    const hold = gate();
    const service = fakeService({ hold });
    await start(service, { maxWaits: 1 });
    const first = send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: IMAGE }) });
    await until(() => service.calls.length === 1);
    const joined = send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: IMAGE }) });
    await until(() => service.calls.length === 2);
    const other = await send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: 'other-image' }) });
    expect(other.status).toBe(429);
    expect(other.json()).toMatchObject({ error: { code: 'FERRY_AGENT_BUSY' } });
    hold.open();
    expect((await first).status).toBe(200);
    expect((await joined).status).toBe(200);
    expect((await send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: 'other-image' }) })).status).toBe(200);
  });

  it('agent: a client that disconnects aborts only its own call', async () => {
    const hold = gate();
    const service = fakeService({ hold });
    await start(service);
    const leaving = new AbortController();
    const gone = send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: IMAGE }), signal: leaving.signal });
    const staying = send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: IMAGE }) });
    await until(() => service.calls.length === 2);
    leaving.abort();
    await expect(gone).rejects.toThrow();
    await until(() => service.calls[0]?.signal.aborted === true);
    expect(service.calls[1]?.signal.aborted).toBe(false);
    hold.open();
    expect((await staying).status).toBe(200);
  });

  it('agent: GET /v1/images/{id} answers the status document; a malformed ID → 400', async () => {
    await start(fakeService());
    const answer = await send(socketDir.socket, 'GET', `/v1/images/${IMAGE}`);
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({ image: IMAGE });
    expect((await send(socketDir.socket, 'GET', '/v1/images/872abc64-2f0b')).status).toBe(400);
    expect((await send(socketDir.socket, 'GET', '/v1/images/%E0%A4%A')).status).toBe(400);
  });

  it('agent: /healthz is 200 when every check passes, 503 naming the failing ones', async () => {
    const health: HostHealth = { token: { ok: true }, glance: { ok: false, code: 'FERRY_UNREACHABLE', message: 'connection refused' },
      fsid: { ok: true, fsid: 'f' }, transfer: { ok: true } };
    await start(fakeService({ health: () => Promise.resolve(health) }));
    const answer = await send(socketDir.socket, 'GET', '/healthz');
    expect(answer.status).toBe(503);
    expect(answer.json()).toEqual({ ok: false, failing: ['glance'], checks: { ...health, stores: { ok: true } } });
  });

  it('agent: /metrics is Prometheus text with the ensure counters', async () => {
    await start(fakeService());
    await send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: IMAGE }) });
    await send(socketDir.socket, 'POST', '/v1/ensure', { body: '{' });
    const answer = await send(socketDir.socket, 'GET', '/metrics');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toContain('text/plain');
    expect(answer.text).toContain('ferry_agent_ensures_total{outcome="ok"} 1');
    expect(answer.text).toContain('ferry_agent_responses_total{route="ensure",status="400"} 1');
    expect(answer.text).toContain('ferry_agent_ensure_duration_seconds_count{outcome="ok"} 1');
    expect(answer.text).toContain('ferry_agent_waits_in_flight 0');
  });

  it('agent: time to available is observed per request and store; copied bytes once per copy, however many waited on it', async () => {
    const hold = gate();
    const service = fakeService({ hold });
    const { metrics } = await start(service, { allowStores: ['site-b', 'site-c'] });
    const first = send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: IMAGE }) });
    await until(() => service.calls.length === 1);
    const joined = send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: IMAGE }) });
    await until(() => service.calls.length === 2);
    hold.open();
    expect((await first).status).toBe(200);
    expect((await joined).status).toBe(200);
    await send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: IMAGE, store: 'site-c' }) });
    const text = await metrics.registry.metrics();
    expect(text).toContain('ferry_agent_copied_bytes_total{store="site-b"} 1024\n');
    expect(text).toContain('ferry_agent_copied_bytes_total{store="site-c"} 1024\n');
    expect(text).toContain('ferry_agent_time_to_available_seconds_count{store="site-b",source="copied"} 2\n');
    expect(text).toContain('ferry_agent_time_to_available_seconds_count{store="site-c",source="copied"} 1\n');
    expect(text).toContain('ferry_agent_time_to_available_seconds_bucket{le="1800",store="site-b",source="copied"} 2\n');
  });

  it('agent: no time to available for an answer without a clone target, nor for a failure', async () => {
    const { metrics } = await start(fakeService({
      ensure: (call) => Promise.resolve(call.store === 'site-b' ? { document: { ...DOC, needed: false }, importRequests: 0, joined: false }
        : Promise.reject(new FerryError('FERRY_COPY_FAILED', 'failed', 'check'))),
    }), { allowStores: ['site-b', 'site-c'] });
    expect((await send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: IMAGE }) })).status).toBe(200);
    expect((await send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: IMAGE, store: 'site-c' }) })).status).toBe(422);
    const text = await metrics.registry.metrics();
    expect(text).not.toContain('ferry_agent_time_to_available_seconds_count');
    expect(text).not.toContain('ferry_agent_copied_bytes_total{');
    expect(text).toContain('ferry_agent_ensures_total{outcome="FERRY_COPY_FAILED"} 1');
  });

  it('agent: the max_waits gauge is --max-waits', async () => {
    const { metrics } = await start(fakeService(), { maxWaits: 7 });
    expect(await metrics.registry.getSingleMetricAsString('ferry_agent_max_waits')).toContain('ferry_agent_max_waits 7');
  });

  it('agent: /healthz on the socket sets the healthy gauge', async () => {
    const health: HostHealth = { token: { ok: false, code: 'FERRY_AUTH_FAILED', message: 'no' }, glance: { ok: true }, fsid: { ok: true, fsid: 'f' },
      transfer: { ok: true } };
    const { metrics } = await start(fakeService({ health: () => Promise.resolve(health) }));
    expect((await send(socketDir.socket, 'GET', '/healthz')).status).toBe(503);
    expect(await metrics.registry.getSingleMetricAsString('ferry_agent_healthy')).toContain('ferry_agent_healthy 0');
  });
});

describe('agent lifecycle and socket', () => {
  beforeEach(() => {
    socketDir = tempSocketDir();
  });

  it('agent: the socket is created with mode 0660', async () => {
    await start(fakeService());
    expect(lstatSync(socketDir.socket).mode & 0o777).toBe(0o660);
  });

  it('agent: a stale socket file (nothing listening) is replaced', async () => {
    writeStaleSocket();
    expect(lstatSync(socketDir.socket).isSocket()).toBe(true);
    await start(fakeService());
    expect((await send(socketDir.socket, 'GET', '/healthz')).status).toBe(200);
  }, STALE_SOCKET_MS);

  it('agent: a live agent on the socket is not replaced (FERRY_AGENT_SOCKET_IN_USE)', async () => {
    await start(fakeService());
    const second = createAgentServer({ service: fakeService(), metrics: createAgentMetrics({ processMetrics: false }), logger: silentLogger,
      options: resolveAgentOptions({ socketPath: socketDir.socket }) });
    await expect(second.listen()).rejects.toMatchObject({ code: 'FERRY_AGENT_SOCKET_IN_USE' });
    expect((await send(socketDir.socket, 'GET', '/healthz')).status).toBe(200);
  });

  it('agent: a path that is not a socket is never removed', async () => {
    writeFileSync(socketDir.socket, 'data');
    const server = createAgentServer({ service: fakeService(), metrics: createAgentMetrics({ processMetrics: false }), logger: silentLogger,
      options: resolveAgentOptions({ socketPath: socketDir.socket }) });
    await expect(server.listen()).rejects.toMatchObject({ code: 'FERRY_INVALID_OPTION', message: expect.stringContaining('is not a socket') as unknown });
    expect(lstatSync(socketDir.socket).isFile()).toBe(true);
  });

  it('agent: shutdown lets a request finish within the grace, then removes the socket', async () => {
    const hold = gate();
    const service = fakeService({ hold });
    const { server } = await start(service, { shutdownGraceMs: 5_000 });
    const pending = send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: IMAGE }) });
    await until(() => service.calls.length === 1);
    const stopping = server.shutdown();
    setTimeout(() => hold.open(), 50);
    expect((await pending).status).toBe(200);
    await stopping;
    running = undefined;
    expect(() => lstatSync(socketDir.socket)).toThrow(/ENOENT/);
  });

  it('agent: a request still running after the grace gets 503 FERRY_AGENT_SHUTTING_DOWN', async () => {
    const service = fakeService({ hold: gate() });
    const { server } = await start(service, { shutdownGraceMs: 50 });
    const pending = send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: IMAGE }) });
    await until(() => service.calls.length === 1);
    await server.shutdown();
    running = undefined;
    const answer = await pending;
    expect(answer.status).toBe(503);
    expect(answer.json()).toMatchObject({ error: { code: 'FERRY_AGENT_SHUTTING_DOWN' } });
    expect(server.inFlight).toBe(0);
  });

  it('agent: garbage that is not HTTP gets 400 and closes that connection; the agent keeps serving', async () => {
    await start(fakeService());
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect(socketDir.socket);
      let text = '';
      socket.on('data', (chunk: Buffer) => { text += chunk.toString(); });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
      socket.end('\u0000\u0001 not http at all\r\n\r\n');
    });
    expect(reply).toMatch(/^HTTP\/1\.1 400/);
    expect((await send(socketDir.socket, 'GET', '/healthz')).status).toBe(200);
  });

  it('agent limits: with maxConnections 2 open, a third connection is closed before anything is read; the two still answer', async () => {
    await start(fakeService(), { maxConnections: 2 });
    const held = [await rawConnection(socketDir.socket), await rawConnection(socketDir.socket)];
    try {
      const extra = await rawConnection(socketDir.socket);
      expect(await connectionFate(extra, 'GET /healthz HTTP/1.1\r\nhost: agent\r\n\r\n', 2_000)).toBe('closed');
      for (const socket of held) expect(await connectionFate(socket, 'GET /healthz HTTP/1.1\r\nhost: agent\r\n\r\n', 2_000)).toMatch(/^HTTP\/1\.1 200/);
    } finally {
      for (const socket of held) socket.destroy();
    }
  });

  it('agent limits: a connection that sends nothing is closed once idle; a request answered after longer than that still is', async () => {
    const hold = gate();
    const service = fakeService({ hold });
    await start(service, { idleTimeoutMs: 150 });
    const silent = await rawConnection(socketDir.socket);
    expect(await connectionFate(silent, undefined, 3_000)).toBe('closed');
    const slow = send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: IMAGE }) });
    await until(() => service.calls.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    hold.open();
    expect((await slow).status).toBe(200);
  });

  it('agent limits: a request whose body never completes is cut (408) after requestTimeoutMs; an answer slower than that is not', async () => {
    const hold = gate();
    const service = fakeService({ hold });
    await start(service, { requestTimeoutMs: 300, headersTimeoutMs: 200 });
    const stalled = await rawConnection(socketDir.socket);
    const cut = connectionFate(stalled, 'POST /v1/ensure HTTP/1.1\r\nhost: agent\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"image":', 5_000);
    expect(await cut).toMatch(/^HTTP\/1\.1 408/);
    const slow = send(socketDir.socket, 'POST', '/v1/ensure', { body: JSON.stringify({ image: IMAGE }) });
    await until(() => service.calls.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 800));
    hold.open();
    expect((await slow).status).toBe(200);
  });

  it('agent options: the limits default to AGENT_DEFAULTS; a headers timeout over the request timeout is refused', () => {
    expect(resolveAgentOptions({})).toMatchObject({ maxConnections: 256, requestTimeoutMs: 30_000, headersTimeoutMs: 10_000, idleTimeoutMs: 30_000 });
    expect(() => resolveAgentOptions({ requestTimeoutMs: 1_000, headersTimeoutMs: 2_000 })).toThrow(/headersTimeoutMs must be at most requestTimeoutMs/);
    expect(() => resolveAgentOptions({ allowStores: ['site-b', '../x'] }, { allowStores: '--allow-store' }))
      .toThrow(/allowStores must be a Glance store id .* \(from --allow-store\)/);
  });

  it('agent options: a bad --max-waits is refused naming the option and where it came from', () => {
    expect(() => resolveAgentOptions({ maxWaits: 0 }, { maxWaits: '--max-waits' }))
      .toThrow(/maxWaits must be .*got 0 \(from --max-waits\)/);
    expect(() => resolveAgentOptions({ socketPath: 'relative.sock' })).toThrow(/an absolute path/);
  });
});

/** python3 binding the stale socket: the test that makes one has this limit (the agent's start is in-process, at once). */
const STALE_SOCKET_MS = 15_000;

/** A crashed agent leaves a socket inode nobody accepts on (net.Server.close() would unlink it, so bind one with Python). */
function writeStaleSocket(): void {
  execFileSync('python3', ['-c', `import socket; s=socket.socket(socket.AF_UNIX); s.bind(${JSON.stringify(socketDir.socket)})`], { timeout: STALE_SOCKET_MS });
}



async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
}
