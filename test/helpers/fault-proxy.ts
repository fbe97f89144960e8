// A loopback HTTP proxy in front of one upstream (the dev cloud's Glance) that forwards by default and applies
// scripted faults per request matcher. Integration tests point ferry at it (--glance-endpoint) and assert, from its
// log, that each fault really fired.
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What the proxy does with one matching request. */
export type Fault =
  /** Answer at once with this status (not forwarded). Default bodies: 503 plain text, 502 an HTML page, 401 Glance's JSON. */
  | { readonly kind: 'status'; readonly status: number; readonly body?: string; readonly contentType?: string }
  /** Destroy the client's socket before forwarding: the upstream never sees the request. */
  | { readonly kind: 'reset-before' }
  /** Forward the request and wait for the upstream's answer, then destroy the client's socket (the upstream got it). */
  | { readonly kind: 'reset-after' }
  /** Never answer (the request is held until the proxy closes). */
  | { readonly kind: 'hang' }
  /** Forward, then send the upstream's body `chunkBytes` at a time every `intervalMs`. */
  | { readonly kind: 'slow-body'; readonly chunkBytes?: number; readonly intervalMs?: number }
  /** Forward, send the headers (with the full Content-Length) and the first `afterBytes` of the body, then nothing. */
  | { readonly kind: 'stall-body'; readonly afterBytes?: number }
  /** Forward, declare the full Content-Length, send only `keepBytes` of the body and close the connection. */
  | { readonly kind: 'truncate'; readonly keepBytes?: number }
  /** Answer 200 with an HTML page (a captive portal or a misrouted load balancer), not forwarded. */
  | { readonly kind: 'html-200' }
  /** Answer 200 `application/json` with a body that is not JSON, not forwarded. */
  | { readonly kind: 'bad-json-200' };

export interface FaultRule {
  readonly method?: string;
  /** Matched against the request's path with its query string. */
  readonly path: RegExp;
  /** The first matching request this rule applies to, 1-based (default 1). */
  readonly nth?: number;
  /** How many matching requests from the nth on (default 1; Infinity for all). */
  readonly times?: number;
  readonly fault: Fault;
  /** After applying the fault, refuse every connection (as `refuse()`), before the client sees the fault's effect. */
  readonly thenRefuse?: boolean;
  /** After applying the fault (and before the client sees its effect), run this: e.g. kill glance-api, as a crash would. */
  readonly then?: () => void | Promise<void>;
}

export interface ProxyLogEntry {
  /** ms since the proxy started. */
  readonly atMs: number;
  readonly method: string;
  readonly path: string;
  /** `forwarded`, or the fault's kind. */
  readonly action: 'forwarded' | Fault['kind'];
  /** The status the client got (undefined when it got none: resets, hangs). */
  readonly status?: number;
  /** The upstream's status, when the request reached it. */
  readonly upstreamStatus?: number;
  /** The upstream's x-openstack-request-id, when it answered. */
  readonly requestId?: string;
}

export interface FaultProxy {
  /** `http://127.0.0.1:PORT`: give this to ferry as the Glance endpoint. */
  readonly url: string;
  /** When the proxy started (epoch ms): log entries' `atMs` count from here. */
  readonly startedAt: number;
  readonly log: readonly ProxyLogEntry[];
  /** Add a rule; rules are checked in the order added, the first with a fault for this request wins. */
  add(rule: FaultRule): void;
  /** Drop every rule (the proxy forwards everything again). */
  clear(): void;
  /** Close the listener and every open connection: new connections are refused until `resume()`. */
  refuse(): Promise<void>;
  /** Listen again on the same port. */
  resume(): Promise<void>;
  readonly refusing: boolean;
  /** Log entries matching (method, path). */
  entries(method: string, path: RegExp): ProxyLogEntry[];
  /** Resolves with the first log entry (past or future) the predicate accepts; rejects after `timeoutMs`. */
  waitFor(predicate: (entry: ProxyLogEntry) => boolean, timeoutMs: number): Promise<ProxyLogEntry>;
  close(): Promise<void>;
}

const DEFAULT_BODIES: Readonly<Record<number, { body: string; contentType: string }>> = {
  401: { contentType: 'application/json', body: JSON.stringify({ error: { code: 401, title: 'Unauthorized', message: 'The request you have made requires authentication.' } }) },
  502: { contentType: 'text/html', body: '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n' },
  503: { contentType: 'text/plain', body: '503 Service Unavailable\n\nThe server is currently unavailable. Please try again at a later time.\n' },
};
export const HTML_PAGE = '<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body><form action="/login">Please sign in</form></body></html>\n';
export const BAD_JSON = '{"id": "00000000-0000-4000-8000-000000000000", "status": "active", "stores": "central';

interface ActiveRule {
  readonly rule: FaultRule;
  seen: number;
}

/** Start a proxy in front of `upstream` (an http:// base URL) on 127.0.0.1 and an ephemeral port. */
export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const target = new URL(upstream);
  const started = Date.now();
  const log: ProxyLogEntry[] = [];
  const rules: ActiveRule[] = [];
  const sockets = new Set<Socket>();
  const held = new Set<ServerResponse>();
  const waiters = new Set<{ predicate: (entry: ProxyLogEntry) => boolean; resolve: (entry: ProxyLogEntry) => void }>();
  let refusing = false;
  let closed = false;

  const record = (entry: Omit<ProxyLogEntry, 'atMs'>): void => {
    const full = { atMs: Date.now() - started, ...entry };
    log.push(full);
    for (const waiter of waiters) {
      if (waiter.predicate(full)) {
        waiters.delete(waiter);
        waiter.resolve(full);
      }
    }
  };

  /** The fault for this request, if a rule claims it (each matching rule counts the request). */
  const faultFor = (method: string, path: string): FaultRule | undefined => {
    let chosen: FaultRule | undefined;
    for (const active of rules) {
      const { rule } = active;
      if ((rule.method !== undefined && rule.method !== method) || !rule.path.test(path)) continue;
      active.seen += 1;
      const first = rule.nth ?? 1;
      const last = first + (rule.times ?? 1) - 1;
      if (chosen === undefined && active.seen >= first && active.seen <= last) chosen = rule;
    }
    return chosen;
  };

  /** Send the request upstream (body included); resolves with the upstream's full answer. */
  const forward = (req: IncomingMessage, body: Buffer): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const headers = { ...req.headers, host: target.host };
      const out = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      out.on('error', reject);
      out.end(body);
    });

  const answer = (res: ServerResponse, status: number, contentType: string, body: string | Buffer): void => {
    res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };

  const upstreamHeaders = (headers: IncomingHttpHeaders, length: number): Record<string, string | string[]> => {
    const out: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined || ['transfer-encoding', 'connection', 'keep-alive', 'content-length'].includes(name)) continue;
      out[name] = value;
    }
    out['content-length'] = String(length);
    return out;
  };

  const requestIdOf = (headers: IncomingHttpHeaders): { requestId?: string } => {
    const id = headers['x-openstack-request-id'];
    return typeof id === 'string' ? { requestId: id } : {};
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const rule = faultFor(method, path);
    const fault = rule?.fault;
    const entry = { method, path };
    const afterFault = async (): Promise<void> => {
      if (rule?.thenRefuse) await proxy.refuse();
      await rule?.then?.();
    };

    if (fault === undefined) {
      const up = await forward(req, body);
      res.writeHead(up.status, upstreamHeaders(up.headers, up.body.length));
      res.end(up.body);
      record({ ...entry, action: 'forwarded', status: up.status, upstreamStatus: up.status, ...requestIdOf(up.headers) });
      return;
    }
    switch (fault.kind) {
      case 'status': {
        const preset = DEFAULT_BODIES[fault.status];
        record({ ...entry, action: 'status', status: fault.status });
        await afterFault();
        answer(res, fault.status, fault.contentType ?? preset?.contentType ?? 'text/plain', fault.body ?? preset?.body ?? `${fault.status}\n`);
        return;
      }
      case 'reset-before':
        record({ ...entry, action: 'reset-before' });
        await afterFault();
        req.socket.destroy();
        return;
      case 'reset-after': {
        const up = await forward(req, body);
        record({ ...entry, action: 'reset-after', upstreamStatus: up.status, ...requestIdOf(up.headers) });
        await afterFault();
        req.socket.destroy();
        return;
      }
      case 'hang':
        record({ ...entry, action: 'hang' });
        held.add(res);
        await afterFault();
        return;
      case 'html-200':
        record({ ...entry, action: 'html-200', status: 200 });
        await afterFault();
        answer(res, 200, 'text/html; charset=UTF-8', HTML_PAGE);
        return;
      case 'bad-json-200':
        record({ ...entry, action: 'bad-json-200', status: 200 });
        await afterFault();
        answer(res, 200, 'application/json', BAD_JSON);
        return;
      case 'slow-body':
      case 'stall-body':
      case 'truncate': {
        const up = await forward(req, body);
        record({ ...entry, action: fault.kind, status: up.status, upstreamStatus: up.status, ...requestIdOf(up.headers) });
        await afterFault();
        res.writeHead(up.status, upstreamHeaders(up.headers, up.body.length));
        if (fault.kind === 'truncate') {
          res.write(up.body.subarray(0, Math.min(fault.keepBytes ?? Math.floor(up.body.length / 2), up.body.length - 1)));
          // give the bytes a moment to leave before the reset, so the client sees a short body rather than no answer
          setTimeout(() => req.socket.destroy(), 20);
        } else if (fault.kind === 'stall-body') {
          res.write(up.body.subarray(0, Math.min(fault.afterBytes ?? 16, up.body.length - 1)));
          held.add(res);
        } else {
          await dribble(res, up.body, fault.chunkBytes ?? 64, fault.intervalMs ?? 100, () => closed);
        }
        return;
      }
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      // the upstream failed or the client went away: the client gets a reset, as from a dying gateway
      record({ method: req.method ?? 'GET', path: req.url ?? '/', action: 'forwarded', status: 502 });
      if (!res.headersSent) answer(res, 502, 'text/plain', 'fault proxy: upstream request failed\n');
      else req.socket.destroy();
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  const listen = (port: number): Promise<void> => new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const stopListening = (): Promise<void> => new Promise((resolve) => {
    server.close(() => resolve());
    for (const res of held) res.destroy();
    held.clear();
    for (const socket of sockets) socket.destroy();
  });

  await listen(0);
  const port = (server.address() as AddressInfo).port;

  const proxy: FaultProxy = {
    url: `http://127.0.0.1:${port}`,
    startedAt: started,
    log,
    get refusing() {
      return refusing;
    },
    add(rule) {
      rules.push({ rule, seen: 0 });
    },
    clear() {
      rules.splice(0);
    },
    async refuse() {
      if (refusing) return;
      refusing = true;
      await stopListening();
    },
    async resume() {
      if (!refusing) return;
      await listen(port);
      refusing = false;
    },
    entries: (method, path) => log.filter((e) => e.method === method && path.test(e.path)),
    waitFor(predicate, timeoutMs) {
      const found = log.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const waiter = {
          predicate,
          resolve: (entry: ProxyLogEntry) => {
            clearTimeout(timer);
            resolve(entry);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`fault proxy: no matching request within ${timeoutMs} ms (log: ${log.map((e) => `${e.method} ${e.path} ${e.action}`).join('; ')})`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    async close() {
      closed = true;
      if (!refusing) await stopListening();
      refusing = true;
    },
  };
  return proxy;
}

async function dribble(res: ServerResponse, body: Buffer, chunkBytes: number, intervalMs: number, stopped: () => boolean): Promise<void> {
  for (let offset = 0; offset < body.length; offset += chunkBytes) {
    if (stopped() || res.destroyed) return;
    res.write(body.subarray(offset, offset + chunkBytes));
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  res.end();
}
