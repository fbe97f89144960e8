import type { Server } from 'node:http';
import type { Clock } from '../clock/clock.js';
import { FerryError } from '../errors/ferry-error.js';
import type { Logger } from '../logging/logger.js';
import type { Dispatcher } from './agent-dispatch.js';
import type { ConnectionDrain } from './connection-drain.js';

/** While draining, how long a connection accepted before the agent stopped accepting may take to send its request. */
export const FRESH_CONNECTION_GRACE_MS = 1_000;

export interface DrainInput {
  readonly server: Server;
  readonly connections: ConnectionDrain;
  readonly dispatcher: Dispatcher;
  /** Set here as the drain goes: dispatch reads it. */
  readonly state: { draining: boolean; refusing: boolean };
  readonly graceMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * Stop accepting; answer the requests on connections already open within the grace; then answer what is still
 * running FERRY_AGENT_SHUTTING_DOWN and close every connection. New connections wait in the listen backlog: systemd's
 * socket outlives this process, so the next agent answers them.
 */
export async function drainAgent({ server, connections, dispatcher, state, graceMs, clock, logger }: DrainInput): Promise<void> {
  state.draining = true;
  const closed = connections.stopAccepting();
  const drainStarted = clock.now();
  const graceEnds = drainStarted + graceMs;
  logger.info({ inFlight: dispatcher.inFlight, connections: connections.open, graceMs }, 'ferry agent shutting down');
  connections.closeQuiet(0, FRESH_CONNECTION_GRACE_MS);
  while ((dispatcher.inFlight > 0 || connections.open > 0) && clock.now() < graceEnds) {
    await clock.sleep(Math.min(25, graceEnds - clock.now()));
    connections.closeQuiet(clock.now() - drainStarted, FRESH_CONNECTION_GRACE_MS);
  }
  state.refusing = true;
  dispatcher.abortAll(new FerryError('FERRY_AGENT_SHUTTING_DOWN', 'the ferry agent shut down before the request finished',
    'Retry: the copy goes on in Glance, and the next agent (or ferry ensure --no-agent) picks it up.'));
  // Aborted handlers answer at once; give them a moment to write before the connections go.
  for (let i = 0; i < 40 && dispatcher.inFlight > 0; i += 1) await clock.sleep(25);
  server.closeAllConnections();
  await closed;
}
