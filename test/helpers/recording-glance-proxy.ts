import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { devcloud } from './devcloud.js';

/** A proxy in front of the dev cloud's Glance that records every request ferry sends through it (method and path). */
export interface RecordingGlanceProxy {
  /** For FERRY_GLANCE_ENDPOINT. */
  readonly url: string;
  /** `METHOD path`, in order; empty it between runs. */
  readonly requests: string[];
  close(): Promise<void>;
}

/** Start one on a free loopback port: "never removed" is then asserted on the DELETEs ferry sent, not only on Glance's state. */
export async function startRecordingGlanceProxy(): Promise<RecordingGlanceProxy> {
  const target = new URL(devcloud().glance.url);
  const requests: string[] = [];
  const server: Server = createServer((incoming, answer) => {
    requests.push(`${incoming.method ?? ''} ${incoming.url ?? ''}`);
    const forward = request({ host: target.hostname, port: target.port, path: incoming.url, method: incoming.method, headers: incoming.headers }, (reply) => {
      answer.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(answer);
    });
    forward.on('error', () => answer.destroy());
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests,
    close: () => new Promise((resolve) => { server.close(() => resolve()); }) };
}
