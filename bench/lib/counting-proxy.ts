import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An HTTP proxy in front of one service that counts what passes (method + path shape), to count requests per boot. */
export interface CountingProxy {
  readonly url: string;
  /** Requests since the last reset, by `METHOD shape`. */
  counts(): Record<string, number>;
  reset(): void;
  close(): Promise<void>;
}

export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const upstream = new URL(target);
  let counts: Record<string, number> = {};
  const server: Server = createServer((req, res) => {
    const key = `${req.method ?? '?'} ${shape(req.url ?? '/')}`;
    counts[key] = (counts[key] ?? 0) + 1;
    const forward = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url,
      headers: { ...req.headers, host: upstream.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => { res.writeHead(502).end(); });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts: () => ({ ...counts }),
    reset: () => { counts = {}; },
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

function shape(url: string): string {
  return url.split('?')[0]!.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '{id}');
}
