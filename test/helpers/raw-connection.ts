import { connect, type NetConnectOpts, type Socket } from 'node:net';

/** A raw connection (a Unix socket path, or TCP options), once connected: for tests of connection limits and timeouts. */
export function rawConnection(to: string | NetConnectOpts): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = typeof to === 'string' ? connect(to) : connect(to);
    socket.once('connect', () => resolve(socket)).once('error', reject);
  });
}

/**
 * Send `request` (if any) on the connection and report what became of it: the answer's status line, `closed` when the
 * server closed it without a byte, or `still open` after `timeoutMs`.
 */
export function connectionFate(socket: Socket, request: string | undefined, timeoutMs: number): Promise<string> {
  return new Promise((resolve) => {
    // Closed already (a server may reset a connection over its cap before this is called).
    if (socket.destroyed || socket.readyState === 'closed') {
      resolve('closed');
      return;
    }
    let text = '';
    const statusLine = (): string => text.split('\r\n')[0] ?? '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\r\n')) resolve(statusLine());
    });
    socket.once('close', () => resolve(text === '' ? 'closed' : statusLine()));
    socket.once('error', () => undefined);
    setTimeout(() => resolve('still open'), timeoutMs).unref();
    if (request !== undefined) socket.write(request);
  });
}
