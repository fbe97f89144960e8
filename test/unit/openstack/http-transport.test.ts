import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFerryError, type FerryError } from '../../../src/errors/ferry-error.js';
import { createHttpTransport, stripQuery, type HttpTransportOptions } from '../../../src/openstack/http-transport.js';
import { GLANCE_ROOT, loadExchange, replay } from '../../helpers/fixtures.js';
import { socketError } from '../../helpers/socket-error.js';

const transport = createHttpTransport();
afterAll(() => transport.close());

describe('createHttpTransport: through nock', () => {
  it('createHttpTransport: its requests (node:http with a keep-alive Agent) reach nock, headers and JSON body included', async () => {
    const exchange = loadExchange('glance', 'import-202');
    const scope = nock(GLANCE_ROOT, { reqheaders: { accept: 'application/json', 'user-agent': 'ferry',
      'content-type': 'application/json', 'x-auth-token': 'placeholder-token' } });
    replay(scope, exchange);
    const response = await transport.send({ method: 'POST', url: `${GLANCE_ROOT}${exchange.request.path}`,
      headers: { 'x-auth-token': 'placeholder-token' }, body: exchange.request.body });
    expect(response.status).toBe(202);
    expect(scope.isDone()).toBe(true);
  });

  it('createHttpTransport: a host nobody mocked is refused by nock, never reached', async () => {
    const error = transport.send({ method: 'GET', url: 'http://127.0.0.1:19393/v2/images' });
    await expect(error).rejects.toMatchObject({ code: 'FERRY_UNREACHABLE',
      message: expect.stringContaining('Nock: Disallowed net connect') as unknown, cause: { name: 'NetConnectNotAllowedError' } });
  });
});

describe('createHttpTransport: bodies', () => {
  it('createHttpTransport: a JSON body is parsed, and the request id is read', async () => {
    const exchange = loadExchange('glance', 'info-import');
    const scope = replay(nock(GLANCE_ROOT), exchange);
    const response = await transport.send({ method: 'GET', url: `${GLANCE_ROOT}/v2/info/import` });
    expect(response).toEqual({ status: 200, headers: exchange.headers, body: exchange.body,
      requestId: exchange.headers['x-openstack-request-id'] });
    expect(scope.isDone()).toBe(true);
  });

  it('createHttpTransport: the empty text/html body of a 202 is undefined', async () => {
    const exchange = loadExchange('glance', 'import-202');
    const scope = replay(nock(GLANCE_ROOT), exchange);
    const response = await transport.send({ method: 'POST', url: `${GLANCE_ROOT}${exchange.request.path}`, body: exchange.request.body });
    expect(response).toMatchObject({ status: 202, body: undefined, requestId: exchange.headers['x-openstack-request-id'] });
    expect(scope.isDone()).toBe(true);
  });

  it('createHttpTransport: JSON sent as text/plain is still parsed (it starts with { )', async () => {
    const exchange = loadExchange('glance', 'image-404');
    const scope = replay(nock(GLANCE_ROOT), exchange, { headers: { 'content-type': 'text/plain' } });
    const response = await transport.send({ method: 'GET', url: `${GLANCE_ROOT}${exchange.request.path}` });
    expect(response.body).toEqual(exchange.body);
    expect(scope.isDone()).toBe(true);
  });

  it('createHttpTransport: a text body stays text', async () => {
    // Glance's 401 without Accept: application/json is an HTML page (keystone.md §9).
    const scope = nock(GLANCE_ROOT).get('/v2/images').reply(401, '<html><body>401 Unauthorized</body></html>',
      { 'content-type': 'text/html; charset=UTF-8' });
    const response = await transport.send({ method: 'GET', url: `${GLANCE_ROOT}/v2/images` });
    expect(response.body).toBe('<html><body>401 Unauthorized</body></html>');
    expect(scope.isDone()).toBe(true);
  });

  it('createHttpTransport: a body that claims JSON but is not stays text', async () => {
    const scope = nock(GLANCE_ROOT).get('/v2/images').reply(500, '{truncated', { 'content-type': 'application/json' });
    const response = await transport.send({ method: 'GET', url: `${GLANCE_ROOT}/v2/images` });
    expect(response.body).toBe('{truncated');
    expect(scope.isDone()).toBe(true);
  });

  it('createHttpTransport: x-compute-request-id is the request id when there is no x-openstack-request-id', async () => {
    const scope = nock(GLANCE_ROOT).get('/v2/info/stores').reply(204, '', { 'x-compute-request-id': 'req-compute-1' });
    const response = await transport.send({ method: 'GET', url: `${GLANCE_ROOT}/v2/info/stores` });
    expect(response).toMatchObject({ status: 204, body: undefined, requestId: 'req-compute-1' });
    expect(scope.isDone()).toBe(true);
  });
});

describe('createHttpTransport: errors', () => {
  it('createHttpTransport: connection refused → FERRY_UNREACHABLE, retryable, notSent, URL without its query', async () => {
    const scope = nock(GLANCE_ROOT).get('/v2/images').query({ name: 'x' }).replyWithError(socketError('ECONNREFUSED'));
    await expect(transport.send({ method: 'GET', url: `${GLANCE_ROOT}/v2/images?name=x` })).rejects.toMatchObject({
      code: 'FERRY_UNREACHABLE',
      details: { method: 'GET', url: `${GLANCE_ROOT}/v2/images`, cause: 'ECONNREFUSED', retryable: true, notSent: true },
    });
    expect(scope.isDone()).toBe(true);
  });

  it('createHttpTransport: a reset connection → FERRY_UNREACHABLE that may have been sent', async () => {
    const { request } = loadExchange('glance', 'import-202');
    const scope = nock(GLANCE_ROOT).post(request.path, request.body as nock.RequestBodyMatcher).replyWithError(socketError('ECONNRESET'));
    await expect(transport.send({ method: 'POST', url: `${GLANCE_ROOT}${request.path}`, body: request.body }))
      .rejects.toMatchObject({ code: 'FERRY_UNREACHABLE', details: { cause: 'ECONNRESET', retryable: true, notSent: false } });
    expect(scope.isDone()).toBe(true);
  });

  it('createHttpTransport: aborting while the answer is delayed → FERRY_ABORTED at once', async () => {
    const scope = nock(GLANCE_ROOT).get('/v2/info/import').delay(5_000).reply(200, '{}');
    const controller = new AbortController();
    const pending = transport.send({ method: 'GET', url: `${GLANCE_ROOT}/v2/info/import`, signal: controller.signal });
    setTimeout(() => controller.abort(), 5);
    await expect(pending).rejects.toMatchObject({ code: 'FERRY_ABORTED', details: { method: 'GET', url: `${GLANCE_ROOT}/v2/info/import` } });
    expect(scope.isDone()).toBe(true);
  });

  it('createHttpTransport: an already aborted signal → FERRY_ABORTED', async () => {
    await expect(transport.send({ method: 'GET', url: `${GLANCE_ROOT}/v2/info/import`, signal: AbortSignal.abort() }))
      .rejects.toMatchObject({ code: 'FERRY_ABORTED' });
  });

  it('createHttpTransport: an unreadable CA file → FERRY_INVALID_OPTION naming it', () => {
    expect(() => createHttpTransport({ caFile: '/nonexistent/ca.pem' })).toThrow(
      expect.objectContaining({ code: 'FERRY_INVALID_OPTION', details: { caFile: '/nonexistent/ca.pem' } }) as Error);
  });

});

// The phase timers are seen against real loopback servers that misbehave on purpose: nock's socket connects at once,
// and its .delay() is not a silent server.
describe('createHttpTransport: its timers, against real loopback servers', () => {
  const sockets = new Set<Socket>();
  let silent: { server: NetServer; url: string };
  let stalling: { server: NetServer; url: string };

  async function listen(onSocket: (socket: Socket) => void): Promise<{ server: NetServer; url: string }> {
    const server = createNetServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.once('data', () => onSocket(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  }

  beforeAll(async () => {
    nock.enableNetConnect('127.0.0.1');
    silent = await listen(() => undefined); // reads the request, never answers
    stalling = await listen((socket) => socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n'
      + 'content-length: 1000\r\n\r\n{"images": [')); // headers and 12 of 1000 bytes, then silence
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await Promise.all([silent, stalling].map(({ server }) => new Promise((resolve) => server.close(resolve))));
    nock.disableNetConnect();
  });

  async function failureOf(url: string, options: HttpTransportOptions): Promise<FerryError> {
    const timed = createHttpTransport(options);
    try {
      const error = await timed.send({ method: 'GET', url: `${url}/v2/images` }).then(() => undefined, (e: unknown) => e);
      if (!isFerryError(error)) throw new Error(`expected a FerryError, got ${String(error)}`);
      return error;
    } finally {
      await timed.close();
    }
  }

  it('createHttpTransport: no answer within responseTimeoutMs → FERRY_TIMEOUT_RESPONSE naming the request', async () => {
    const started = performance.now();
    const error = await failureOf(silent.url, { responseTimeoutMs: 300, bodyTimeoutMs: 10_000 });
    expect(error.code).toBe('FERRY_TIMEOUT_RESPONSE');
    expect(error.message).toContain('GET');
    expect(error.message).toContain('/v2/images');
    expect(performance.now() - started).toBeGreaterThanOrEqual(250); // the timer fired, not an immediate refusal
  });

  it('createHttpTransport: a body stalled past bodyTimeoutMs → FERRY_TIMEOUT_BODY', async () => {
    const error = await failureOf(stalling.url, { responseTimeoutMs: 10_000, bodyTimeoutMs: 300 });
    expect(error.code).toBe('FERRY_TIMEOUT_BODY');
    expect(error.message).toContain('stalled');
  });
});

// nock sends every request through its own agent, which keeps nothing alive (`connection: close` on each, even one it
// lets through), so here nock is switched off and the pool is seen from a real loopback server: which connection each
// request came on, and what it said.
describe('createHttpTransport: pooled and fresh connections, against a real loopback server', () => {
  const seen: { connection: string | undefined; port: number | undefined }[] = [];
  const server = createHttpServer((request, response) => {
    seen.push({ connection: request.headers.connection, port: request.socket.remotePort });
    response.end('{}');
  });
  let url = '';

  beforeAll(async () => {
    nock.restore();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2/images/x/import`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    nock.activate();
  });

  it('createHttpTransport: pooled requests share one keep-alive connection; a fresh one says `connection: close` on its own', async () => {
    const pooled = createHttpTransport();
    try {
      await pooled.send({ method: 'POST', url, body: {} });
      await pooled.send({ method: 'POST', url, body: {} });
      await pooled.send({ method: 'POST', url, body: {}, connection: 'fresh' });
      await pooled.send({ method: 'POST', url, body: {}, connection: 'fresh' });
    } finally {
      await pooled.close();
    }
    expect(seen.map((s) => s.connection)).toEqual(['keep-alive', 'keep-alive', 'close', 'close']);
    expect(seen[1]?.port).toBe(seen[0]?.port);
    expect(new Set(seen.map((s) => s.port)).size).toBe(3);
  });
});

describe('stripQuery', () => {
  it.each([
    { url: `${GLANCE_ROOT}/v2/images?name=x&limit=2`, expected: `${GLANCE_ROOT}/v2/images` },
    { url: `${GLANCE_ROOT}/v2/images`, expected: `${GLANCE_ROOT}/v2/images` },
  ])('stripQuery($url)', ({ url, expected }) => {
    expect(stripQuery(url)).toBe(expected);
  });
});
