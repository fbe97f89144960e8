import type { Server } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

/** What the drain knows of one open connection. */
export interface ConnectionState {
  /** Requests on it being answered now. */
  readonly active: number;
  /** Requests it has had answered. */
  readonly served: number;
}

/**
 * Pure: may the draining agent close this connection now? Never while a request is on it. A kept-alive connection
 * that was already answered is idle: closed at once. A connection accepted just before the agent stopped accepting
 * has usually not been read yet — its request is on the way, so it gets `freshGraceMs` to arrive (closing it would
 * fail a request the caller already sent).
 */
export function mayCloseDuringDrain(connection: ConnectionState, drainingForMs: number, freshGraceMs: number): boolean {
  if (connection.active > 0) return false;
  return connection.served > 0 || drainingForMs >= freshGraceMs;
}

export interface ConnectionDrain {
  /** Open connections. */
  readonly open: number;
  /** Whether a request on this connection is being answered now (an idle one may be closed). */
  busy(socket: Socket): boolean;
  /** Stop accepting new connections; those already accepted stay open. Resolves when the last one has closed. */
  stopAccepting(): Promise<void>;
  /** Close the connections mayCloseDuringDrain allows. */
  closeQuiet(drainingForMs: number, freshGraceMs: number): void;
}

/** Tracks the server's connections and their requests so that a shutdown can drain them without failing a request. */
export function trackConnections(server: Server): ConnectionDrain {
  const connections = new Map<Socket, { active: number; served: number }>();
  server.on('connection', (socket: Socket) => {
    connections.set(socket, { active: 0, served: 0 });
    socket.once('close', () => connections.delete(socket));
  });
  server.on('request', (request: { socket: Socket }, response: { once(event: 'close', listener: () => void): void }) => {
    const state = connections.get(request.socket);
    if (state === undefined) return;
    state.active += 1;
    response.once('close', () => {
      state.active -= 1;
      state.served += 1;
    });
  });
  return {
    get open() {
      return connections.size;
    },
    busy(socket) {
      return (connections.get(socket)?.active ?? 0) > 0;
    },
    stopAccepting() {
      // http.Server#close() also closes every connection that has no request parsed yet, which includes the ones
      // just accepted whose request is still in the socket buffer; net.Server#close() only stops accepting.
      return new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
    },
    closeQuiet(drainingForMs, freshGraceMs) {
      for (const [socket, state] of connections) {
        if (mayCloseDuringDrain(state, drainingForMs, freshGraceMs)) socket.destroy();
      }
    },
  };
}
