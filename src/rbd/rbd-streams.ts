import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { FerryError } from '../errors/ferry-error.js';
import { cephConnectionArgs, cephMessage, resolveCephCliOptions, type CephCliOptions } from './ceph-cli.js';
import { childEnvironment } from '../process/child-environment.js';
import type { RbdImageRef } from './rbd-image-commands.js';

// The two data streams of the direct transfer. The bytes pass through this process (not a shell pipe) so that when
// ferry stops or dies, both rbd processes lose their pipe and end at once: no orphan keeps writing.

/** How a stream ended, for the caller to judge (a source gone mid-stream is not a target failure). */
export type StreamFailure = { readonly side: 'source' | 'target'; readonly exitCode: number | null; readonly message: string };

/** Sees every chunk of the diff stream, in order, as it goes to import-diff (the stream hasher). Throwing stops both. */
export interface DiffStreamInspector {
  push(chunk: Buffer): void;
  /** True while it is too far behind: the stream waits (pausing export-diff) until it calls the drain listener. */
  behind?(): boolean;
  onDrain?(listener: () => void): void;
}

/**
 * `rbd export-diff SRC@snap - | rbd import-diff - DST`: the allocated extents only (sparse), and import-diff creates
 * the end snapshot `snap` on the target. Returns the diff stream's byte count: every byte import-diff was fed.
 */
export async function pipeRbdDiff(source: CephCliOptions, from: RbdImageRef & { readonly snapshot: string },
  target: CephCliOptions, to: RbdImageRef, signal: AbortSignal, inspector?: DiffStreamInspector): Promise<number> {
  const src = resolveCephCliOptions(source);
  const dst = resolveCephCliOptions(target);
  // `--` before the specs (a name is never an option); `-` is stdin/stdout.
  const exporter = spawn(src.rbdBinary, [...cephConnectionArgs(src), 'export-diff', '--no-progress', '--', `${from.pool}/${from.image}@${from.snapshot}`, '-'],
    { stdio: ['ignore', 'pipe', 'pipe'], signal, env: childEnvironment() });
  const importer = spawn(dst.rbdBinary, [...cephConnectionArgs(dst), 'import-diff', '--no-progress', '--', '-', `${to.pool}/${to.image}`],
    { stdio: ['pipe', 'ignore', 'pipe'], signal, env: childEnvironment() });
  let bytes = 0;
  let rejected: Error | undefined;
  // By hand rather than .pipe(): export-diff waits for whichever is slower, import-diff or the inspector.
  const output = exporter.stdout;
  const input = importer.stdin;
  let inputFull = false;
  let inputGone = false;
  const resume = (): void => {
    if (inputGone || (!inputFull && inspector?.behind?.() !== true)) output?.resume();
  };
  inspector?.onDrain?.(resume);
  output?.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (inspector !== undefined && rejected === undefined) {
      try {
        inspector.push(chunk);
      } catch (error) {
        // A stream ferry cannot read is not imported either: both processes end, nothing of it is kept.
        rejected = error instanceof Error ? error : new Error(String(error));
        exporter.kill('SIGTERM');
        importer.kill('SIGTERM');
      }
    }
    // An importer gone (its exit code tells why) no longer takes bytes: the rest of the stream is read and dropped.
    if (!inputGone && input?.write(chunk) === false) inputFull = true;
    if (!inputGone && (inputFull || inspector?.behind?.() === true)) output.pause();
  });
  output?.on('end', () => input?.end());
  input?.on('drain', () => {
    inputFull = false;
    resume();
  });
  input?.on('close', () => {
    inputGone = true;
    resume();
  });
  // The importer ending early (an error) must not crash us with EPIPE on its stdin.
  input?.on('error', () => undefined);
  const [exported, imported] = await Promise.all([ended(exporter), ended(importer)]);
  if (signal.aborted) throw transferAborted(`${from.pool}/${from.image}@${from.snapshot}`);
  if (rejected !== undefined) throw rejected;
  if (exported.exitCode !== 0) throw streamError({ side: 'source', exitCode: exported.exitCode, message: cephMessage(exported.stderr) });
  if (imported.exitCode !== 0) throw streamError({ side: 'target', exitCode: imported.exitCode, message: cephMessage(imported.stderr) });
  return bytes;
}

/** What reading a snapshot back saw: the hash of its bytes, how many, and which objects hold a non-zero byte. */
export interface SnapshotReadBack {
  readonly digest: string;
  readonly bytes: number;
  /** Indexes (offset ÷ object size) of the objects a non-zero byte was read from. */
  readonly dataObjects: ReadonlySet<number>;
}

/** `rbd export IMG@snap -` through a hash: the bytes a clone of that snapshot would read (the whole size, zeros too). */
export async function hashRbdSnapshot(cli: CephCliOptions, ref: RbdImageRef & { readonly snapshot: string }, algorithm: string,
  signal: AbortSignal, objectSize = DEFAULT_OBJECT_SIZE): Promise<SnapshotReadBack> {
  const o = resolveCephCliOptions(cli);
  const hash = createHash(algorithm);
  const child = spawn(o.rbdBinary, [...cephConnectionArgs(o), 'export', '--no-progress', '--', `${ref.pool}/${ref.image}@${ref.snapshot}`, '-'],
    { stdio: ['ignore', 'pipe', 'pipe'], signal, env: childEnvironment() });
  let bytes = 0;
  const dataObjects = new Set<number>();
  child.stdout?.on('data', (chunk: Buffer) => {
    noteDataObjects(chunk, bytes, objectSize, dataObjects);
    bytes += chunk.length;
    hash.update(chunk);
  });
  const done = await ended(child);
  if (signal.aborted) throw transferAborted(`${ref.pool}/${ref.image}@${ref.snapshot}`);
  if (done.exitCode !== 0) throw streamError({ side: 'target', exitCode: done.exitCode, message: cephMessage(done.stderr) });
  return { digest: hash.digest('hex'), bytes, dataObjects };
}

const DEFAULT_OBJECT_SIZE = 4 * 1024 * 1024;
const ZEROS = Buffer.alloc(1024 * 1024);

/** Adds to `objects` each object that `chunk` (at image offset `at`) gives a non-zero byte; zero runs compare natively. */
export function noteDataObjects(chunk: Buffer, at: number, objectSize: number, objects: Set<number>): void {
  for (let start = 0; start < chunk.length;) {
    const index = Math.floor((at + start) / objectSize);
    const end = Math.min(chunk.length, (index + 1) * objectSize - at);
    if (!objects.has(index) && !isZero(chunk.subarray(start, end))) objects.add(index);
    start = end;
  }
}

function isZero(bytes: Buffer): boolean {
  for (let start = 0; start < bytes.length; start += ZEROS.length) {
    const part = bytes.subarray(start, Math.min(bytes.length, start + ZEROS.length));
    if (!part.equals(ZEROS.subarray(0, part.length))) return false;
  }
  return true;
}

function ended(child: ChildProcess): Promise<{ exitCode: number | null; stderr: string }> {
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => { if (stderr.length < 8192) stderr += chunk.toString('utf8'); });
  return new Promise((resolve) => {
    child.on('error', (error) => { stderr += `\n${error.message}`; });
    child.on('close', (code) => resolve({ exitCode: code, stderr }));
  });
}

/** The direct transfer's copy of `spec` was cut by ferry's deadline or a signal. */
export function transferAborted(spec: string): FerryError {
  return new FerryError('FERRY_ABORTED', `the transfer of ${spec} was interrupted`, 'Run the same command again: a leftover temporary image is removed first');
}

/** Coded by the transfer (rbd-direct-errors.ts) with the side that failed; here only the facts. */
export class RbdStreamError extends Error {
  constructor(readonly failure: StreamFailure) {
    super(`rbd ${failure.side === 'source' ? 'export-diff' : 'import-diff/export'} failed (exit ${failure.exitCode ?? 'signal'}): ${failure.message}`);
    this.name = 'RbdStreamError';
  }
}

function streamError(failure: StreamFailure): RbdStreamError {
  return new RbdStreamError(failure);
}
