import type { GlanceImage } from '../glance/image.js';
import type { Acceptor } from '../wait/verdict.js';
import type { CopySnapshot } from './copy-snapshot.js';
import { copyState, type StaleRule } from './copy-state.js';

export interface CopyAcceptorOptions extends StaleRule {
  /** How long the copy is expected to take from the request (size / rate): lets the waiter poll towards its end. */
  readonly expectedDurationMs?: number | undefined;
}

/** Acceptors for a copy of one image to `store`; a thin verdict layer over copyState. */
export function copyAcceptors(store: string, options: CopyAcceptorOptions): readonly Acceptor<CopySnapshot, GlanceImage>[] {
  return [
    (snapshot) => {
      const state = copyState(snapshot, store, options);
      switch (state.kind) {
        case 'copying': {
          const note = state.writing ? `copying to ${store}` : `task ${state.taskId} preparing`;
          return options.expectedDurationMs === undefined
            ? { state: 'retry', note }
            : { state: 'retry', note, etaMs: options.expectedDurationMs - snapshot.elapsedMs };
        }
        case 'copied':
          return { state: 'success', value: snapshot.image };
        case 'stuck':
          return { state: 'failure', reason: state.why };
        case 'failed':
          return { state: 'failure', reason: `Glance reports the copy to ${store} failed` };
        case 'rolled-back':
          return { state: 'failure', reason: `the copy to ${store} was rolled back because ${state.failedStores.join(', ')} failed in the same import` };
        case 'vanished':
          return { state: 'failure', reason: `the import ended without ${store} in stores or failed stores (aborted, e.g. by a staging quota, or its lock was taken over)` };
      }
    },
  ];
}

/** For a joined copy (someone else's import): wait only for the lock to be released, then re-check from scratch. */
export function lockReleasedAcceptors(options: StaleRule & { readonly store: string }): readonly Acceptor<CopySnapshot, GlanceImage>[] {
  return [
    (snapshot) => {
      const state = copyState(snapshot, options.store, options);
      if (state.kind === 'stuck') return { state: 'failure', reason: state.why };
      if (state.kind === 'copying') return { state: 'retry', note: `joined task ${state.taskId}` };
      return { state: 'success', value: snapshot.image };
    },
  ];
}
