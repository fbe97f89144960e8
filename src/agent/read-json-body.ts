import type { IncomingMessage } from 'node:http';
import { FerryError } from '../errors/ferry-error.js';

/** Read a request body of at most `maxBytes` and decode it as JSON; each problem is one FERRY_AGENT_BAD_REQUEST. */
export async function readJsonBody(request: IncomingMessage, maxBytes: number): Promise<unknown> {
  const tooLarge = (): FerryError => new FerryError('FERRY_AGENT_BAD_REQUEST', `request body over ${maxBytes} bytes`,
    'Send a small JSON object: {"image": ID or NAME, "store"?: NAME, "timeout"?: SECONDS}.', { maxBytes });
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') {
    throw new FerryError('FERRY_AGENT_BAD_REQUEST', 'empty request body', 'Send a JSON object: {"image": ID or NAME}.');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new FerryError('FERRY_AGENT_BAD_REQUEST', `request body is not JSON: ${(error as Error).message}`,
      'Send a JSON object with Content-Type: application/json, e.g. {"image": "cirros-raw"}.');
  }
}
