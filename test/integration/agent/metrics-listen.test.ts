import { request } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAgent } from '../../../src/agent/agent-client.js';
import { ensureJsonSchema } from '../../../src/contract/ensure-document.js';
import { METRICS_LISTENER_DEFAULTS } from '../../../src/metrics/metrics-listener.js';
import { devcloud } from '../../helpers/devcloud.js';
import { startFaultProxy, type FaultProxy } from '../../helpers/fault-proxy.js';
import { deleteImage, imageTasks, uploadImage, waitUnlocked } from '../../helpers/glance-admin.js';
import { connectionFate, rawConnection } from '../../helpers/raw-connection.js';
import { findPromtool, promtool } from '../../helpers/promtool.js';
import { startAgent, type AgentProcess } from './agent-process.js';

const SIZE = 8 * 1024 * 1024;
const tool = findPromtool();
const created: string[] = [];
let agent: AgentProcess;
let port: number;
/** Glance as the agent reaches it: every request it sends is in the proxy's log. */
let proxy: FaultProxy;

function scrape(method: string, path: string, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => { text += chunk; });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The value of one sample line `name{labels} value` of the exposition text; undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

beforeAll(async () => {
  proxy = await startFaultProxy(devcloud().glance.url);
  agent = await startAgent(['--metrics-listen', '127.0.0.1:0', '--glance-endpoint', proxy.url]);
  const listen = /"listen":"127\.0\.0\.1:(\d+)"/.exec(agent.stderr())?.[1];
  if (listen === undefined) throw new Error(`the agent did not log its metrics address: ${agent.stderr()}`);
  port = Number(listen);
});

afterAll(async () => {
  expect(await agent.stop()).toBe(0);
  await proxy.close();
  for (const id of created) {
    await waitUnlocked(id);
    await deleteImage(id);
  }
});

describe(`ferry agent --metrics-listen against the dev cloud${tool.reason === '' ? '' : ` (promtool checks SKIPPED: ${tool.reason})`}`, () => {
  it('metrics listen: one ensure copy → bytes copied = the image size, one time-to-available sample; a second ensure is "present"', async () => {
    const before = await scrape('GET', '/metrics');
    expect(before.status).toBe(200);
    expect(sample(before.text, 'ferry_agent_copied_bytes_total{store="site-b"}')).toBeUndefined();
    expect(sample(before.text, 'ferry_agent_healthy')).toBe(1);

    const id = await uploadImage({ name: 'it-metrics-copy', store: 'site-a', sizeBytes: SIZE });
    created.push(id);
    const answer = await callAgent(agent.socket, { method: 'POST', path: '/v1/ensure', body: { image: id } });
    expect(answer.status).toBe(200);
    const document = ensureJsonSchema.parse(answer.body);
    expect(document).toMatchObject({ copied: true, store: 'site-b' });

    const after = await scrape('GET', '/metrics');
    expect(sample(after.text, 'ferry_agent_copied_bytes_total{store="site-b"}')).toBe(SIZE);
    expect(sample(after.text, 'ferry_agent_time_to_available_seconds_count{store="site-b",source="copied"}')).toBe(1);
    expect(sample(after.text, 'ferry_agent_time_to_available_seconds_bucket{le="+Inf",store="site-b",source="copied"}')).toBe(1);
    const seconds = sample(after.text, 'ferry_agent_time_to_available_seconds_sum{store="site-b",source="copied"}') ?? -1;
    // From the request's arrival to the answer: at least what ensure measured, and not much more.
    expect(seconds).toBeGreaterThanOrEqual(document.seconds - 0.001);
    expect(seconds).toBeLessThan(document.seconds + 2);
    expect(sample(after.text, 'ferry_agent_ensures_total{outcome="ok"}')).toBe(1);

    const again = await callAgent(agent.socket, { method: 'POST', path: '/v1/ensure', body: { image: id } });
    expect(ensureJsonSchema.parse(again.body)).toMatchObject({ copied: false });
    const last = await scrape('GET', '/metrics');
    expect(sample(last.text, 'ferry_agent_time_to_available_seconds_count{store="site-b",source="present"}')).toBe(1);
    expect(sample(last.text, 'ferry_agent_copied_bytes_total{store="site-b"}')).toBe(SIZE);
  });

  it('metrics listen: TCP /healthz is the verdict only — ok and the names of failing checks; no fsid, path, user, URL or version', async () => {
    const overSocket = await callAgent(agent.socket, { method: 'GET', path: '/healthz' });
    expect(overSocket.status).toBe(200);
    const overTcp = await scrape('GET', '/healthz');
    expect(overTcp.status).toBe(200);
    expect(JSON.parse(overTcp.text)).toEqual({ ok: true, failing: [] });
    const facts = devcloud();
    for (const secret of [facts.ceph['site-b'].fsid, facts.ceph['site-b'].conf, 'nova', 'http', 'checks']) expect(overTcp.text).not.toContain(secret);
  });

  it('metrics listen: a failing check over TCP is named, never described (its message holds the Glance URL)', async () => {
    proxy.add({ method: 'GET', path: /^\/v2\/info\/stores$/, times: Infinity, fault: { kind: 'status', status: 503 } });
    try {
      // The socket's /healthz checks now: its full report names Glance's URL.
      const overSocket = await callAgent(agent.socket, { method: 'GET', path: '/healthz' });
      expect(overSocket.status).toBe(503);
      expect(JSON.stringify(overSocket.body)).toContain(proxy.url);
      const overTcp = await scrape('GET', '/healthz');
      expect(overTcp.status).toBe(503);
      expect(JSON.parse(overTcp.text)).toEqual({ ok: false, failing: ['glance'] });
    } finally {
      proxy.clear();
      // The next verdict is healthy again for the tests after this one.
      expect((await callAgent(agent.socket, { method: 'GET', path: '/healthz' })).status).toBe(200);
    }
  });

  it('metrics listen: 200 TCP /healthz and /metrics, 4 at a time → at most one Glance request (the probe\'s cached verdict)', async () => {
    const seen = proxy.log.length;
    for (let round = 0; round < 50; round += 1) {
      const answers = await Promise.all(Array.from({ length: 4 }, (_, n) => scrape('GET', n % 2 === 0 ? '/healthz' : '/metrics')));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    }
    expect(proxy.log.slice(seen).length).toBeLessThanOrEqual(1);
  });

  it('metrics listen: no ensure over TCP — POST /v1/ensure is 404 and Glance sees no import', async () => {
    const id = await uploadImage({ name: 'it-metrics-no-copy', store: 'site-a', sizeBytes: 1024 * 1024 });
    created.push(id);
    const answer = await scrape('POST', '/v1/ensure', JSON.stringify({ image: id }));
    expect(answer.status).toBe(404);
    expect((await scrape('GET', `/v1/images/${id}`)).status).toBe(404);
    expect(await imageTasks(id)).toEqual([]);
  });

  it.skipIf(tool.path === undefined)('metrics listen: promtool check metrics is clean on the real output', async () => {
    const text = (await scrape('GET', '/metrics')).text;
    expect(text).toContain('process_cpu_seconds_total');
    expect(text).toContain('ferry_agent_time_to_available_seconds_bucket');
    expect(promtool(tool.path ?? '', ['check', 'metrics'], text)).toEqual({ code: 0, output: '' });
  });

  // Last: the held connections take a moment to be seen closed by the agent.
  it(`metrics listen: ${METRICS_LISTENER_DEFAULTS.maxConnections} open TCP connections → the next one is closed at once; the open ones still answer`, async () => {
    const to = { host: '127.0.0.1', port };
    const held: Socket[] = [];
    try {
      for (let n = 0; n < METRICS_LISTENER_DEFAULTS.maxConnections; n += 1) held.push(await rawConnection(to));
      // Past the cap the kernel still accepts; Node closes the connection before reading from it.
      const extra = await rawConnection(to);
      held.push(extra);
      expect(await connectionFate(extra, 'GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n', 3_000)).toBe('closed');
      expect(await connectionFate(held[0]!, 'GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n', 3_000)).toBe('HTTP/1.1 200 OK');
    } finally {
      for (const socket of held) socket.destroy();
    }
  });
});
