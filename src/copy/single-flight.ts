/**
 * Concurrent callers with the same key share one piece of work (one import request, one wait). Each caller keeps
 * its own AbortSignal: an abort releases that caller at once; the shared work is aborted only when every caller
 * has gone.
 */
export interface SingleFlight<V> {
  run(key: string, signal: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<V>): Promise<V>;
  readonly size: number;
}

interface Flight<V> {
  readonly promise: Promise<V>;
  readonly controller: AbortController;
  callers: number;
}

export function createSingleFlight<V>(): SingleFlight<V> {
  const flights = new Map<string, Flight<V>>();

  return {
    get size() {
      return flights.size;
    },
    run(key, signal, work) {
      if (signal?.aborted) return Promise.reject(signal.reason as Error);
      let flight = flights.get(key);
      if (flight === undefined) {
        const controller = new AbortController();
        const created: Flight<V> = {
          controller,
          callers: 0,
          promise: Promise.resolve()
            .then(() => work(controller.signal))
            .finally(() => {
              if (flights.get(key) === created) flights.delete(key);
            }),
        };
        flight = created;
        flights.set(key, flight);
      }
      const joined = flight;
      joined.callers += 1;
      if (signal === undefined) return joined.promise.finally(() => { joined.callers -= 1; });
      return new Promise<V>((resolve, reject) => {
        const leave = (): void => {
          signal.removeEventListener('abort', onAbort);
          joined.callers -= 1;
        };
        const onAbort = (): void => {
          leave();
          if (joined.callers === 0) {
            // Forget the abandoned flight now: a caller arriving while it unwinds starts a fresh one instead of
            // joining work that is already aborted.
            if (flights.get(key) === joined) flights.delete(key);
            joined.controller.abort(signal.reason);
          }
          reject(signal.reason as Error);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        joined.promise.then(
          (value) => { leave(); resolve(value); },
          // the shared work's own rejection, passed on unchanged (a FerryError in practice)
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
          (error: unknown) => { leave(); reject(error); },
        );
      });
    },
  };
}
