// The fault proxy of the integration tests, against a tiny upstream on loopback. The unit suite forbids real network
// (nock); this file lets through 127.0.0.1 only, where the upstream and the proxy listen.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BAD_JSON, HTML_PAGE, startFaultProxy, type FaultProxy } from '../../helpers/fault-proxy.js';

const IMAGE = JSON.stringify({ id: 'img-1', status: 'active', stores: 'central', padding: 'x'.repeat(2000) });
let upstream: Server;
let upstreamUrl = '';
const seen: string[] = [];

beforeAll(async () => {
  nock.enableNetConnect((host) => host.startsWith('127.0.0.1:'));
  upstream = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => {
      if (req.method === 'POST') {
        res.writeHead(202, { 'x-openstack-request-id': 'req-abc', 'content-length': 0 });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'x-openstack-request-id': 'req-get' });
      res.end(IMAGE); // chunked: the proxy must still declare a length
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
  nock.disableNetConnect();
});

let proxy: FaultProxy;
afterEach(async () => {
  await proxy.close();
  seen.splice(0);
});

const get = (path = '/v2/images/img-1', signal?: AbortSignal) => fetch(`${proxy.url}${path}`, signal ? { signal } : {});
const post = () => fetch(`${proxy.url}/v2/images/img-1/import`, { method: 'POST', body: '{"method":{"name":"copy-image"}}',
  headers: { connection: 'close' } });
const cause = async (promise: Promise<unknown>): Promise<string> => {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error, 'expected the request to fail').toBeInstanceOf(Error);
  const { cause: inner } = error as { cause?: { code?: string; name?: string } };
  return inner?.code ?? inner?.name ?? (error as Error).name;
};

describe('fault proxy', () => {
  it('fault proxy: forwards by default and logs the upstream status and request id', async () => {
    proxy = await startFaultProxy(upstreamUrl);
    const response = await get();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(IMAGE)));
    expect(await response.text()).toBe(IMAGE);
    expect(seen).toEqual(['GET /v2/images/img-1']);
    expect(proxy.log).toMatchObject([{ method: 'GET', path: '/v2/images/img-1', action: 'forwarded', status: 200, requestId: 'req-get' }]);
  });

  it('fault proxy: a 503 rule hits only the nth matching request and does not forward it', async () => {
    proxy = await startFaultProxy(upstreamUrl);
    proxy.add({ method: 'GET', path: /^\/v2\/images\/[^/]+$/, nth: 2, fault: { kind: 'status', status: 503 } });
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await get()).status);
    expect(statuses).toEqual([200, 503, 200]);
    expect(seen).toHaveLength(2);
    expect(proxy.log.map((e) => e.action)).toEqual(['forwarded', 'status', 'forwarded']);
  });

  it('fault proxy: a 502 has an HTML body; times counts the requests a rule covers', async () => {
    proxy = await startFaultProxy(upstreamUrl);
    proxy.add({ path: /images/, times: 2, fault: { kind: 'status', status: 502 } });
    const first = await get();
    expect(first.status).toBe(502);
    expect(first.headers.get('content-type')).toBe('text/html');
    expect(await first.text()).toContain('<h1>502 Bad Gateway</h1>');
    expect((await get()).status).toBe(502);
    expect((await get()).status).toBe(200);
  });

  it('fault proxy: reset before forwarding: the client loses the connection and the upstream sees nothing', async () => {
    proxy = await startFaultProxy(upstreamUrl);
    proxy.add({ method: 'POST', path: /\/import$/, fault: { kind: 'reset-before' } });
    expect(await cause(post())).toMatch(/ECONNRESET|UND_ERR_SOCKET/);
    expect(seen).toEqual([]);
    expect(proxy.entries('POST', /\/import$/)).toMatchObject([{ action: 'reset-before' }]);
  });

  it('fault proxy: reset after forwarding: the upstream answered 202, the client loses the connection', async () => {
    proxy = await startFaultProxy(upstreamUrl);
    proxy.add({ method: 'POST', path: /\/import$/, fault: { kind: 'reset-after' } });
    expect(await cause(post())).toMatch(/ECONNRESET|UND_ERR_SOCKET/);
    expect(seen).toEqual(['POST /v2/images/img-1/import']);
    expect(proxy.log).toMatchObject([{ action: 'reset-after', upstreamStatus: 202, requestId: 'req-abc' }]);
    expect(proxy.log[0]?.status).toBeUndefined();
  });

  it('fault proxy: thenRefuse closes the listener before the client sees the fault', async () => {
    proxy = await startFaultProxy(upstreamUrl);
    proxy.add({ method: 'POST', path: /\/import$/, fault: { kind: 'reset-after' }, thenRefuse: true });
    await cause(post());
    expect(proxy.refusing).toBe(true);
    expect(await cause(get())).toBe('ECONNREFUSED');
    await proxy.resume();
    expect((await get()).status).toBe(200);
  });

  it('fault proxy: hang never answers and never forwards', async () => {
    proxy = await startFaultProxy(upstreamUrl);
    proxy.add({ path: /images/, fault: { kind: 'hang' } });
    expect(await cause(get('/v2/images/img-1', AbortSignal.timeout(300)))).toBe('TimeoutError');
    expect(seen).toEqual([]);
    expect(proxy.log).toMatchObject([{ action: 'hang' }]);
  });

  it('fault proxy: slow body arrives whole, in many small pieces', async () => {
    proxy = await startFaultProxy(upstreamUrl);
    proxy.add({ path: /images/, fault: { kind: 'slow-body', chunkBytes: 512, intervalMs: 20 } });
    const response = await get();
    const pieces: Uint8Array[] = [];
    for await (const piece of response.body as AsyncIterable<Uint8Array>) pieces.push(piece);
    expect(Buffer.concat(pieces).toString()).toBe(IMAGE);
    expect(pieces.length).toBeGreaterThanOrEqual(3);
  });

  it('fault proxy: a stalled body sends the headers and the first bytes, then nothing', async () => {
    proxy = await startFaultProxy(upstreamUrl);
    proxy.add({ path: /images/, fault: { kind: 'stall-body', afterBytes: 10 } });
    const controller = new AbortController();
    const response = await get('/v2/images/img-1', controller.signal);
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value ?? []).toString()).toBe(IMAGE.slice(0, 10));
    const next = reader.read();
    const timer = setTimeout(() => controller.abort(new Error('stalled')), 300);
    await expect(next).rejects.toThrow('stalled');
    clearTimeout(timer);
  });

  it('fault proxy: a truncated body declares the full length, sends fewer bytes and closes', async () => {
    proxy = await startFaultProxy(upstreamUrl);
    proxy.add({ path: /images/, fault: { kind: 'truncate', keepBytes: 100 } });
    const response = await get();
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(IMAGE)));
    await expect(response.text()).rejects.toThrow();
    expect(proxy.log).toMatchObject([{ action: 'truncate', upstreamStatus: 200 }]);
  });

  it.each([
    { kind: 'html-200' as const, type: 'text/html; charset=UTF-8', body: HTML_PAGE },
    { kind: 'bad-json-200' as const, type: 'application/json', body: BAD_JSON },
  ])('fault proxy: $kind answers 200 with what a JSON client cannot parse', async ({ kind, type, body }) => {
    proxy = await startFaultProxy(upstreamUrl);
    proxy.add({ path: /images/, fault: { kind } });
    const response = await get();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(type);
    const text = await response.text();
    expect(text).toBe(body);
    expect(() => JSON.parse(text) as unknown).toThrow(SyntaxError);
    expect(seen).toEqual([]);
  });

  it('fault proxy: refuse closes open keep-alive connections too; resume listens on the same port', async () => {
    proxy = await startFaultProxy(upstreamUrl);
    expect((await get()).status).toBe(200); // leaves a pooled connection open
    await proxy.refuse();
    expect(await cause(get())).toMatch(/ECONNREFUSED|UND_ERR_SOCKET|ECONNRESET/);
    await proxy.resume();
    expect((await get()).status).toBe(200);
    expect(seen).toHaveLength(2);
  });

  it('fault proxy: waitFor resolves on a later request and rejects after its timeout', async () => {
    proxy = await startFaultProxy(upstreamUrl);
    const waiting = proxy.waitFor((e) => e.method === 'POST', 2_000);
    await post();
    await expect(waiting).resolves.toMatchObject({ method: 'POST', status: 202 });
    await expect(proxy.waitFor((e) => e.method === 'DELETE', 50)).rejects.toThrow(/no matching request within 50 ms/);
  });
});
