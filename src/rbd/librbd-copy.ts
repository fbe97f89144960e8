import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { CEPH_CLI_DEFAULTS, cephTimeoutSeconds } from './ceph-cli.js';
import type { CephCluster } from '../config/ceph-cluster.js';
import { childEnvironment } from '../process/child-environment.js';
import { isolatedPython, rbdPython } from './python-program.js';
import type { RbdDiffSummary } from './rbd-diff-stream.js';
import type { RbdImageRef, RenameOutcome } from './rbd-image-commands.js';
import { RbdStreamError, transferAborted } from './rbd-streams.js';

// The Node side of the librbd copy (python/librbd_copy.py, whose header gives the protocol): starts the Python process
// isolated, from /, without ferry's credentials (python-program.ts, process/child-environment.ts), feeds it the job, reads its
// events. Decisions (is the copy proven, may it be renamed) stay with the caller: this module only reports what the
// process saw.

export interface LibrbdCopyRequest {
  readonly source: CephCluster & RbdImageRef & { readonly snapshot: string };
  /** One or more temporary images, each created empty with the source's shape: read once, written to each. */
  readonly targets: readonly (CephCluster & RbdImageRef)[];
  /** The snapshot made and protected on each target once written: the one a clone is made of. */
  readonly targetSnapshot: string;
  readonly algorithm: string;
  readonly objectSize: number;
  /** --rate-limit: the source is read no faster than this many bytes a second (absent: as fast as it comes). */
  readonly bytesPerSecond?: number | undefined;
  /** image-meta set on the target before any byte: who writes (`host:pid`). */
  readonly writer: { readonly key: string; readonly value: string };
  readonly signal: AbortSignal;
  readonly python?: string;
  readonly connectTimeoutMs?: number;
}

/** What the process saw: the bytes' hash in offset order (as a stream summary), and each target's snapshot. */
export interface LibrbdCopied {
  readonly summary: RbdDiffSummary;
  /** Non-zero bytes written (to each target). */
  readonly dataBytes: number;
  /** In the request's order. */
  readonly targets: readonly LibrbdTargetFacts[];
}

export type LibrbdTargetFacts =
  | { readonly ok: true; readonly snapshotSize: number; readonly extents: readonly { readonly offset: number; readonly length: number }[];
    /** The written image's id and its snapshot's, from the handle that wrote them: the final name must hold these. */
    readonly imageId: string; readonly snapshotId: number }
  /** This target failed (the others may not have): coded by the caller as a target write failure. */
  | { readonly ok: false; readonly failure: RbdStreamError };

export interface LibrbdCopySession {
  /** The copy's facts, once written, snapshotted and protected. Rejects with RbdStreamError (side) or FERRY_ABORTED. */
  readonly copied: Promise<LibrbdCopied>;
  mark(target: number, key: string, value: string): Promise<void>;
  /** Closes the target's image (the process keeps it open until the rename), so that it can be removed. */
  drop(target: number): Promise<void>;
  /** The commit: 'exists' when the name is taken, 'absent' when the temporary image is gone. */
  rename(target: number, to: string): Promise<RenameOutcome>;
  /**
   * What the target's pool holds under `name` now: its image id and the id of its snapshot `targetSnapshot`, and whether
   * that snapshot is protected (undefined: no image of that name). Asked after the rename: one round trip through the
   * connected process, where `rbd info` + `rbd snap ls` cost a process and a cluster connection each.
   */
  identify(target: number, name: string): Promise<LibrbdNameHolder | undefined>;
  /** Ends the process (after the rename, or when the caller gives up); resolves once it exited. */
  close(): Promise<void>;
}

/** The image under a name, as `identify` finds it. */
export interface LibrbdNameHolder {
  readonly imageId: string | undefined;
  readonly snapshotId: number | undefined;
  readonly protected: boolean;
}

/** python3 or its rbd binding is missing: the caller uses the rbd CLI pipe instead. */
export class LibrbdUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LibrbdUnavailableError';
  }
}

type Event = { readonly event: string } & Readonly<Record<string, unknown>>;

/**
 * A librbd copy process started ahead of its job: Python's start and the binding's import (~0.05 s) overlap the
 * claim's rbd commands. `start` gives it the job; `discard` ends one that got none (nothing was claimed).
 */
export interface PreparedLibrbdCopy {
  start(request: Omit<LibrbdCopyRequest, 'python'>): LibrbdCopySession;
  discard(): Promise<void>;
}

export function prepareLibrbdCopy(python: string = rbdPython()): PreparedLibrbdCopy {
  const program = isolatedPython('librbd_copy');
  const child = spawn(python, program.args, { cwd: program.cwd, env: childEnvironment(), stdio: ['pipe', 'pipe', 'pipe'] });
  // Listening from the spawn on: a python that cannot start says so before any job is given.
  const events = eventQueue(child);
  child.stdin?.on('error', () => undefined);
  let started = false;
  return {
    start(request) {
      started = true;
      return runLibrbdCopy(child, events, python, request);
    },
    async discard() {
      if (started) return;
      started = true;
      child.stdin?.end(); // no job: it exits at once
      const killing = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await events.exitCode;
      clearTimeout(killing);
    },
  };
}

export function startLibrbdCopy(request: LibrbdCopyRequest): LibrbdCopySession {
  return prepareLibrbdCopy(request.python).start(request);
}

function runLibrbdCopy(child: ChildProcess, events: EventQueue, python: string, request: Omit<LibrbdCopyRequest, 'python'>): LibrbdCopySession {
  const where = `${request.source.pool}/${request.source.image}@${request.source.snapshot} → ${request.targets.map((t) => `${t.pool}/${t.image}`).join(', ')}`;
  const kill = (): void => { child.kill('SIGKILL'); };
  // Told by its stdin closing, it stops writing and closes the images, so their watch does not outlive it; one stuck
  // in librados is killed.
  let stopping: NodeJS.Timeout | undefined;
  const stop = (): void => {
    child.stdin?.end();
    stopping ??= setTimeout(kill, 5_000);
  };
  request.signal.addEventListener('abort', stop, { once: true });
  if (request.signal.aborted) stop();
  void events.exitCode.then(() => clearTimeout(stopping));
  // The process runs from /: a relative ceph.conf is made absolute here.
  child.stdin?.write(`${JSON.stringify({
    source: { conf: resolve(request.source.confFile), user: request.source.user, pool: request.source.pool, image: request.source.image,
      snapshot: request.source.snapshot },
    targets: request.targets.map((target) => ({ conf: resolve(target.confFile), user: target.user, pool: target.pool, image: target.image })),
    target_snapshot: request.targetSnapshot, algorithm: request.algorithm, object_size: request.objectSize, bytes_per_second: request.bytesPerSecond ?? 0, writer_key: request.writer.key, writer: request.writer.value,
    connect_timeout_s: cephTimeoutSeconds(request.connectTimeoutMs ?? CEPH_CLI_DEFAULTS.connectTimeoutMs),
  })}\n`);

  const next = async (expected: readonly string[]): Promise<Event> => {
    for (;;) {
      const event = await events.next();
      if (request.signal.aborted) throw transferAborted(where);
      if (event === undefined && events.spawnError() !== undefined) throw new LibrbdUnavailableError(`${python}: ${events.spawnError()}`);
      if (event === undefined) throw new RbdStreamError({ side: 'target', exitCode: await events.exitCode, message: `the librbd copy process ended without an answer${events.stderrTail()}` });
      if (event.event === 'unavailable') throw new LibrbdUnavailableError(`${python}: ${String(event.message)}`);
      if (event.event === 'error') {
        throw new RbdStreamError({ side: event.side === 'source' ? 'source' : 'target', exitCode: await events.exitCode,
          message: `${String(event.step)}: ${String(event.message)}` });
      }
      if (expected.includes(event.event)) return event;
    }
  };
  const copied = next(['copied']).then((event) => factsOf(event, request.targetSnapshot));
  copied.catch(() => undefined);
  // One command at a time: the answers come in the order the commands were sent, and stores finish concurrently.
  let queue: Promise<unknown> = copied.catch(() => undefined);
  const command = (op: Readonly<Record<string, string | number>>, expected: readonly string[]): Promise<Event> => {
    const answer = queue.then(async () => {
      child.stdin?.write(`${JSON.stringify(op)}\n`);
      return next(expected);
    });
    queue = answer.catch(() => undefined);
    return answer;
  };
  return {
    copied,
    mark: async (target, key, value) => { await command({ op: 'mark', target, key, value }, ['marked']); },
    drop: async (target) => { await command({ op: 'drop', target }, ['dropped']); },
    rename: async (target, to) => (await command({ op: 'rename', target, to }, ['renamed', 'exists', 'absent'])).event as RenameOutcome,
    async identify(target, name) {
      const answer = await command({ op: 'identify', target, name }, ['identified', 'absent']);
      if (answer.event === 'absent') return undefined;
      return { imageId: typeof answer.image_id === 'string' ? answer.image_id : undefined,
        snapshotId: Number.isSafeInteger(answer.snapshot_id) ? Number(answer.snapshot_id) : undefined, protected: answer.protected === true };
    },
    async close() {
      request.signal.removeEventListener('abort', stop);
      stop();
      await events.exitCode;
    },
  };
}

function factsOf(event: Event, targetSnapshot: string): LibrbdCopied {
  // Only non-zero blocks are written: the objects written to are the objects given data.
  const objects = new Set(Array.isArray(event.objects) ? event.objects.map(Number) : []);
  const targets = (Array.isArray(event.targets) ? event.targets as Readonly<Record<string, unknown>>[] : []).map(targetFactsOf);
  return {
    summary: {
      size: Number(event.size), toSnapshot: targetSnapshot, fromSnapshot: undefined, digest: String(event.digest), ordered: true,
      writtenObjects: objects, dataObjects: objects, streamBytes: Number(event.data_bytes),
    },
    dataBytes: Number(event.data_bytes),
    targets,
  };
}

function targetFactsOf(target: Readonly<Record<string, unknown>>): LibrbdTargetFacts {
  const failed = (message: string): LibrbdTargetFacts => ({ ok: false, failure: new RbdStreamError({ side: 'target', exitCode: null, message }) });
  if (target.ok !== true) return failed(`${String(target.step)}: ${String(target.message)}`);
  // Without them the copy could not be told from an image renamed into its name: never registered.
  if (typeof target.image_id !== 'string' || target.image_id === '' || !Number.isSafeInteger(target.snapshot_id)) {
    return failed(`the librbd copy did not report the written image's id and its snapshot's (image_id ${JSON.stringify(target.image_id)}, `
      + `snapshot_id ${JSON.stringify(target.snapshot_id)})`);
  }
  return { ok: true, snapshotSize: Number(target.snapshot_size), imageId: target.image_id, snapshotId: Number(target.snapshot_id),
    extents: (Array.isArray(target.extents) ? target.extents as unknown[][] : []).map(([offset, length]) => ({ offset: Number(offset), length: Number(length) })) };
}

interface EventQueue {
  next(): Promise<Event | undefined>;
  readonly exitCode: Promise<number | null>;
  stderrTail(): string;
  spawnError(): string | undefined;
}

/** stdout as a queue of events; `undefined` once it ended. */
function eventQueue(child: ChildProcess): EventQueue {
  const waiting: ((event: Event | undefined) => void)[] = [];
  const ready: (Event | undefined)[] = [];
  let ended = false;
  let stderr = '';
  let spawnError: string | undefined;
  child.stderr?.on('data', (chunk: Buffer) => { stderr = (stderr + chunk.toString('utf8')).slice(-2000); });
  const deliver = (event: Event | undefined): void => {
    const waiter = waiting.shift();
    if (waiter === undefined) ready.push(event);
    else waiter(event);
  };
  const exitCode = new Promise<number | null>((resolve) => {
    // Not started (ENOENT, EACCES): 'close' follows 'error'.
    child.on('error', (error) => { spawnError = error.message; });
    child.on('close', (code) => resolve(code));
  });
  if (child.stdout !== null) {
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      try {
        const parsed = JSON.parse(line) as unknown;
        if (typeof parsed === 'object' && parsed !== null && typeof (parsed as Event).event === 'string') deliver(parsed as Event);
      } catch {
        stderr = `${stderr}\n${line}`.slice(-2000);
      }
    });
    lines.on('close', () => { ended = true; deliver(undefined); });
  }
  void exitCode.then(() => { if (child.stdout === null && !ended) deliver(undefined); });
  return {
    next: () => {
      if (ready.length > 0) return Promise.resolve(ready.shift());
      if (ended) return Promise.resolve(undefined);
      return new Promise((resolve) => waiting.push(resolve));
    },
    exitCode,
    spawnError: () => spawnError,
    stderrTail: () => {
      const line = stderr.trim().split('\n').filter((l) => l.trim() !== '').at(-1);
      return line === undefined ? '' : `: ${line}`;
    },
  };
}
