/**
 * Runs jobs under two limits at once: at most `global` jobs overall, and at most `perStore` jobs touching any one
 * store. A job names its stores and holds a slot in each for its whole run (a multi-store import writes them all).
 * Jobs start in submission order among those that fit: a job whose stores are full lets later jobs for other stores
 * pass it, so one busy store does not idle the rest. Slots are taken all at once, never one by one, so two jobs
 * can never each hold what the other waits for.
 */
export interface SlotScheduler {
  run<T>(stores: readonly string[], work: () => Promise<T>): Promise<T>;
  /** A new overall limit (adaptive concurrency): a higher one starts queued jobs at once; a lower one lets running jobs end. */
  setGlobal(limit: number): void;
  readonly global: number;
  readonly running: number;
  readonly queued: number;
}

interface Waiting {
  readonly stores: readonly string[];
  readonly start: () => void;
}

export function createSlotScheduler(limits: { readonly global: number; readonly perStore: number }): SlotScheduler {
  const busy = new Map<string, number>();
  const queue: Waiting[] = [];
  let running = 0;
  let global = limits.global;

  const fits = (stores: readonly string[]): boolean =>
    running < global && stores.every((store) => (busy.get(store) ?? 0) < limits.perStore);

  const take = (stores: readonly string[]): void => {
    running += 1;
    for (const store of stores) busy.set(store, (busy.get(store) ?? 0) + 1);
  };

  const startWhatFits = (): void => {
    for (let i = 0; i < queue.length && running < global;) {
      const next = queue[i]!;
      if (fits(next.stores)) {
        queue.splice(i, 1);
        take(next.stores);
        next.start();
      } else {
        i += 1;
      }
    }
  };

  const release = (stores: readonly string[]): void => {
    running -= 1;
    for (const store of stores) busy.set(store, (busy.get(store) ?? 1) - 1);
    startWhatFits();
  };

  return {
    get running() {
      return running;
    },
    get queued() {
      return queue.length;
    },
    get global() {
      return global;
    },
    setGlobal(limit) {
      global = limit;
      startWhatFits();
    },
    run(stores, work) {
      const unique = [...new Set(stores)];
      return new Promise((resolve, reject) => {
        const start = (): void => {
          Promise.resolve().then(work).then(resolve, reject).finally(() => release(unique));
        };
        if (fits(unique)) {
          take(unique);
          start();
        } else {
          queue.push({ stores: unique, start });
        }
      });
    },
  };
}
