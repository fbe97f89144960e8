import { execFile } from 'node:child_process';
import { childEnvironment } from '../process/child-environment.js';

/** How one run of a command ended. The runner reports; the caller (ceph-cli) decides what is an error. */
export type CommandOutcome =
  | {
      readonly outcome: 'exited';
      /** null when the process was killed by a signal ferry did not send. */
      readonly exitCode: number | null;
      readonly signal: string | null;
      readonly stdout: string;
      readonly stderr: string;
    }
  | { readonly outcome: 'timed-out'; readonly timeoutMs: number; readonly stdout: string; readonly stderr: string }
  | { readonly outcome: 'aborted' }
  /** The command could not be started (not installed, not executable) or its output overflowed the buffer. */
  | { readonly outcome: 'failed'; readonly message: string; readonly errorCode: string | undefined };

export interface CommandOptions {
  /** Hard limit: the process is killed (SIGKILL) after this long. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** The working directory (default: ferry's); python3 runs from `/` (python-program.ts). */
  readonly cwd?: string;
  /** stdout (and stderr) beyond this is cut off, the run `failed` (default MAX_OUTPUT_BYTES). */
  readonly maxOutputBytes?: number;
}

/** Runs a program without a shell. Injected so unit tests never spawn ceph or rbd. */
export interface CommandRunner {
  run(file: string, args: readonly string[], options: CommandOptions): Promise<CommandOutcome>;
}

/** The ceph/rbd CLIs print little; 4 MiB is far beyond `rbd info` and keeps a runaway process bounded. */
export const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

interface ExecFailure extends Error {
  code?: number | string | null;
  killed?: boolean;
  signal?: NodeJS.Signals | null;
}

/**
 * `node:child_process` execFile: no shell (arguments are never interpreted), bounded output, a kill on timeout and on
 * abort. SIGKILL rather than SIGTERM because a client stuck in librados must not outlive its deadline. The program gets
 * childEnvironment(): none of ferry's credentials.
 */
export const execFileRunner: CommandRunner = {
  run: (file, args, options) =>
    new Promise<CommandOutcome>((resolve) => {
      if (options.signal?.aborted === true) {
        resolve({ outcome: 'aborted' });
        return;
      }
      execFile(
        file,
        [...args],
        {
          encoding: 'utf8',
          timeout: options.timeoutMs,
          killSignal: 'SIGKILL',
          maxBuffer: options.maxOutputBytes ?? MAX_OUTPUT_BYTES,
          windowsHide: true,
          env: childEnvironment(),
          ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        },
        (error: ExecFailure | null, stdout: string, stderr: string) => {
          resolve(outcomeOf(error, stdout, stderr, options));
        },
      );
    }),
};

function outcomeOf(error: ExecFailure | null, stdout: string, stderr: string, options: CommandOptions): CommandOutcome {
  if (error === null) return { outcome: 'exited', exitCode: 0, signal: null, stdout, stderr };
  if (options.signal?.aborted === true || error.name === 'AbortError') return { outcome: 'aborted' };
  // A string code (ENOENT, EACCES, ERR_CHILD_PROCESS_STDIO_MAXBUFFER) means it never ran or was cut off by us.
  if (typeof error.code === 'string') return { outcome: 'failed', message: error.message, errorCode: error.code };
  if (error.killed === true) return { outcome: 'timed-out', timeoutMs: options.timeoutMs, stdout, stderr };
  if (typeof error.code === 'number') return { outcome: 'exited', exitCode: error.code, signal: null, stdout, stderr };
  return { outcome: 'exited', exitCode: null, signal: error.signal ?? null, stdout, stderr };
}
