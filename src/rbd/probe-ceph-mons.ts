import { FerryError } from '../errors/ferry-error.js';
import { cephConnectionArgs, cephMessage, cephTimeoutSeconds, resolveCephCliOptions } from './ceph-cli.js';
import { FSID_PATTERN } from './ceph-conf-fsid.js';
import type { CephCliOptions } from './ceph-cli.js';
import { POOL_PROBE_DEFAULTS } from './probe-rbd-pool.js';

/** Whether a cluster's mons answer: says nothing about its OSDs or pools. */
export interface MonProbe {
  readonly monsAnswer: boolean | null;
  readonly why: string;
  /** The cluster's fsid as its mons report it, when they answered. */
  readonly fsid?: string;
}

/**
 * `ceph fsid` with a connect timeout of half the bound: the mons must answer and accept the cephx user. Used when the
 * pool to probe is not known (Glance did not name it): a dead mon still makes the store unusable. Only an abort throws.
 */
export async function probeCephMons(options: Omit<CephCliOptions, 'connectTimeoutMs'>): Promise<MonProbe> {
  const timeoutMs = options.timeoutMs ?? POOL_PROBE_DEFAULTS.timeoutMs;
  const o = resolveCephCliOptions({ ...options, timeoutMs, connectTimeoutMs: Math.max(1_000, timeoutMs / 2) });
  const seconds = cephTimeoutSeconds(o.connectTimeoutMs);
  const shown = `ceph fsid (-c ${o.confFile} --id ${o.user ?? 'admin'})`;
  const out = await o.runner.run(o.cephBinary, [...cephConnectionArgs(o), '--connect-timeout', String(seconds), 'fsid'],
    { timeoutMs: o.timeoutMs, ...(o.signal ? { signal: o.signal } : {}) });
  switch (out.outcome) {
    case 'aborted':
      throw new FerryError('FERRY_ABORTED', `${shown} was interrupted`, 'Nothing to do: the operation was cancelled', { command: shown });
    case 'failed':
      return { monsAnswer: null, why: `could not run ${o.cephBinary} (${out.errorCode ?? out.message})` };
    case 'timed-out':
      return { monsAnswer: false, why: `${shown} did not finish within ${out.timeoutMs} ms and was killed` };
    case 'exited': {
      // Ceph 16 with the mon down: exit 1, `timed out` (after --connect-timeout); no keyring: exit 1, `… no keyring …`.
      const message = cephMessage(out.stderr);
      const fsid = out.stdout.trim().toLowerCase();
      if (out.exitCode === 0) return { monsAnswer: true, why: `${shown} answered`, ...(FSID_PATTERN.test(fsid) ? { fsid } : {}) };
      if (out.exitCode === 110 || /timed out/i.test(message)) {
        return { monsAnswer: false, why: `the mons named in ${o.confFile} did not answer within ${seconds} s (${shown}: ${message})` };
      }
      return { monsAnswer: null, why: `could not check: ${shown} failed (exit ${out.exitCode ?? out.signal ?? '?'})${message === '' ? '' : `: ${message}`}` };
    }
  }
}
