import { request } from 'node:http';
import nock from 'nock';
import { Counter, Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/logging/logger.js';
import { connectionFate, rawConnection } from '../../helpers/raw-connection.js';
import { METRICS_LISTENER_DEFAULTS, startMetricsListener, type HealthAnswer, type MetricsListener, type MetricsListenerLimits } from '../../../src/metrics/metrics-listener.js';

interface Answer { readonly status: number; readonly type: string | undefined; readonly text: string }

function send(port: number, method: string, path: string, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: body === undefined ? {} : { 'content-type': 'application/json' } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => { text += chunk; });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, type: response.headers['content-type'], text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

let listeners: MetricsListener[] = [];
beforeAll(() => nock.enableNetConnect('127.0.0.1'));
afterAll(() => nock.disableNetConnect());
afterEach(async () => {
  await Promise.all(listeners.map((listener) => listener.close()));
  listeners = [];
});

async function start(health: (signal: AbortSignal) => Promise<HealthAnswer> = () => Promise.resolve({ ok: true, body: { ok: true } }),
  limits: Partial<MetricsListenerLimits> = {}) {
  const registry = new Registry();
  const counter = new Counter({ name: 'ferry_test_things_total', help: 'things', registers: [registry] });
  counter.inc(3);
  const listener = await startMetricsListener({ address: { host: '127.0.0.1', port: 0 }, from: '--metrics-listen', registry, health,
    healthTimeoutMs: 1000, logger: silentLogger, limits });
  listeners.push(listener);
  return listener;
}

describe('metrics listener', () => {
  it('metrics listener: GET /metrics is the registry in Prometheus text format', async () => {
    const { address } = await start();
    expect(address.port).toBeGreaterThan(0);
    const answer = await send(address.port, 'GET', '/metrics');
    expect(answer.status).toBe(200);
    expect(answer.type).toContain('text/plain; version=0.0.4');
    expect(answer.text).toContain('# TYPE ferry_test_things_total counter\nferry_test_things_total 3\n');
  });

  it('metrics listener: GET /metrics?x=1 ignores the query', async () => {
    const { address } = await start();
    expect((await send(address.port, 'GET', '/metrics?name[]=up')).status).toBe(200);
  });

  it('metrics listener: GET /healthz is 200 with the body when healthy, 503 when not', async () => {
    let ok = true;
    const { address } = await start(() => Promise.resolve({ ok, body: { ok, failing: ok ? [] : ['glance'] } }));
    const good = await send(address.port, 'GET', '/healthz');
    expect(good).toMatchObject({ status: 200, type: 'application/json' });
    expect(JSON.parse(good.text)).toEqual({ ok: true, failing: [] });
    ok = false;
    const bad = await send(address.port, 'GET', '/healthz');
    expect(bad.status).toBe(503);
    expect(JSON.parse(bad.text)).toEqual({ ok: false, failing: ['glance'] });
  });

  it('metrics listener: /healthz gets a signal bounded by the health timeout', async () => {
    let seen: AbortSignal | undefined;
    const { address } = await start((signal) => {
      seen = signal;
      return Promise.resolve({ ok: true, body: {} });
    });
    await send(address.port, 'GET', '/healthz');
    expect(seen).toBeInstanceOf(AbortSignal);
    expect(seen?.aborted).toBe(false);
  });

  it.each([
    { method: 'POST', path: '/v1/ensure', body: '{"image":"cirros"}' },
    { method: 'GET', path: '/v1/images/cirros' },
    { method: 'GET', path: '/' },
    { method: 'POST', path: '/metrics', body: '{}' },
    { method: 'DELETE', path: '/metrics' },
    { method: 'PUT', path: '/healthz', body: '{}' },
    { method: 'GET', path: '/metrics/' },
    { method: 'GET', path: '/healthz/extra' },
    { method: 'GET', path: '/METRICS' },
    { method: 'HEAD', path: '/metrics' },
  ])('metrics listener: $method $path → 404 (only GET /metrics and GET /healthz are served)', async ({ method, path, body }) => {
    let healthCalls = 0;
    const { address } = await start(() => {
      healthCalls += 1;
      return Promise.resolve({ ok: true, body: {} });
    });
    const answer = await send(address.port, method, path, body);
    expect(answer.status).toBe(404);
    if (method !== 'HEAD') expect(answer.text).toBe('not found: this listener serves only GET /metrics and GET /healthz\n');
    expect(healthCalls).toBe(0);
  });

  it('metrics listener: a health check that throws answers 500, and the listener goes on serving', async () => {
    const { address } = await start(() => Promise.reject(new Error('boom')));
    expect((await send(address.port, 'GET', '/healthz')).status).toBe(500);
    expect((await send(address.port, 'GET', '/metrics')).status).toBe(200);
  });

  it('metrics listener: an address in use is FERRY_INVALID_OPTION naming the option, the address and why', async () => {
    const first = await start();
    await expect(startMetricsListener({ address: { host: '127.0.0.1', port: first.address.port }, from: '--metrics-listen',
      registry: new Registry(), health: () => Promise.resolve({ ok: true, body: {} }), healthTimeoutMs: 1000, logger: silentLogger }))
      .rejects.toMatchObject({ code: 'FERRY_INVALID_OPTION',
        message: `--metrics-listen 127.0.0.1:${first.address.port}: cannot listen: the address is in use (another process listens there)` });
  });

  it('metrics listener: the limits default to 8 connections, 5 s to send a request, 15 s idle', () => {
    expect(METRICS_LISTENER_DEFAULTS).toEqual({ maxConnections: 8, headersTimeoutMs: 5_000, requestTimeoutMs: 5_000, idleTimeoutMs: 15_000,
      keepAliveTimeoutMs: 5_000 });
  });

  it('metrics listener: with maxConnections open, one more is closed before it is read; the open ones still answer', async () => {
    const { address } = await start(undefined, { maxConnections: 3 });
    const held = await Promise.all([1, 2, 3].map(() => rawConnection({ host: '127.0.0.1', port: address.port })));
    try {
      expect(await connectionFate(await rawConnection({ host: '127.0.0.1', port: address.port }), 'GET /metrics HTTP/1.1\r\nhost: x\r\n\r\n', 2_000)).toBe('closed');
      for (const socket of held) expect(await connectionFate(socket, 'GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n', 2_000)).toBe('HTTP/1.1 200 OK');
    } finally {
      for (const socket of held) socket.destroy();
    }
  });

  it('metrics listener: a connection that never sends a request is closed once idle', async () => {
    const { address } = await start(undefined, { idleTimeoutMs: 150 });
    expect(await connectionFate(await rawConnection({ host: '127.0.0.1', port: address.port }), undefined, 3_000)).toBe('closed');
  });

  it('metrics listener: close() frees the port', async () => {
    const listener = await start();
    await listener.close();
    listeners = [];
    await expect(send(listener.address.port, 'GET', '/metrics')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});


