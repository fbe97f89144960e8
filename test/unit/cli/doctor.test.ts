import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_TABLE } from '../../../src/errors/error-table.js';
import { FERRY_VERSION } from '../../../src/metrics/ferry-version.js';
import { nodeChecksJsonSchema } from '../../../src/contract/node-checks-document.js';
import { readSocketFacts } from '../../../src/cli/inputs/node-facts.js';
import { runFerry } from '../../helpers/run-ferry.js';

// An agent stand-in on a real Unix socket: /healthz and /metrics as the agent answers them (docs/agent.md).
const dir = mkdtempSync(join(tmpdir(), 'ferry-doctor-'));
const socket = join(dir, 'agent.sock');
let healthz: { status: number; body: unknown } = { status: 200, body: {} };
let server: Server;
let group = '';

beforeAll(async () => {
  // A Unix socket is 'localhost' to nock (the agent's tests do the same).
  nock.enableNetConnect('localhost');
  server = createServer((request, response) => {
    if (request.url === '/metrics') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end(`# TYPE ferry_agent_build_info gauge\nferry_agent_build_info{version="${FERRY_VERSION}",node_version="22"} 1\n`);
      return;
    }
    response.writeHead(healthz.status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(healthz.body));
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  chmodSync(socket, 0o660);
  group = readSocketFacts(socket).stat?.group ?? '';
});

afterAll(async () => {
  nock.disableNetConnect();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

const HEALTHY = { ok: true, failing: [], checks: { token: { ok: true }, glance: { ok: true }, fsid: { ok: true, fsid: 'x', source: 'cluster' },
  transfer: { ok: true }, stores: { ok: true } } };

function novaFiles(libvirt: string): string[] {
  writeFileSync(join(dir, 'nova.conf'), '[database]\nconnection = mysql://nova:SECRET@db/nova\n');
  writeFileSync(join(dir, 'nova-compute.conf'), `[libvirt]\n${libvirt}`);
  writeFileSync(join(dir, 'nova-integration.json'), '{"state": "applied", "at": "2026-11-29T08:00:00Z"}');
  return ['--nova-conf', join(dir, 'nova.conf'), '--nova-conf', join(dir, 'nova-compute.conf')];
}

const doctor = (extra: readonly string[]) => runFerry(['doctor', '--agent', socket, '--socket-group', group, ...extra],
  { env: { FERRY_NOVA_INTEGRATION_STATE: join(dir, 'nova-integration.json') } });

describe('ferry doctor, ferry agent status', () => {
  it('ferry agent status --json: a healthy agent on its socket, every check ok, exit 0; the JSON parses with its schema', async () => {
    healthz = { status: 200, body: HEALTHY };
    expect(statSync(socket).isSocket()).toBe(true);
    const run = await runFerry(['agent', 'status', '--agent', socket, '--socket-group', group, '--json']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const json = nodeChecksJsonSchema.parse(JSON.parse(run.stdout));
    expect(json.checks.map((check) => `${check.name}:${check.status}`)).toEqual(['socket:ok', 'socket_group:ok', 'agent:ok', 'agent.token:ok',
      'agent.glance:ok', 'agent.fsid:ok', 'agent.transfer:ok', 'agent.stores:ok', 'agent.version:ok']);
  });

  it('ferry agent status: a failing /healthz check exits with its code, and the text names it with its hint', async () => {
    healthz = { status: 503, body: { ...HEALTHY, ok: false, failing: ['token'], checks: { ...HEALTHY.checks,
      token: { ok: false, code: 'FERRY_AUTH_FAILED', message: 'Keystone refused the credentials (401)' } } } };
    const run = await runFerry(['agent', 'status', '--agent', socket, '--socket-group', group]);
    expect(run.code).toBe(ERROR_TABLE.FERRY_AUTH_FAILED.exit);
    expect(run.stdout).toMatch(/^ferry agent status: 1 failing \(first: FERRY_AUTH_FAILED\)/);
    expect(run.stdout).toMatch(/FAIL {2}agent\.token +Keystone refused the credentials \(401\)\n +→ See the agent's log/);
  });

  it('ferry agent status: no socket there → exit 60 (FERRY_AGENT_UNAVAILABLE)', async () => {
    const run = await runFerry(['agent', 'status', '--agent', join(dir, 'none.sock'), '--json']);
    expect(run.code).toBe(ERROR_TABLE.FERRY_AGENT_UNAVAILABLE.exit);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, code: 'FERRY_AGENT_UNAVAILABLE' });
    expect((JSON.parse(run.stdout) as { checks: { name: string; status: string }[] }).checks.map((check) => [check.name, check.status])).toEqual([['socket', 'fail']]);
  });

  it('ferry doctor: a good node (nova.conf asking this socket, the patch applied) exits 0; nova.conf\'s secrets never show', async () => {
    healthz = { status: 200, body: HEALTHY };
    const run = await doctor([...novaFiles(`images_type = rbd\nimages_rbd_glance_store_name = site-b\nimages_rbd_ferry_agent_socket = ${socket}\n`), '--json']);
    expect(run.code, run.stdout).toBe(0);
    const json = nodeChecksJsonSchema.parse(JSON.parse(run.stdout));
    expect(json.checks.filter((check) => check.status !== 'ok')).toEqual([]);
    expect(json.checks.map((check) => check.name)).toEqual(expect.arrayContaining(['nova_conf.agent_socket', 'nova_patch']));
    expect(run.stdout).not.toContain('SECRET');
  });

  it('ferry doctor: nova.conf not asking the agent → exit 3 (FERRY_INVALID_CONFIG), the option and the fix named', async () => {
    healthz = { status: 200, body: HEALTHY };
    const run = await doctor(novaFiles('images_type = rbd\nimages_rbd_glance_store_name = site-b\n'));
    expect(run.code).toBe(ERROR_TABLE.FERRY_INVALID_CONFIG.exit);
    expect(run.stdout).toContain('images_rbd_ferry_agent_socket is not set');
    expect(run.stdout).toContain(`→ Set [libvirt] images_rbd_ferry_agent_socket = ${socket}`);
  });

  it('ferry doctor and agent status take no cloud option', async () => {
    const run = await runFerry(['doctor', '--os-cloud', 'x']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('ferry doctor talks to no cloud: --os-cloud does not apply');
  });
});
