import type { CopyProgressEvent } from '../copy/copy-progress.js';
import { FerryError } from '../errors/ferry-error.js';
import type { AgentMetrics } from './agent-metrics.js';

/** One (image, store) wait in the agent and the requests on it. */
interface Wait {
  requests: number;
  readonly listeners: Set<(event: CopyProgressEvent) => void>;
}

export interface WaitTicket {
  /** True for the request that started the wait; the others joined it. */
  readonly leader: boolean;
  /** Hand this to ensure(): it reaches every request on the wait (ensure() keeps only the first caller's callback). */
  readonly publish: (event: CopyProgressEvent) => void;
  /** Add this request's listener later (acting for a user: once the user's own look at the image passed). */
  listen(listener: (event: CopyProgressEvent) => void): void;
  leave(): void;
}

export interface EnsureWaits {
  /** Join or start the wait for `key`; FERRY_AGENT_BUSY when it would be one distinct wait more than allowed. */
  enter(key: string, listener?: (event: CopyProgressEvent) => void): WaitTicket;
  readonly size: number;
}

/**
 * Counts the distinct waits (for --max-waits and the gauge) and fans progress out to every request on a wait. The
 * single flight itself is the copy engine's (CopyContext.copyFlights): this only keeps the books around it.
 */
export function createEnsureWaits(maxWaits: number, metrics: AgentMetrics): EnsureWaits {
  const waits = new Map<string, Wait>();
  metrics.maxWaits.set(maxWaits);
  return {
    get size() {
      return waits.size;
    },
    enter(key, listener) {
      let wait = waits.get(key);
      const leader = wait === undefined;
      if (wait === undefined) {
        if (waits.size >= maxWaits) {
          throw new FerryError('FERRY_AGENT_BUSY', `the agent already runs ${waits.size} distinct waits (--max-waits ${maxWaits})`,
            'Retry shortly, or raise --max-waits on the agent if the host really boots this many different images at once.',
            { maxWaits });
        }
        wait = { requests: 0, listeners: new Set() };
        waits.set(key, wait);
        metrics.waitsInFlight.set(waits.size);
      } else {
        metrics.requestsJoined.inc();
      }
      const current = wait;
      current.requests += 1;
      const mine = new Set<(event: CopyProgressEvent) => void>();
      const listen = (added: (event: CopyProgressEvent) => void): void => {
        if (left) return;
        mine.add(added);
        current.listeners.add(added);
      };
      let left = false;
      if (listener) listen(listener);
      return {
        leader,
        publish: (event) => {
          for (const each of current.listeners) each(event);
        },
        listen,
        leave: () => {
          if (left) return;
          left = true;
          for (const added of mine) current.listeners.delete(added);
          current.requests -= 1;
          if (current.requests === 0 && waits.get(key) === current) {
            waits.delete(key);
            metrics.waitsInFlight.set(waits.size);
          }
        },
      };
    },
  };
}
