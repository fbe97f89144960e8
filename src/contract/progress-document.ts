import { z } from 'zod';
import type { CopyPhase, CopyProgressEvent } from '../copy/copy-progress.js';

/** Every phase of a copy, once: a Record over CopyPhase, so a phase added there must be added here too. */
const PHASES: Readonly<Record<CopyPhase, string>> = {
  checking: 'the image is read and judged',
  requesting: 'a copy is being asked for',
  copying: 'our copy runs',
  joining: 'a copy someone else started runs',
  done: 'the store has it (or needs none)',
};

/**
 * One progress line of the agent's streamed answer to POST /v1/ensure (`Accept: application/x-ndjson`): the lines
 * before the last, which is the ensure document or the error document. Built here only; docs/agent.md shows it.
 */
export const progressJsonSchema = z.strictObject({
  progress: z.strictObject({
    image: z.string(),
    store: z.string(),
    phase: z.enum(Object.keys(PHASES) as [CopyPhase, ...CopyPhase[]]),
    /** Since the shared wait started, to the millisecond. */
    elapsed_seconds: z.number().nonnegative(),
    /** Image reads so far. */
    polls: z.number().int().nonnegative(),
    /** The waiter's note for the last read, e.g. "copying to site-b". */
    note: z.string().optional(),
    /** Glance's task message, e.g. "Copied 512 MiB", when it gave one. */
    task_message: z.string().optional(),
  }),
});

export type ProgressJson = z.infer<typeof progressJsonSchema>;

/** The one mapping of a copy progress event to its line. */
export function progressDocument(event: CopyProgressEvent): ProgressJson {
  return { progress: { image: event.imageId, store: event.store, phase: event.phase, elapsed_seconds: Math.round(event.elapsedMs) / 1000,
    polls: event.polls, ...(event.note ? { note: event.note } : {}), ...(event.taskMessage ? { task_message: event.taskMessage } : {}) } };
}
