import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFerryError, type FerryError } from '../../../src/errors/ferry-error.js';
import { createHttpTransport, type HttpRequest, type HttpTransportOptions } from '../../../src/openstack/http-transport.js';
import { createSession } from '../../../src/openstack/keystone-session.js';
import { formatBytes } from '../../../src/openstack/read-bounded-body.js';
import { SERVICE_BODY_LIMITS } from '../../../src/openstack/service-body-limits.js';
import { connectCloud } from '../../../src/cloud/connect-cloud.js';
import { resolveConfig } from '../../../src/config/resolve-config.js';
import { GLANCE_ROOT, KEYSTONE_ROOT, loadExchange, RECORDED_AUTH } from '../../helpers/fixtures.js';
import { runFerry } from '../../helpers/run-ferry.js';

// Bounded answers: a body larger than its cap, or one that takes longer than its deadline, ends the request with one
// coded error naming the service, the URL and the bound, and the connection is dropped rather than drained.

const MiB = 1 << 20;
const PLACEMENT_ROOT = 'http://127.0.0.1:18779';
const IMAGE_ID = '3f1c9b52-4d4e-4d1a-9d6e-1b2c3d4e5f60';

const transports: { close(): Promise<void> }[] = [];
afterAll(() => Promise.all(transports.map((t) => t.close())));
function transportWith(options: HttpTransportOptions = {}): ReturnType<typeof createHttpTransport> {
  const transport = createHttpTransport(options);
  transports.push(transport);
  return transport;
}

async function failureOf(promise: Promise<unknown>): Promise<FerryError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  if (!isFerryError(error)) throw new Error(`expected a FerryError, got ${String(error)}`);
  return error;
}

/** A body streamed in `chunkBytes` pieces every `everyMs`, `chunks` of them; `sent()` counts those handed over. */
function slowStream(chunks: number, chunkBytes: number, everyMs: number): { stream: Readable; sent: () => number } {
  let sent = 0;
  const stream = new Readable({
    read() {
      if (sent >= chunks) {
        this.push(null);
        return;
      }
      setTimeout(() => {
        sent += 1;
        this.push(Buffer.alloc(chunkBytes, 0x20));
      }, everyMs);
    },
  });
  return { stream, sent: () => sent };
}

const get = (path: string, extra: Partial<HttpRequest> = {}): HttpRequest =>
  ({ method: 'GET', url: `${GLANCE_ROOT}${path}`, service: 'Glance', ...extra });

describe('createHttpTransport: response size caps (nock)', () => {
  it('a content-length over the cap is refused before the body is read: FERRY_BAD_RESPONSE naming Glance, the URL and the cap', async () => {
    const scope = nock(GLANCE_ROOT).get('/v2/images').query(true)
      .reply(200, '{"images": []}', { 'content-type': 'application/json', 'content-length': String(40 * MiB) });
    const error = await failureOf(transportWith().send(get('/v2/images?limit=200', { maxBodyBytes: 32 * MiB })));
    expect(error.code).toBe('FERRY_BAD_RESPONSE');
    expect(error.message).toBe(`Glance's answer to GET ${GLANCE_ROOT}/v2/images is larger than the 32 MiB ferry reads from Glance: `
      + 'it announces 40 MiB (content-length); the connection was closed');
    expect(error.details).toMatchObject({ service: 'Glance', url: `${GLANCE_ROOT}/v2/images`, maxBytes: 32 * MiB, declaredBytes: 40 * MiB });
    expect(scope.isDone()).toBe(true);
  });

  it('a lying content-length (100 bytes said, 4 MiB sent): node:http reads the 100 bytes announced, never more', async () => {
    const scope = nock(GLANCE_ROOT).get(`/v2/images/${IMAGE_ID}`)
      .reply(200, () => Buffer.alloc(4 * MiB, 0x20), { 'content-type': 'text/plain', 'content-length': '100' });
    const response = await transportWith().send(get(`/v2/images/${IMAGE_ID}`, { maxBodyBytes: MiB }));
    expect(response.body).toBe(' '.repeat(100));
    expect(scope.isDone()).toBe(true);
  });

  it('a body streamed slowly and larger than the cap is refused at the cap, not after the whole body', async () => {
    // 64 KiB every 5 ms, 200 pieces (12.5 MiB); the cap is 1 MiB, passed at the 17th piece. (nock drains its source
    // stream whatever the client does: that the socket closes is shown against a real server below.)
    const body = slowStream(200, 64 * 1024, 5);
    const scope = nock(GLANCE_ROOT).get('/v2/images').reply(200, () => body.stream, { 'content-type': 'application/json' });
    const error = await failureOf(transportWith().send(get('/v2/images', { maxBodyBytes: MiB })));
    expect(error).toMatchObject({ code: 'FERRY_BAD_RESPONSE', details: { maxBytes: MiB } });
    expect(error.details.receivedBytes).toBeGreaterThan(MiB);
    expect(error.details.receivedBytes).toBeLessThan(2 * MiB);
    expect(body.sent()).toBeLessThan(30);
    expect(scope.isDone()).toBe(true);
  });

  it('a body under its cap is read whole and parsed (the cap is not an off-by-one: exactly the cap is fine)', async () => {
    const exchange = loadExchange('glance', 'images-list-page1');
    const text = JSON.stringify(exchange.body);
    const scope = nock(GLANCE_ROOT).get('/v2/images').reply(200, text, { 'content-type': 'application/json' });
    const response = await transportWith().send(get('/v2/images', { maxBodyBytes: Buffer.byteLength(text) }));
    expect(response.body).toEqual(exchange.body);
    expect(scope.isDone()).toBe(true);
  });

  it('a request that names no cap gets the transport\'s (maxBodyBytes), and the URL\'s host names the service', async () => {
    const scope = nock(GLANCE_ROOT).get('/v2/info/import').reply(200, () => Buffer.alloc(3000, 0x20));
    const error = await failureOf(transportWith({ maxBodyBytes: 2048 }).send({ method: 'GET', url: `${GLANCE_ROOT}/v2/info/import` }));
    expect(error.message).toContain(`${new URL(GLANCE_ROOT).host}'s answer to GET ${GLANCE_ROOT}/v2/info/import is larger than the 2 KiB`);
    expect(scope.isDone()).toBe(true);
  });
});

describe('createHttpTransport: the body deadline (nock)', () => {
  it('a body trickled in under the idle timeout still ends at bodyDeadlineMs: FERRY_TIMEOUT_BODY, too slowly', async () => {
    // 16 bytes every 20 ms for 4 s: never silent long enough for the idle timeout, never near the cap.
    const body = slowStream(200, 16, 20);
    const scope = nock(GLANCE_ROOT).get(`/v2/images/${IMAGE_ID}/tasks`).reply(200, () => body.stream, { 'content-type': 'application/json' });
    const started = performance.now();
    const error = await failureOf(transportWith({ bodyDeadlineMs: 300, bodyTimeoutMs: 10_000 }).send(get(`/v2/images/${IMAGE_ID}/tasks`)));
    expect(error.code).toBe('FERRY_TIMEOUT_BODY');
    expect(error.message).toMatch(new RegExp(`^Glance sent its answer to GET ${GLANCE_ROOT}/v2/images/${IMAGE_ID}/tasks too slowly: \\d+ bytes in 0\\.\\d s, `
      + 'and ferry allows 0.3 s for a body; the connection was closed$'));
    expect(error.details).toMatchObject({ cause: 'body-deadline', deadlineMs: 300, retryable: true });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(scope.isDone()).toBe(true);
  });

  it('the caller\'s abort while a body streams is still FERRY_ABORTED, not a size or time verdict', async () => {
    const body = slowStream(200, 16, 20);
    const scope = nock(GLANCE_ROOT).get('/v2/images').reply(200, () => body.stream);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await failureOf(transportWith().send(get('/v2/images', { signal: controller.signal })));
    expect(error.code).toBe('FERRY_ABORTED');
    expect(scope.isDone()).toBe(true);
  });
});

describe('per-service caps', () => {
  it('Keystone: a token answer over SERVICE_BODY_LIMITS.keystone is FERRY_BAD_RESPONSE naming Keystone and 8 MiB', async () => {
    const scope = nock(KEYSTONE_ROOT).post('/v3/auth/tokens')
      .reply(201, '{}', { 'content-type': 'application/json', 'x-subject-token': 'placeholder', 'content-length': String(9 * MiB) });
    const session = createSession({ auth: RECORDED_AUTH.admin, endpoints: {}, transport: transportWith(),
      retry: { retries: 0, minDelayMs: 1, maxDelayMs: 1 } });
    const error = await failureOf(session.token());
    expect(SERVICE_BODY_LIMITS.keystone).toBe(8 * MiB);
    expect(error).toMatchObject({ code: 'FERRY_BAD_RESPONSE', details: { service: 'Keystone', maxBytes: 8 * MiB } });
    expect(error.message).toContain(`Keystone's answer to POST ${KEYSTONE_ROOT}/v3/auth/tokens is larger than the 8 MiB ferry reads from Keystone`);
    expect(scope.isDone()).toBe(true);
  });

  it('connectCloud: Placement reads up to SERVICE_BODY_LIMITS.placement (64 MiB), and names itself past it', async () => {
    const config = resolveConfig({ flags: { 'os-token': 'unit-token', 'placement-endpoint': PLACEMENT_ROOT, retries: '0' }, env: {},
      cwd: '/nonexistent', homeDir: '/nonexistent' });
    const cloud = await connectCloud(config);
    try {
      const scope = nock(PLACEMENT_ROOT).get('/allocation_candidates').reply(200, '{}', { 'content-length': String(65 * MiB) });
      const error = await failureOf(cloud.placementHttp.request({ method: 'GET', path: '/allocation_candidates' }));
      expect(error.message).toContain(`Placement's answer to GET ${PLACEMENT_ROOT}/allocation_candidates is larger than the 64 MiB ferry reads from Placement`);
      expect(scope.isDone()).toBe(true);
    } finally {
      await cloud.close();
    }
  });

  it('ferry status: Glance streaming an image document past 32 MiB → exit 18, one message naming Glance, the URL and 32 MiB', async () => {
    const body = slowStream(40, MiB, 1);
    const scope = nock(GLANCE_ROOT).get(`/v2/images/${IMAGE_ID}`).reply(200, () => body.stream, { 'content-type': 'application/json' });
    const run = await runFerry(['status', IMAGE_ID, '--os-token', 'unit-token', '--glance-endpoint', GLANCE_ROOT, '--retries', '0']);
    expect(run.code).toBe(18);
    expect(run.stderr).toContain(`Glance's answer to GET ${GLANCE_ROOT}/v2/images/${IMAGE_ID} is larger than the 32 MiB ferry reads from Glance`);
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(scope.isDone()).toBe(true);
  });
});

describe('formatBytes', () => {
  it.each([
    { bytes: 100, expected: '100 bytes' },
    { bytes: 2048, expected: '2 KiB' },
    { bytes: 1536, expected: '1.5 KiB' },
    { bytes: 32 * MiB, expected: '32 MiB' },
  ])('formatBytes($bytes) = $expected', ({ bytes, expected }) => {
    expect(formatBytes(bytes)).toBe(expected);
  });
});

// nock stands between the socket and the body: whether the connection
// is really closed is seen from a real server on loopback, which counts what it could write and sees the close.
describe('createHttpTransport: the connection is dropped, not drained (real loopback servers)', () => {
  const sockets = new Set<Socket>();
  let endless: { server: NetServer; url: string; closed: Promise<number> };
  let trickle: { server: NetServer; url: string; closed: Promise<number> };

  /** A server that, on the first request, writes headers and then `piece()` every `everyMs` until 64 MiB or the client leaves. */
  async function streamingServer(piece: Buffer, everyMs: number): Promise<{ server: NetServer; url: string; closed: Promise<number> }> {
    let resolveClosed: (written: number) => void = () => undefined;
    const closed = new Promise<number>((resolve) => { resolveClosed = resolve; });
    const server = createNetServer((socket) => {
      sockets.add(socket);
      let written = 0;
      let timer: NodeJS.Timeout | undefined;
      socket.on('error', () => undefined);
      socket.on('close', () => { clearInterval(timer); sockets.delete(socket); resolveClosed(written); });
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n');
        timer = setInterval(() => {
          if (written >= 64 * MiB) {
            clearInterval(timer);
            socket.end('0\r\n\r\n');
            return;
          }
          written += piece.length;
          socket.write(`${piece.length.toString(16)}\r\n`);
          socket.write(piece);
          socket.write('\r\n');
        }, everyMs);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, closed };
  }

  beforeAll(async () => {
    nock.enableNetConnect('127.0.0.1');
    endless = await streamingServer(Buffer.alloc(256 * 1024, 0x20), 2);
    trickle = await streamingServer(Buffer.from(' '), 50);
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await Promise.all([endless, trickle].map(({ server }) => new Promise((resolve) => server.close(resolve))));
    nock.disableNetConnect();
  });

  it('an endless chunked body: FERRY_BAD_RESPONSE at the cap, and the server sees its client gone', async () => {
    const error = await failureOf(transportWith().send({ method: 'GET', url: `${endless.url}/v2/images`, service: 'Glance', maxBodyBytes: 2 * MiB }));
    expect(error).toMatchObject({ code: 'FERRY_BAD_RESPONSE', details: { service: 'Glance', maxBytes: 2 * MiB } });
    const written = await Promise.race([endless.closed, new Promise<string>((resolve) => setTimeout(() => resolve('still open'), 2_000))]);
    expect(written).toBeLessThan(8 * MiB); // socket buffers hold a few MiB at most; 64 MiB would be a drained body
  });

  it('a body of one byte every 50 ms (the idle timeout never fires): FERRY_TIMEOUT_BODY at the deadline, connection closed', async () => {
    const started = performance.now();
    const error = await failureOf(transportWith({ bodyTimeoutMs: 10_000, bodyDeadlineMs: 500 })
      .send({ method: 'GET', url: `${trickle.url}/v2/images`, service: 'Glance' }));
    expect(error.code).toBe('FERRY_TIMEOUT_BODY');
    expect(error.message).toContain('too slowly');
    expect(performance.now() - started).toBeLessThan(3_000);
    const written = await Promise.race([trickle.closed, new Promise<string>((resolve) => setTimeout(() => resolve('still open'), 2_000))]);
    expect(written).toBeLessThan(100);
  });
});
