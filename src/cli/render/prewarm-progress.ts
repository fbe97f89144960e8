import type { JobPhase, PrewarmEvent } from '../../fleet/prewarm-events.js';
import { describeItem, seconds } from './prewarm.js';

const PHASE_TEXT: Readonly<Record<JobPhase, string>> = {
  checking: 'checking',
  requesting: 'asking Glance',
  copying: 'copying',
  joining: 'waiting for another import',
};

interface RunningJob {
  readonly name: string;
  stores: readonly string[];
  phase: JobPhase;
  /** Monotonic time the job's own clock started, in the caller's clock (elapsed = now - startedAt). */
  startedAt: number;
  taskMessage: string | undefined;
  note: string | undefined;
}

/**
 * Follows a prewarm's events for the terminal: `frame()` is the live area on a TTY (an overall bar, then one line per
 * running copy: image → stores, elapsed, Glance's "Copied N MiB"); `line()` of an event is the plain log line written
 * off a TTY (planned, each decided copy, stopping). Rendering only: the numbers come from the events.
 */
export interface PrewarmProgress {
  /** Takes an event; returns the line to log for it, if any. */
  handle(event: PrewarmEvent, nowMs: number): string | undefined;
  frame(nowMs: number): string;
}

export function createPrewarmProgress(startedAtMs: number, options: { width?: number; maxLines?: number } = {}): PrewarmProgress {
  const running = new Map<string, RunningJob>();
  let total = 0;
  let done = 0;
  let failed = 0;
  let stopping = false;

  return {
    handle(event, nowMs) {
      switch (event.type) {
        case 'planned': {
          const work = event.plan.items.filter((item) => item.action === 'copy' || item.action === 'join');
          total = work.length;
          const c = event.plan.counts;
          return `plan: ${event.plan.items.length} (image, store) pairs: ${c.missing} missing, ${c['failed-earlier']} failed earlier, `
            + `${c.copying} being copied by someone else, ${c.present} present, ${c['not-copyable']} not copyable`;
        }
        case 'job-progress': {
          const job = running.get(event.imageId);
          if (job === undefined) {
            running.set(event.imageId, { name: event.imageName ?? event.imageId, stores: event.stores, phase: event.phase,
              startedAt: nowMs - event.elapsedMs, taskMessage: event.taskMessage, note: event.note });
          } else {
            Object.assign(job, { stores: event.stores, phase: event.phase, taskMessage: event.taskMessage, note: event.note });
          }
          return undefined;
        }
        case 'item-done': {
          const { item } = event;
          if (item.action !== 'copy' && item.action !== 'join') return undefined;
          done += 1;
          if (item.outcome === 'failed') failed += 1;
          // Copies never started after Ctrl-C are summed up by the stopping line and the report, not listed one by one.
          if (item.outcome === 'interrupted' && item.runningInGlance !== true) return undefined;
          const took = item.elapsedMs === undefined ? '' : ` in ${seconds(item.elapsedMs)}`;
          const why = item.outcome === 'copied' || item.outcome === 'joined' ? '' : `: ${item.reason}`;
          return `${(item.outcome ?? 'planned').padEnd(11)} ${describeItem(item)}${took}${why}`;
        }
        case 'job-done':
          running.delete(event.imageId);
          return undefined;
        case 'aborting':
          stopping = true;
          return `stopping: no new copies; ${event.running} running (they go on inside Glance), ${event.queued} not started`;
      }
    },
    frame(nowMs) {
      const width = options.width ?? 30;
      const filled = total === 0 ? width : Math.round((done / total) * width);
      const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
      const head = `${bar} ${done}/${total} copies · ${running.size} running${failed > 0 ? ` · ${failed} failed` : ''} · ${seconds(nowMs - startedAtMs)}`
        + (stopping ? ' · stopping' : '');
      const shown = [...running.values()].slice(0, options.maxLines ?? 12);
      const jobs = shown.map((job) => {
        const extra = [job.taskMessage, job.note].filter((part) => part !== undefined && part !== '').join(' · ');
        return `  ${job.name} → ${job.stores.join(', ')} · ${PHASE_TEXT[job.phase]} · ${seconds(nowMs - job.startedAt)}${extra ? ` · ${extra}` : ''}`;
      });
      const more = running.size - shown.length;
      return [head, ...jobs, ...(more > 0 ? [`  … ${more} more`] : [])].join('\n');
    },
  };
}
