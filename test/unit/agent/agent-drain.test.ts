import { connect, type Socket } from 'node:net';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAgentMetrics } from '../../../src/agent/agent-metrics.js';
import { resolveAgentOptions } from '../../../src/agent/agent-options.js';
import { createAgentServer, type AgentServer } from '../../../src/agent/agent-server.js';
import type { HostService } from '../../../src/host/host-service.js';
import { mayCloseDuringDrain } from '../../../src/agent/connection-drain.js';
import { silentLogger } from '../../../src/logging/logger.js';
import { tempSocketDir } from './agent-http.js';

// The agent's shutdown under socket activation: stop accepting (new connections wait in systemd's backlog for the next
// agent), but answer every request on a connection already accepted — even one whose bytes arrive after SIGTERM.

const service: HostService = {
  defaultStore: () => 'site-b',
  ensure: () => Promise.reject(new Error('not used')),
  status: (imageRef) => Promise.resolve({ image: imageRef }),
  health: () => Promise.resolve({ token: { ok: true }, glance: { ok: true }, fsid: { ok: true, fsid: 'f' }, transfer: { ok: true } }),
};

let socketDir: ReturnType<typeof tempSocketDir>;
let server: AgentServer;

beforeAll(() => nock.enableNetConnect('localhost'));
afterAll(() => nock.disableNetConnect());
beforeEach(async () => {
  socketDir = tempSocketDir();
  server = createAgentServer({ service, metrics: createAgentMetrics({ processMetrics: false }), logger: silentLogger,
    options: resolveAgentOptions({ socketPath: socketDir.socket, shutdownGraceMs: 5_000 }) });
  await server.listen();
});
afterEach(async () => {
  await server.shutdown();
  socketDir.cleanup();
});

/** A raw connection the server has accepted; `reply` resolves with all it received when the server closes it. */
async function accepted(): Promise<{ socket: Socket; reply: Promise<string> }> {
  const seen = new Promise<void>((resolve) => server.server.once('connection', () => resolve()));
  const socket = connect(socketDir.socket);
  let text = '';
  const reply = new Promise<string>((resolve) => {
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('close', () => resolve(text));
    socket.on('error', () => undefined);
  });
  await seen;
  return { socket, reply };
}

const HEALTHZ = 'GET /healthz HTTP/1.1\r\nhost: agent\r\n\r\n';

describe('agent drain at shutdown', () => {
  it('mayCloseDuringDrain: never with a request on it; a kept-alive connection at once; a fresh one after its grace', () => {
    expect(mayCloseDuringDrain({ active: 1, served: 3 }, 10_000, 1_000)).toBe(false);
    expect(mayCloseDuringDrain({ active: 0, served: 1 }, 0, 1_000)).toBe(true);
    expect(mayCloseDuringDrain({ active: 0, served: 0 }, 999, 1_000)).toBe(false);
    expect(mayCloseDuringDrain({ active: 0, served: 0 }, 1_000, 1_000)).toBe(true);
  });

  it('a connection accepted before SIGTERM whose request arrives after it is answered (200, connection: close), not dropped', async () => {
    const { socket, reply } = await accepted();
    const stopping = server.shutdown();
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.write(HEALTHZ);
    const text = await reply;
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(text.toLowerCase()).toContain('connection: close');
    await stopping;
  });

  it('stops accepting at once: a connection made after shutdown began is refused (own socket: nobody keeps it)', async () => {
    const stopping = server.shutdown();
    const refused = await new Promise<string>((resolve) => {
      const socket = connect(socketDir.socket);
      socket.on('connect', () => resolve('connected'));
      socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
    await stopping;
    expect(['ECONNREFUSED', 'ENOENT']).toContain(refused);
  });

  it('a kept-alive connection that was answered and is idle is closed at once: shutdown does not wait out the grace', async () => {
    const { socket, reply } = await accepted();
    socket.write(HEALTHZ);
    await new Promise<void>((resolve) => socket.once('data', () => resolve()));
    const started = Date.now();
    await server.shutdown();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await reply).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('a connection that never sends a request is closed after about a second, well inside the 5 s grace', async () => {
    const { reply } = await accepted();
    const started = Date.now();
    await server.shutdown();
    const took = Date.now() - started;
    expect(await reply).toBe('');
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(3_000);
  });
});
