#!/usr/bin/env node
// The fresh root's only way out (scripts/fresh-root/run): its network namespace has loopback alone, so the dev cloud
// inside it takes its default ports without meeting another on this machine, and what a test installs comes through
// an HTTP proxy that lets the two package registries a Debian 12 machine with Node uses through, and nothing else:
//
//   node proxy.mjs serve SOCKET LOG      on the host: an HTTP proxy on the Unix socket SOCKET (plain http:// requests
//                                        forwarded, CONNECT tunnels for https://), each refusal one line in LOG
//   node proxy.mjs forward PORT SOCKET   in the root's namespace: 127.0.0.1:PORT to SOCKET, byte for byte (apt and
//                                        npm speak TCP to a proxy; a Unix socket is reached from any namespace)
//
// apt gets http://deb.debian.org/… through it (Acquire::http::Proxy), npm https://registry.npmjs.org/… (https_proxy).
import { appendFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { connect, createServer as createTcpServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** Where the root may go: Debian's archive (http, as apt's sources say) and the npm registry (https). */
export const ALLOWED = Object.freeze([
  { host: 'deb.debian.org', port: 80 },
  { host: 'security.debian.org', port: 80 },
  { host: 'registry.npmjs.org', port: 443 },
]);

/** Why a request to host:port is refused, or undefined when it may go. */
export function refusal(host, port) {
  if (!Number.isInteger(port) || port < 1 || port > 65535) return `port '${port}' is not a port`;
  const name = host.toLowerCase().replace(/\.$/, '');
  if (ALLOWED.some((allowed) => allowed.host === name && allowed.port === port)) return undefined;
  return `${name}:${port} is not a package registry the fresh root may reach (${ALLOWED.map((a) => `${a.host}:${a.port}`).join(', ')})`;
}

/** host and port of a CONNECT target 'host:port' ([v6]:port too). */
export function connectTarget(authority) {
  const match = /^\[?([^\]]*?)\]?:(\d+)$/.exec(authority);
  return match === null ? { host: authority, port: Number.NaN } : { host: match[1], port: Number(match[2]) };
}

function serve(socket, log) {
  const refuse = (what, reason, reply) => {
    appendFileSync(log, `${new Date().toISOString()} refused ${what}: ${reason}\n`);
    reply(reason);
  };
  const server = createServer((req, res) => {
    let url;
    try { url = new URL(req.url ?? ''); } catch { url = undefined; }
    const port = url === undefined ? Number.NaN : Number(url.port || (url.protocol === 'http:' ? 80 : Number.NaN));
    const reason = url === undefined || url.protocol !== 'http:' ? `'${req.url}' is not an absolute http:// URL` : refusal(url.hostname, port);
    if (reason !== undefined) {
      refuse(`${req.method} ${req.url}`, reason, (text) => res.writeHead(403, { 'content-type': 'text/plain' }).end(`${text}\n`));
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-connection'];
    delete headers['proxy-authorization'];
    const upstream = request({ host: url.hostname, port, method: req.method, path: `${url.pathname}${url.search}`, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', (error) => { if (!res.headersSent) res.writeHead(502).end(`${error.message}\n`); else res.destroy(); });
    req.pipe(upstream);
  });
  server.on('connect', (req, client, head) => {
    const { host, port } = connectTarget(req.url ?? '');
    const reason = refusal(host, port);
    if (reason !== undefined) {
      refuse(`CONNECT ${req.url}`, reason, (text) => client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\n${text}\n`));
      return;
    }
    const upstream = connect(port, host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  server.listen(socket);
}

function forward(port, socket) {
  createTcpServer((client) => {
    const upstream = connect(socket);
    client.pipe(upstream);
    upstream.pipe(client);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  }).listen(port, '127.0.0.1');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [mode, first, second] = process.argv.slice(2);
  if (mode === 'serve' && first && second) serve(first, second);
  else if (mode === 'forward' && /^\d+$/.test(first ?? '') && second) forward(Number(first), second);
  else {
    console.error('usage: proxy.mjs serve SOCKET LOG | proxy.mjs forward PORT SOCKET');
    process.exit(2);
  }
}
