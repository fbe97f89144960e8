/** What a copy is doing, for callers and the CLI's live line. The library reports; it never prints. */
export type CopyPhase = 'checking' | 'requesting' | 'copying' | 'joining' | 'done';

export interface CopyProgressEvent {
  readonly imageId: string;
  readonly store: string;
  readonly phase: CopyPhase;
  /** Since ensure() started. */
  readonly elapsedMs: number;
  /** Image reads so far. */
  readonly polls: number;
  /** Glance's task message, e.g. "Copied 512 MiB" (refreshed by Glance at most every 60 s). */
  readonly taskMessage?: string | undefined;
  /** The waiter's note for the last poll, e.g. "copying to site-b". */
  readonly note?: string | undefined;
}
