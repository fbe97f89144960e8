import type { WaitOutcome } from '../wait/wait-for.js';
import type { CopySnapshot } from './copy-snapshot.js';
import { copyState, type CopyState, type StaleRule } from './copy-state.js';
import type { StoreCopyResult } from './store-copy-result.js';

// The copy engine's decisions, as pure functions of what a round has read. The engine (copy-engine.ts) does the I/O
// and applies what these return; the tables in test/unit/copy/copy-round.test.ts pin them down.

/** Where one store stands before a round: the caller's own rule (clonable for ensure, placement for prewarm). */
export type StorePlacement<Skip extends string> =
  | { readonly kind: 'present' }
  | { readonly kind: 'missing' }
  /** The caller decides this store now (not copyable: skipped); the engine passes the result on. */
  | { readonly kind: 'settled'; readonly result: StoreCopyResult<Skip> };

/** What one round sees: the fresh snapshot's facts and what the job has done so far. */
export interface RoundView<Skip extends string> {
  /** Stores without a result yet, in the caller's order. */
  readonly remaining: readonly string[];
  readonly placements: ReadonlyMap<string, StorePlacement<Skip>>;
  /** The job asked Glance for something or joined an import: a store that shows up now was brought, not present. */
  readonly touchedGlance: boolean;
  /** The task seen bringing a store, by store. */
  readonly broughtBy: ReadonlyMap<string, string>;
  /** The answer to our last request was lost: what shows up may be its copy. */
  readonly answerLost: boolean;
  readonly elapsedMs: number;
  readonly round: number;
  readonly maxRounds: number;
  /** The image's import lock (os_glance_import_task), and the stores it is writing. */
  readonly lock: string | undefined;
  readonly importingTo: readonly string[];
  /** A lock this job proved expired: the next request makes Glance bust it, instead of joining it. */
  readonly expiredLock: string | undefined;
  readonly requestMode: 'image' | 'store';
}

/** What the engine does next. */
export type RoundAction =
  | { readonly kind: 'done' }
  /** Rounds are bounded: imports of others kept taking the image. */
  | { readonly kind: 'give-up'; readonly stores: readonly string[] }
  /** Someone else's import holds the lock: wait for it to let go, without any request, then look again. */
  | { readonly kind: 'join'; readonly lock: string; readonly stores: readonly string[]; readonly writes: readonly string[] }
  /** Bring `batch` with the job's transfer; `takingOver`: the expired lock the request makes Glance bust. */
  | { readonly kind: 'transfer'; readonly batch: readonly string[]; readonly takingOver: string | undefined };

export interface RoundDecision<Skip extends string> {
  /** Stores this round settles (present, joined, or the caller's own verdict), before the action. */
  readonly settle: ReadonlyMap<string, StoreCopyResult<Skip>>;
  readonly next: RoundAction;
}

/** The stores that showed up while the job touched Glance and whose bringer is not named yet (one task read names them). */
export function storesToName<Skip extends string>(view: Pick<RoundView<Skip>, 'remaining' | 'placements' | 'touchedGlance' | 'broughtBy'>): string[] {
  return view.remaining.filter((store) => view.placements.get(store)?.kind === 'present' && view.touchedGlance && !view.broughtBy.has(store));
}

/**
 * The request mode a round batches by. Store mode exists for Glance's one-import-per-image lock; the direct transfer
 * takes no such lock, so an image's stores go to it together and run in parallel, bounded by its per-cluster limiter
 * (issue 19, every site at once). Pure.
 */
export function batchingMode(transferKind: 'glance' | 'rbd', requestMode: 'image' | 'store'): 'image' | 'store' {
  return transferKind === 'rbd' ? 'image' : requestMode;
}

/** One round: settle what the snapshot decides, then join, transfer, give up, or end. Pure. */
export function decideRound<Skip extends string>(view: RoundView<Skip>): RoundDecision<Skip> {
  const settle = new Map<string, StoreCopyResult<Skip>>();
  for (const store of view.remaining) {
    const placement = view.placements.get(store);
    if (placement?.kind === 'present') settle.set(store, Object.freeze(presentResult<Skip>(view, store)));
    else if (placement?.kind === 'settled') settle.set(store, placement.result);
  }
  const remaining = view.remaining.filter((store) => !settle.has(store));
  if (remaining.length === 0) return { settle, next: { kind: 'done' } };
  if (view.round >= view.maxRounds) return { settle, next: { kind: 'give-up', stores: remaining } };
  if (view.lock !== undefined && view.lock !== view.expiredLock) {
    const writes = remaining.filter((store) => view.importingTo.includes(store));
    return { settle, next: { kind: 'join', lock: view.lock, stores: remaining, writes } };
  }
  const batch = view.requestMode === 'store' ? remaining.slice(0, 1) : remaining;
  return { settle, next: { kind: 'transfer', batch, takingOver: view.lock } };
}

function presentResult<Skip extends string>(view: RoundView<Skip>, store: string): StoreCopyResult<Skip> {
  if (!view.touchedGlance) return { outcome: 'present', reason: `already in ${store}` };
  const taskId = view.broughtBy.get(store);
  return { outcome: 'joined', reason: `brought into ${store} by ${taskId ? `import task ${taskId}` : 'an import'} this job did not start`
    + (view.answerLost ? ' (the answer to our own request was lost: it may have been ours)' : ''),
  elapsedMs: view.elapsedMs, ...(taskId ? { taskId } : {}) };
}

type FailedWait = Exclude<WaitOutcome<CopySnapshot, CopySnapshot>, { state: 'success' }>;

/** What a wait that did not settle means. */
export type WaitFailureVerdict =
  /** The deadline passed (also when it cut the wait short). */
  | { readonly kind: 'timeout' }
  /** The caller stopped the job; the task watched, if any, may go on inside Glance. */
  | { readonly kind: 'interrupted'; readonly taskId: string | undefined }
  /** A lock Glance would release on the next import: send it (once per lock) and follow our own copy. */
  | { readonly kind: 'take-over'; readonly lock: string }
  /** The lock proved stuck: it blocks every remaining store of the image. */
  | { readonly kind: 'stuck'; readonly state: Extract<CopyState, { kind: 'stuck' }>; readonly snapshot: CopySnapshot };

/** Judge a wait that did not settle. Pure; throws only on a defect (a failure without a stuck lock). */
export function judgeWaitFailure(outcome: FailedWait, stores: readonly string[], rule: StaleRule,
  context: { readonly deadlineExpired: boolean; readonly takeOverExpired: boolean; readonly expiredLock: string | undefined;
    /** Locks Glance refused to bust already: asking again would only be refused again. */
    readonly refusedTakeOvers?: ReadonlySet<string> }): WaitFailureVerdict {
  if (outcome.state === 'aborted') {
    return context.deadlineExpired ? { kind: 'timeout' } : { kind: 'interrupted', taskId: outcome.last?.watchedTask };
  }
  if (outcome.state === 'timeout') return { kind: 'timeout' };
  const last = outcome.last;
  const stuck = last === undefined ? undefined
    : stores.map((store) => copyState(last, store, rule)).find((state) => state.kind === 'stuck');
  if (last !== undefined && stuck !== undefined && stuck.kind === 'stuck') {
    if (stuck.expired && context.takeOverExpired && context.expiredLock !== stuck.taskId && context.refusedTakeOvers?.has(stuck.taskId) !== true) {
      return { kind: 'take-over', lock: stuck.taskId };
    }
    return { kind: 'stuck', state: stuck, snapshot: last };
  }
  // storesSettledAcceptors fails a wait only on a stuck lock: anything else is a defect here, not Glance's doing.
  throw new Error(`copy engine: a wait failed without a stuck lock (${outcome.reason})`);
}
