import { FerryError } from '../errors/ferry-error.js';
import { cephConnectionArgs, cephMessage, cephTimeoutSeconds, resolveCephCliOptions } from './ceph-cli.js';
import type { CephCliOptions } from './ceph-cli.js';
import type { CommandOutcome } from './command-runner.js';

/** Does the pool answer? `true`, `false` (it does not: mons, OSDs or the pool itself), `null` (ferry could not tell). */
export interface PoolProbe {
  readonly answers: boolean | null;
  /** How it was checked and what came back, or why it could not be checked. */
  readonly why: string;
}

/**
 * A probe is short by design: Ceph's own client waits 5 minutes for a dead mon (client_mount_timeout 300) and
 * forever for a dead OSD. The CLI is told to give up after half the bound (mount, mon and OSD op timeouts), so it
 * usually says itself what did not answer; the process is killed at the bound.
 */
export const POOL_PROBE_DEFAULTS = { timeoutMs: 10_000 } as const;

/**
 * `rbd ls --pool POOL` with short Ceph timeouts: the mons must answer (cephx included) and the OSD holding the pool's
 * directory object must answer a read. That is what Glance's rbd store needs before it can write an image there.
 * Only an abort throws; every other outcome is a PoolProbe (never "answers" unless rbd exited 0).
 */
export async function probeRbdPool(options: Omit<CephCliOptions, 'connectTimeoutMs'> & { readonly pool: string }): Promise<PoolProbe> {
  const timeoutMs = options.timeoutMs ?? POOL_PROBE_DEFAULTS.timeoutMs;
  const o = resolveCephCliOptions({ ...options, timeoutMs, connectTimeoutMs: Math.max(1_000, timeoutMs / 2) });
  const cephSeconds = String(cephTimeoutSeconds(o.connectTimeoutMs));
  const args = [...cephConnectionArgs(o), '--client-mount-timeout', cephSeconds, '--rados-mon-op-timeout', cephSeconds,
    '--rados-osd-op-timeout', cephSeconds, 'ls', '--pool', options.pool];
  const shown = `rbd ls --pool ${options.pool} (-c ${o.confFile} --id ${o.user ?? 'admin'})`;
  const outcome = await o.runner.run(o.rbdBinary, args, { timeoutMs: o.timeoutMs, ...(o.signal ? { signal: o.signal } : {}) });
  if (outcome.outcome === 'aborted') {
    throw new FerryError('FERRY_ABORTED', `${shown} was interrupted`, 'Nothing to do: the operation was cancelled', { command: shown });
  }
  return judgePoolProbe(outcome, { shown, pool: options.pool, confFile: o.confFile, cephSeconds: Number(cephSeconds), binary: o.rbdBinary });
}

interface ProbeContext {
  readonly shown: string;
  readonly pool: string;
  readonly confFile: string;
  readonly cephSeconds: number;
  readonly binary: string;
}

const ETIMEDOUT = 110;
const ENOENT = 2;
/** Ceph 16: `rbd: error opening pool 'images': (2) No such file or directory`. (The last line, `rbd: listing images
 * failed: (2) …`, is the same when there is no keyring, so the pool line itself is what tells.) */
const NO_POOL = /error opening pool '.*': \(2\) No such file or directory/;
/** Ceph 16, mons not answering or no keyring: `rbd: couldn't connect to the cluster!`. */
const NOT_CONNECTED = /couldn't connect to the cluster/;

/**
 * The verdict on one run of `rbd ls` (pure). `false` only where Ceph itself says the store cannot work: no answer in
 * time (mons or OSDs) or no such pool. A missing keyring, missing caps, a missing ceph.conf or a missing `rbd` say
 * nothing about the store: `null`, with the reason.
 */
export function judgePoolProbe(outcome: Exclude<CommandOutcome, { outcome: 'aborted' }>, c: ProbeContext): PoolProbe {
  switch (outcome.outcome) {
    case 'failed':
      return { answers: null, why: `could not run ${c.binary} (${outcome.errorCode ?? outcome.message})` +
        (outcome.errorCode === 'ENOENT' ? ': install the Ceph client tools (ceph-common)' : '') };
    case 'timed-out':
      return { answers: false, why: `${c.shown} did not finish within ${outcome.timeoutMs} ms and was killed${suffix(cephMessage(outcome.stderr))}` };
    case 'exited':
      break;
  }
  const { exitCode, stderr, stdout } = outcome;
  const message = cephMessage(stderr);
  if (exitCode === 0) {
    const images = stdout.split('\n').filter((line) => line.trim() !== '').length;
    return { answers: true, why: `${c.shown} answered (${images} RBD image${images === 1 ? '' : 's'})` };
  }
  const timedOut = exitCode === ETIMEDOUT || /timed out/i.test(message);
  if (timedOut && NOT_CONNECTED.test(stderr)) {
    return { answers: false, why: `the mons named in ${c.confFile} did not answer within ${c.cephSeconds} s (${c.shown}: ${message})` };
  }
  if (timedOut) {
    return { answers: false, why: `the mons answer, but pool ${c.pool}'s OSDs did not within ${c.cephSeconds} s (${c.shown}: ${message})` };
  }
  if (exitCode === ENOENT && NO_POOL.test(stderr)) {
    return { answers: false, why: `the cluster answers but has no pool ${c.pool} (${c.shown})` };
  }
  const status = exitCode === null ? `killed by ${outcome.signal ?? 'a signal'}` : `exit ${exitCode}`;
  return { answers: null, why: `could not check: ${c.shown} failed (${status})${suffix(cannotCheckReason(stderr) ?? message)}` };
}

/** Why rbd could not even ask, when Ceph says so. */
function cannotCheckReason(stderr: string): string | undefined {
  if (/no keyring found|unable to find a keyring/.test(stderr)) return 'no keyring for this cephx user';
  if (/Permission denied|Operation not permitted/.test(stderr)) return 'this cephx user may not read the pool';
  return undefined;
}

function suffix(text: string): string {
  return text === '' ? '' : `: ${text}`;
}
