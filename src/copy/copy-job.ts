import type { CopyPolicy } from '../config/copy-policy.js';
import type { FerryError } from '../errors/ferry-error.js';
import type { GlanceImage } from '../glance/image.js';
import type { GlanceTask } from '../glance/image-task.js';
import type { WaitOutcome } from '../wait/wait-for.js';
import type { CopySnapshot } from './copy-snapshot.js';
import type { OwnImportVerdict } from './judge-own-import.js';
import type { CopyContext } from './copy-context.js';
import type { CopyDeadline } from './copy-deadline.js';
import type { Leftover, WaitSeen } from './copy-errors.js';
import type { StorePlacement } from './copy-round.js';
import type { StaleRule } from './copy-state.js';
import type { CopyCounters, FollowEnvironment } from './follow-import.js';
import type { GlanceOutage } from './glance-outage.js';
import type { StoreCopyResult } from './store-copy-result.js';

export type CopyJobPhase = 'checking' | 'requesting' | 'copying' | 'joining';

export interface CopyJobProgress {
  readonly phase: CopyJobPhase;
  readonly stores: readonly string[];
  readonly elapsedMs: number;
  readonly polls: number;
  readonly taskMessage: string | undefined;
  readonly note: string | undefined;
}

/** How long a job's imports take, learnt by the caller across jobs (prewarm's run pace). */
export interface ImportPace {
  expectedMs(storeCount: number): number | undefined;
  record(storeCount: number, durationMs: number): void;
}

export interface CopyJobOptions<Skip extends string> {
  /** The stores to bring the image into, in the order Glance should write them. */
  readonly stores: readonly string[];
  readonly classify: (image: GlanceImage, store: string) => StorePlacement<Skip>;
  /** `image`: one import naming every missing store (allow-failure); `store`: one store per import. */
  readonly requestMode: 'image' | 'store';
  readonly policy: CopyPolicy;
  /** How missing stores are brought; default: Glance's copy-image. */
  readonly transfer?: CopyTransfer;
  /** The caller's signal; the deadline is added to it. */
  readonly signal?: AbortSignal | undefined;
  /** A deadline the caller started earlier (to cover its own reads); otherwise the job starts one. */
  readonly deadline?: CopyDeadline;
  readonly counters?: CopyCounters;
  readonly random?: (() => number) | undefined;
  /** Learnt import durations of the caller's run: for the first read after a request. */
  readonly pace?: ImportPace;
  /** First read after an accepted request at this fraction of the expected duration (learnt / only guessed); none when absent. */
  readonly firstRead?: { readonly learnt: number; readonly guessed: number };
  readonly onProgress?: (event: CopyJobProgress) => void;
  /** Is a failed store's target taken by a leftover RBD image? Asked only after Glance failed a copy to that store. */
  readonly findLeftover?: (store: string, image: GlanceImage, signal: AbortSignal) => Promise<Leftover | undefined>;
}

export interface CopyJobResult<Skip extends string> {
  /** The last snapshot of the image the job read. */
  readonly image: GlanceImage;
  readonly results: ReadonlyMap<string, StoreCopyResult<Skip>>;
  /** The job waited on an import someone else ran (or was told the image was busy). */
  readonly joinedOther: boolean;
  /** The task whose expired lock this job made Glance bust. */
  readonly tookOver: string | undefined;
  readonly counters: CopyCounters;
  readonly elapsedMs: number;
}

/** The import this job requested and has not seen settle: what may go on inside Glance if the job stops. */
export interface PendingImport {
  readonly stores: readonly string[];
  readonly taskId: string | undefined;
}

/** What a job has learnt so far: the one mutable record its steps share. */
export interface JobState<Skip extends string> {
  image: GlanceImage;
  remaining: string[];
  readonly results: Map<string, StoreCopyResult<Skip>>;
  joinedOther: boolean;
  touchedGlance: boolean;
  tookOver: string | undefined;
  pending: PendingImport | undefined;
  taskMessage: string | undefined;
  phase: CopyJobPhase;
  phaseStores: readonly string[];
  /** A lock we proved expired: the next round asks Glance to bust it instead of joining it. */
  expiredLock: string | undefined;
  /**
   * Locks Glance refused to bust when asked (409): their task exists and is not expired by Glance's rule, whatever we
   * read. A lock whose task we could not find is then another project's (ferry's own role sees only its project's
   * tasks): joined like any import, never taken over again.
   */
  readonly refusedTakeOvers: Set<string>;
  /** The last request's answer was lost: what shows up next may be its copy. */
  unconfirmed: { readonly stores: readonly string[]; readonly error: FerryError } | undefined;
  /** Why a store is `joined`: the task seen bringing it. */
  readonly broughtBy: Map<string, string>;
  /** Stores seen in os_glance_importing_to_stores during the job: a failure Glance lists for them afterwards is this import's. */
  readonly importingSeen: Set<string>;
  lastWait: WaitSeen;
}

/** One job: its fixed surroundings, and its state. Steps and transfers take this. */
export interface CopyJob<Skip extends string> {
  readonly ctx: CopyContext;
  readonly options: CopyJobOptions<Skip>;
  readonly deadline: CopyDeadline;
  readonly counters: CopyCounters;
  readonly rule: StaleRule;
  readonly outage: GlanceOutage;
  readonly follow: FollowEnvironment;
  readonly state: JobState<Skip>;
  elapsed(): number;
  progress(phase: CopyJobPhase, stores: readonly string[], note?: string): void;
  /** One image read within the deadline; `afterStop` reads without the job's (aborted) signal. */
  read(mode?: 'within-deadline' | 'afterStop'): Promise<GlanceImage>;
}

/** The ways ferry can bring an image into a store. */
export const TRANSFER_KINDS = ['glance', 'rbd'] as const;
export type TransferKind = (typeof TRANSFER_KINDS)[number];

/**
 * A part the copy engine calls to bring missing stores, once a round has decided that nobody else's import holds
 * the image (joins, rounds, the deadline, single flight and judging stay the engine's): Glance's copy-image
 * (glance-copy-image.ts) or the direct RBD transfer (rbd-direct.ts). It reads the job and reports through its outcome
 * alone, never writing the job's state: the engine records the outcome and its effects.
 */
export interface CopyTransfer {
  readonly kind: TransferKind;
  /**
   * Bring `batch`; `takingOver` is an expired lock the request makes Glance bust. An error the job ends on comes back as
   * `stopped`, with what was done before it (a request that may have reached Glance).
   */
  bring<Skip extends string>(job: TransferJob<Skip>, batch: readonly string[], takingOver: string | undefined): Promise<TransferOutcome>;
}

/** The job as a transfer sees it: its state read-only (the type keeps a transfer from writing it). */
export type TransferJob<Skip extends string> = Omit<CopyJob<Skip>, 'state'> & { readonly state: Readonly<JobState<Skip>> };

/** What a transfer did that the job must remember, whatever the outcome: the engine records it, in this order. */
export interface TransferEffects {
  /** The request's answer was lost: what shows up may be its copy, and a deadline that passes is FERRY_COPY_UNCONFIRMED. */
  readonly unconfirmed?: { readonly stores: readonly string[]; readonly error: FerryError };
  /** Glance accepted our request (the answer, or a copy seen after a lost one): the lock it named is taken over. */
  readonly accepted?: { readonly takingOver: string | undefined };
  /** The import requested and not seen settle after this bring: what may go on inside Glance if the job stops. */
  readonly pending: PendingImport | undefined;
}

/** A transfer that did nothing the job must remember (the direct transfer: Glance runs no import of its). */
export const NO_EFFECTS: TransferEffects = { pending: undefined };

export type FailedWait = Exclude<WaitOutcome<CopySnapshot, CopySnapshot>, { state: 'success' }>;

export type TransferOutcome = TransferEnd & { readonly effects: TransferEffects };

type TransferEnd =
  /**
   * The request was sent and its answer lost (effects.unconfirmed); `image` was read once Glance answered again. Never
   * request on a guess. Undefined: Glance did not answer again before the deadline (or the stop).
   */
  | { readonly kind: 'answer-lost'; readonly image: GlanceImage | undefined }
  /**
   * Glance said no for now (400: already there, 409: busy): look at `image` again and decide. `deadLock`: Glance left
   * the lock to a task it never stored (a take-over by a caller that does not own the image, import-answer.ts).
   */
  | { readonly kind: 'not-started'; readonly image: GlanceImage; readonly busy: boolean; readonly deadLock?: boolean }
  /** Following the transfer did not settle (stuck lock, deadline, interruption). */
  | { readonly kind: 'wait-failed'; readonly outcome: FailedWait }
  /** The transfer ended; each store of the batch has a verdict. */
  | {
      readonly kind: 'ended';
      readonly snapshot: CopySnapshot;
      /** What the wait for its end saw (reads, retries): for the details of a failure. */
      readonly wait: WaitSeen;
      readonly verdicts: ReadonlyMap<string, OwnImportVerdict>;
      readonly tasks: readonly GlanceTask[];
      /** From the request to the end, and its share per store (what the duration estimator learns). */
      readonly elapsedMs: number;
      readonly perStoreMs: number;
      /** The transfer that ran: set by the one that ran it (an `auto` transfer may hand a store to Glance). */
      readonly transfer: TransferKind;
    }
  /** An error the job ends on (interrupted, the deadline, a coded error): the engine records the effects, then throws it. */
  | { readonly kind: 'stopped'; readonly error: unknown };
