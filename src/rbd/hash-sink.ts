import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';

// Where the direct transfer's stream hash is computed. In a worker thread by default: sha512 runs at ~600–800 MiB/s
// on one core here, and on the thread that moves the bytes from export-diff to import-diff it stalled the pipe (a
// 256 MiB sparse image: 1.38 s against 0.68 s for the bare pipe, mostly hashing the zero fill). The worker hashes on
// the other core while the bytes flow; the pipe waits only when more than BACKLOG_LIMIT copied bytes wait for it.

/** A hash fed in order: bytes, or a run of zeros (sent as a length, never as bytes). */
export interface HashSink {
  update(bytes: Buffer): void;
  zeros(length: number): void;
  digest(): Promise<string>;
  /** Bytes copied to the hash and not hashed yet (0 for an in-process hash): what the pipe must not outrun. */
  backlogBytes(): number;
  /** Called once the backlog fell below the limit again (the pipe resumes). */
  onDrain(listener: () => void): void;
  /** Ends the worker, if any: after digest(), or when the transfer stops. */
  close(): void;
}

export const BACKLOG_LIMIT = 32 * 1024 * 1024;
const ZEROS = Buffer.alloc(1024 * 1024);

export function inProcessHash(algorithm: string): HashSink {
  const hash = createHash(algorithm);
  return {
    update: (bytes) => { hash.update(bytes); },
    zeros(length) {
      for (let left = length; left > 0; left -= ZEROS.length) hash.update(ZEROS.subarray(0, Math.min(left, ZEROS.length)));
    },
    digest: () => Promise.resolve(hash.digest('hex')),
    backlogBytes: () => 0,
    onDrain: () => undefined,
    close: () => undefined,
  };
}

// Plain CommonJS, evaluated: no module path to resolve inside the bundled CLI.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const hash = createHash(workerData.algorithm);
const zeros = Buffer.alloc(1024 * 1024);
let done = 0;
parentPort.on('message', (m) => {
  if (m.kind === 'bytes') { hash.update(m.bytes); done += m.bytes.length; }
  else if (m.kind === 'zeros') { for (let left = m.length; left > 0; left -= zeros.length) hash.update(zeros.subarray(0, Math.min(left, zeros.length))); return; }
  else if (m.kind === 'digest') { parentPort.postMessage({ kind: 'digest', value: hash.digest('hex') }); return; }
  parentPort.postMessage({ kind: 'done', done });
});
`;

export function workerHash(algorithm: string): HashSink {
  createHash(algorithm); // an unknown algorithm fails here, in the caller, not later in the worker
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { algorithm } });
  let sent = 0;
  let done = 0;
  let drainListener: (() => void) | undefined;
  let digestWaiter: { resolve: (value: string) => void; reject: (error: Error) => void } | undefined;
  let failure: Error | undefined;
  worker.on('message', (message: { kind: 'done'; done: number } | { kind: 'digest'; value: string }) => {
    if (message.kind === 'digest') {
      digestWaiter?.resolve(message.value);
      return;
    }
    const wasBehind = sent - done > BACKLOG_LIMIT;
    done = message.done;
    if (wasBehind && sent - done <= BACKLOG_LIMIT) drainListener?.();
  });
  worker.on('error', (error) => {
    failure = error;
    digestWaiter?.reject(error);
    drainListener?.();
  });
  return {
    update(bytes) {
      sent += bytes.length;
      // One exact copy, handed over (the chunk goes on to import-diff as it is, and may be a view of a larger buffer).
      const copy = new Uint8Array(bytes);
      worker.postMessage({ kind: 'bytes', bytes: copy }, [copy.buffer]);
    },
    zeros(length) {
      worker.postMessage({ kind: 'zeros', length });
    },
    digest() {
      if (failure !== undefined) return Promise.reject(failure);
      return new Promise<string>((resolve, reject) => {
        digestWaiter = { resolve, reject };
        worker.postMessage({ kind: 'digest' });
      });
    },
    // Copies waiting in the worker's queue (memory); a zero run is a length and costs none.
    backlogBytes: () => (failure === undefined ? sent - done : 0),
    onDrain(listener) {
      drainListener = listener;
    },
    close() {
      void worker.terminate();
    },
  };
}
