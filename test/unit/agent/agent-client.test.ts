import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { callAgent } from '../../../src/agent/agent-client.js';

// Two calls against a real HTTP server on a Unix socket in a temporary directory, counted by the server. It runs in a
// child Node process: nock (loaded by the unit setup) opens a connection per request whatever the agent option says,
// which would hide the connection reuse this test is about.
const PROBE = `
import { createServer } from 'node:http';
import { callAgent } from ${JSON.stringify(resolve('src/agent/agent-client.ts'))};
const socketPath = process.argv[1];
let connections = 0;
const server = createServer((_q, r) => { r.setHeader('content-type', 'application/json'); r.end('{"ok":true}'); });
server.on('connection', () => { connections += 1; });
await new Promise((done) => server.listen(socketPath, done));
const answers = [await callAgent(socketPath, { method: 'GET', path: '/healthz' }), await callAgent(socketPath, { method: 'GET', path: '/healthz' })];
process.stdout.write(JSON.stringify({ connections, answers }));
server.close();
process.exit(0);
`;

describe('callAgent', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('opens a fresh connection per call, so an idle connection the agent closed is never reused', () => {
    dir = mkdtempSync(join(tmpdir(), 'ferry-agent-client-'));
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', PROBE, join(dir, 'agent.sock')],
      { encoding: 'utf8', timeout: 30_000 });
    expect(JSON.parse(out)).toEqual({ connections: 2, answers: [{ status: 200, body: { ok: true } }, { status: 200, body: { ok: true } }] });
  }, 30_000);

  it('names the socket and the fix when nothing listens', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ferry-agent-client-'));
    const socketPath = join(dir, 'absent.sock');
    await expect(callAgent(socketPath, { method: 'GET', path: '/healthz' })).rejects.toMatchObject({
      code: 'FERRY_AGENT_UNAVAILABLE', message: expect.stringContaining(socketPath) as unknown,
    });
  });
});
