/**
 * At most `limit` holders per key at once: the direct transfer's slots per source cluster and per target store, the
 * removals of one image by stores evicted side by side. Many holders share what a key names without one taking every
 * slot. Woken in arrival order; a waiter that aborts leaves the queue.
 */
export interface KeyedLimiter {
  run<T>(keys: readonly string[], signal: AbortSignal, work: () => Promise<T>): Promise<T>;
}

export function createKeyedLimiter(limit: number): KeyedLimiter {
  const held = new Map<string, number>();
  const waiting: { keys: readonly string[]; wake: () => void }[] = [];
  const free = (keys: readonly string[]): boolean => keys.every((key) => (held.get(key) ?? 0) < limit);
  const take = (keys: readonly string[]): void => { for (const key of keys) held.set(key, (held.get(key) ?? 0) + 1); };
  const release = (keys: readonly string[]): void => {
    for (const key of keys) held.set(key, (held.get(key) ?? 1) - 1);
    for (let i = 0; i < waiting.length; i += 1) {
      const next = waiting[i];
      if (next !== undefined && free(next.keys)) {
        waiting.splice(i, 1);
        i -= 1;
        take(next.keys);
        next.wake();
      }
    }
  };
  return {
    async run(keys, signal, work) {
      if (!free(keys)) {
        await new Promise<void>((resolve, reject) => {
          const entry = { keys, wake: () => { signal.removeEventListener('abort', onAbort); resolve(); } };
          const onAbort = (): void => {
            const at = waiting.indexOf(entry);
            if (at >= 0) waiting.splice(at, 1);
            reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
          };
          signal.addEventListener('abort', onAbort, { once: true });
          waiting.push(entry);
        });
      } else {
        take(keys);
      }
      try {
        return await work();
      } finally {
        release(keys);
      }
    },
  };
}
