import type { CopyProgressEvent } from '../../copy/copy-progress.js';

const PHASE_TEXT = {
  checking: 'checking where the image lives',
  requesting: 'asking Glance to copy',
  copying: 'copying',
  joining: 'waiting for a copy someone else started',
  done: 'done',
} as const;

/** The live line: phase, store, elapsed time and Glance's own progress message. */
export function describeCopyProgress(event: CopyProgressEvent): string {
  const seconds = (event.elapsedMs / 1000).toFixed(1);
  const extra = [event.taskMessage, event.note].filter((part) => part !== undefined && part !== '').join(' · ');
  return `${PHASE_TEXT[event.phase]} ${event.imageId} → ${event.store} · ${seconds} s${extra ? ` · ${extra}` : ''}`;
}
