import { request } from 'node:http';
import { createServer } from 'node:net';
import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWith } from '../prewarm/cli-harness.js';
import { imageId, scriptedImages } from '../prewarm/scripted-images.js';

const T1 = 'a8860fd2-0000-4000-8000-000000000001';
const policy = 'version: 1\nplacements:\n  - name: golden\n    images: {tag: golden}\n    stores: [site-a]\n';
const files = (path: string): string => {
  if (path !== 'edge.yaml') throw new Error(`ENOENT: no such file or directory, open '${path}'`);
  return policy;
};
const glance = () => scriptedImages({
  [imageId(1)]: { name: 'golden-1', tags: ['golden'], reads: [
    { stores: ['central'] }, { stores: ['central'], lock: T1, importing: ['site-a'] }, { stores: ['central', 'site-a'], importing: [], failed: [] }] },
  [imageId(2)]: { name: 'golden-2', tags: ['golden'], reads: [{ stores: ['central', 'site-a'] }] },
});

/** A port nothing listens on now (bound, then closed). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function get(port: number, path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => { text += chunk; });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
    }).on('error', reject).end();
  });
}

beforeAll(() => nock.enableNetConnect('127.0.0.1'));
afterAll(() => nock.disableNetConnect());

describe('ferry sync --watch --metrics-listen', () => {
  it('ferry sync --watch --metrics-listen: a scrape during pass 2 shows pass 1 (clean, one copy, drift 0); the port closes with the watch', async () => {
    const port = await freePort();
    const controller = new AbortController();
    const scripted = glance();
    let lists = 0;
    let metrics: { status: number; text: string } | undefined;
    let health: { status: number; text: string } | undefined;
    let other: { status: number; text: string } | undefined;
    const listImages = scripted.listImages.bind(scripted);
    scripted.listImages = async (query, call) => {
      lists += 1;
      if (lists === 2) {
        [metrics, health, other] = await Promise.all([get(port, '/metrics'), get(port, '/healthz'), get(port, '/v1/ensure')]);
        controller.abort(new Error('interrupted by SIGINT'));
      }
      return listImages(query, call);
    };
    const run = await runWith(['sync', '--policy', 'edge.yaml', '--watch', '--interval', '1s', '--metrics-listen', `127.0.0.1:${port}`, '--json'],
      scripted, { readFile: files, signal: controller.signal });
    expect(run.code, run.stderr).toBe(130);
    expect(metrics?.status).toBe(200);
    const text = metrics?.text ?? '';
    expect(text).toContain('ferry_sync_passes_total{result="clean"} 1\n');
    expect(text).toContain('ferry_sync_copies_total{store="site-a",outcome="copied"} 1\n');
    expect(text).not.toContain('outcome="present"');
    expect(text).toContain('ferry_sync_drift_pairs 0\n');
    expect(text).toContain('ferry_sync_wanted_pairs 2\n');
    expect(text).toContain('ferry_sync_pass_duration_seconds_count 1\n');
    expect(text).toContain('ferry_sync_healthy 1\n');
    expect(text).toMatch(/^ferry_sync_build_info\{version="0\.1\.0",/m);
    expect(text).toContain('process_cpu_seconds_total');
    expect(health?.status).toBe(200);
    expect(JSON.parse(health?.text ?? '')).toEqual({ ok: true, passes: 1, last_pass: { number: 1, clean: true, error: null, drift: 0 } });
    expect(other?.status).toBe(404);
    await expect(get(port, '/metrics')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it.each([
    { title: '--metrics-listen without --watch', args: ['--metrics-listen', '127.0.0.1:9465'], env: {}, message: '--metrics-listen needs --watch' },
    { title: 'a bad address', args: ['--watch', '--metrics-listen', '[::1]9465'], env: {},
      message: '--metrics-listen must be HOST:PORT, got "[::1]9465": not of the form HOST:PORT' },
  ])('ferry sync: $title → exit 2 FERRY_INVALID_OPTION', async ({ args, message }) => {
    const run = await runWith(['sync', '--policy', 'edge.yaml', ...args, '--json'], glance(), { readFile: files });
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'FERRY_INVALID_OPTION', message } });
  });
});
