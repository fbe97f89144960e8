import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A raw HTTP/1.1 exchange over the agent's Unix socket (nock cannot see Unix sockets; the agent is real here). */
export interface RawAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
  json(): unknown;
}

export function send(socketPath: string, method: string, path: string, options: { body?: string; headers?: Record<string, string | string[]>;
  signal?: AbortSignal; onData?: (text: string) => void } = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, method, path, headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
      ...(options.signal ? { signal: options.signal } : {}) }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
        options.onData?.(chunk);
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json: () => JSON.parse(text) as unknown }));
      response.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

export function tempSocketDir(): { dir: string; socket: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-agent-'));
  return { dir, socket: join(dir, 'agent.sock'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
