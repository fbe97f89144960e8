import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAgent } from '../../../src/agent/agent-client.js';
import { ensureJsonSchema } from '../../../src/contract/ensure-document.js';
import { deleteImage, imageTasks, uploadImage, waitUnlocked } from '../../helpers/glance-admin.js';
import { findPromtool, promtool } from '../../helpers/promtool.js';
import { startAgent, type AgentProcess } from './agent-process.js';

const SIZE = 8 * 1024 * 1024;
const tool = findPromtool();
const created: string[] = [];
let agent: AgentProcess;
let port: number;

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
  agent = await startAgent(['--metrics-listen', '127.0.0.1:0']);
  const listen = /"listen":"127\.0\.0\.1:(\d+)"/.exec(agent.stderr())?.[1];
  if (listen === undefined) throw new Error(`the agent did not log its metrics address: ${agent.stderr()}`);
  port = Number(listen);
});

afterAll(async () => {
  expect(await agent.stop()).toBe(0);
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

  it('metrics listen: /healthz over TCP is the socket\'s answer', async () => {
    const overTcp = await scrape('GET', '/healthz');
    expect(overTcp.status).toBe(200);
    const overSocket = await callAgent(agent.socket, { method: 'GET', path: '/healthz' });
    expect(JSON.parse(overTcp.text)).toEqual(overSocket.body);
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
});
