import type { Acceptor } from '../wait/verdict.js';
import type { CopySnapshot } from './copy-snapshot.js';
import { copyState, type StaleRule } from './copy-state.js';

export interface SettledAcceptorOptions extends StaleRule {
  /** How long the import is expected to take from the request (size / rate): lets the waiter poll towards its end. */
  readonly expectedDurationMs?: number | undefined;
}

/**
 * The one wait of the copy engine, for an import that writes one or several stores (ours, or someone else's we
 * joined): done only when copyState no longer calls any of them `copying`, i.e. the watched task released the image's
 * import lock. Glance writes the stores one after another, and until the lock goes `stores` may show one that is
 * about to be rolled back and `os_glance_failed_import` may still show an earlier attempt, so no store is judged
 * before all are settled. A stuck lock ends the wait at once. Success hands back the settling snapshot.
 */
export function storesSettledAcceptors(stores: readonly string[], options: SettledAcceptorOptions): readonly Acceptor<CopySnapshot, CopySnapshot>[] {
  return [
    (snapshot) => {
      const states = stores.map((store) => ({ store, state: copyState(snapshot, store, options) }));
      for (const { state } of states) {
        if (state.kind === 'stuck') return { state: 'failure', reason: state.why };
      }
      const writing = states.filter(({ state }) => state.kind === 'copying' && state.writing).map(({ store }) => store);
      const waiting = states.find(({ state }) => state.kind === 'copying');
      if (waiting !== undefined && waiting.state.kind === 'copying') {
        const note = writing.length > 0 ? `copying to ${writing.join(', ')}` : `import task ${waiting.state.taskId} running`;
        return options.expectedDurationMs === undefined
          ? { state: 'retry', note }
          : { state: 'retry', note, etaMs: options.expectedDurationMs - snapshot.elapsedMs };
      }
      return { state: 'success', value: snapshot };
    },
  ];
}
