import { FerryError } from '../errors/ferry-error.js';
import type { CephCluster } from '../config/ceph-cluster.js';
import { FSID_PATTERN } from './ceph-conf-fsid.js';
import { execFileRunner } from './command-runner.js';
import { rbdNameProblem } from './rbd-names.js';
import type { CommandOutcome, CommandRunner } from './command-runner.js';

// The thin I/O edge to a Ceph cluster: the `ceph` and `rbd` command-line tools (package ceph-common), run without a
// shell. No librados binding in Node: the CLIs read ceph.conf and keyrings exactly as nova's and Glance's librados
// clients do. (Where python3-rbd/python3-rados are installed, a cluster's fsid is asked through librados —
// cluster-fsid.ts — and the direct transfer's bytes go through librbd — librbd-copy.ts.)

/** The cluster (its ceph.conf: `-c`; its cephx user: `--id`) and how to run the CLI there. */
export interface CephCliOptions extends CephCluster {
  /** Kill the process after this long. Default CEPH_CLI_DEFAULTS.timeoutMs. */
  readonly timeoutMs?: number;
  /** How long the CLI itself waits for the mons (`--connect-timeout`, librados mount/op timeouts). */
  readonly connectTimeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly runner?: CommandRunner;
  readonly cephBinary?: string;
  readonly rbdBinary?: string;
}

/** How to run the CLI, apart from the cluster it runs against. */
export type CephCliRun = Omit<CephCliOptions, keyof CephCluster>;

/**
 * The ceph and rbd commands against `cluster`, run as `run` says: its ceph.conf and user, never its fsid (the CLI asks
 * the mons); a setting left undefined is left out, so the defaults below apply.
 */
export function cephCliFor(cluster: CephCluster, run: CephCliRun = {}): CephCliOptions {
  const given = Object.fromEntries(Object.entries(run).filter(([, value]) => value !== undefined)) as CephCliRun;
  return { confFile: cluster.confFile, ...(cluster.user ? { user: cluster.user } : {}), ...given };
}

/** The CLI gives up on the mons before ferry kills it, so a dead cluster reads as the CLI's own message. */
export const CEPH_CLI_DEFAULTS = {
  timeoutMs: 30_000,
  connectTimeoutMs: 10_000,
  cephBinary: 'ceph',
  rbdBinary: 'rbd',
} as const;

export interface SnapshotRef {
  readonly pool: string;
  readonly image: string;
  readonly snapshot: string;
}

/** `ceph -c conf --id user fsid`: the fsid the cluster's mons report (what glance_store puts in rbd:// URLs). */
export async function readClusterFsid(options: CephCliOptions): Promise<string> {
  const o = resolve(options);
  const args = [...common(o), '--connect-timeout', String(seconds(o.connectTimeoutMs)), 'fsid'];
  const shown = `ceph fsid (-c ${o.confFile}${o.user === undefined ? '' : ` --id ${o.user}`})`;
  const out = await run(o, o.cephBinary, args, shown);
  if (out.exitCode !== 0) throw exitError(shown, out, o);
  const fsid = out.stdout.trim().toLowerCase();
  if (!FSID_PATTERN.test(fsid)) {
    throw new FerryError(
      'FERRY_CEPH',
      `${shown} printed '${out.stdout.trim().slice(0, 80)}', which is not an fsid`,
      'Run the same command by hand; pass --fsid to skip asking the cluster',
      { command: shown, stdout: out.stdout.slice(0, 200) },
    );
  }
  return fsid;
}

/**
 * `rbd info --pool=P --image=I --snap=S`: true when the snapshot exists (rc 0), false when rbd says the pool, image
 * or snapshot does not exist (rc 2 and stderr ending in `(2) No such file or directory`). Anything else is
 * FERRY_CEPH, because "cannot tell" must not read as "not there": rbd also exits 2 when it cannot connect at all
 * (no keyring for the user: `rbd: couldn't connect to the cluster!`), 110 when the mons do not answer.
 */
export async function snapshotExists(options: CephCliOptions & SnapshotRef): Promise<boolean> {
  // rbd reads `--image --log_file=…` as an option of its own: names are checked before anything runs, and bound to
  // their option (`--image=…`) besides.
  const problem = rbdNameProblem('pool', options.pool) ?? rbdNameProblem('image', options.image) ?? rbdNameProblem('snapshot', options.snapshot);
  if (problem !== undefined) {
    throw new FerryError('FERRY_INVALID_OPTION', `cannot check the snapshot: its ${problem}`,
      'Pass the pool, image and snapshot names as the rbd location names them (rbd://fsid/pool/image/snapshot, percent-decoded)',
      { pool: options.pool, image: options.image, snapshot: options.snapshot });
  }
  const o = resolve(options);
  const timeout = String(seconds(o.connectTimeoutMs));
  const args = [
    ...common(o),
    '--client-mount-timeout', timeout,
    '--rados-mon-op-timeout', timeout,
    '--rados-osd-op-timeout', timeout,
    'info', `--pool=${options.pool}`, `--image=${options.image}`, `--snap=${options.snapshot}`,
  ];
  const shown = `rbd info ${options.pool}/${options.image}@${options.snapshot} (-c ${o.confFile}${o.user === undefined ? '' : ` --id ${o.user}`})`;
  const out = await run(o, o.rbdBinary, args, shown);
  if (out.exitCode === 0) return true;
  if (out.exitCode === ENOENT && NOT_FOUND.test(lastLine(out.stderr))) return false;
  throw exitError(shown, out, o);
}

const ENOENT = 2;
/** Seen on Ceph 16: `rbd: error opening pool 'x': …`, `rbd: error opening image x: …`, `error setting snapshot context: …`. */
const NOT_FOUND = /\(2\) No such file or directory$/;
const ETIMEDOUT = 110;
const EACCES = 13;

type Resolved = Required<Omit<CephCliOptions, 'user' | 'signal' | 'fsid'>> & Pick<CephCliOptions, 'user' | 'signal'>;
type Exited = Extract<CommandOutcome, { outcome: 'exited' }>;

function resolve(options: CephCliOptions): Resolved {
  const timeoutMs = options.timeoutMs ?? CEPH_CLI_DEFAULTS.timeoutMs;
  const connectTimeoutMs = options.connectTimeoutMs ?? CEPH_CLI_DEFAULTS.connectTimeoutMs;
  for (const [name, value] of [['timeoutMs', timeoutMs], ['connectTimeoutMs', connectTimeoutMs]] as const) {
    if (!Number.isFinite(value) || value <= 0) {
      throw new FerryError('FERRY_INVALID_OPTION', `${name} must be a positive number of milliseconds, got ${value}`,
        'Pass a positive duration', { option: name, value });
    }
  }
  return {
    confFile: options.confFile,
    user: options.user,
    timeoutMs,
    connectTimeoutMs,
    signal: options.signal,
    runner: options.runner ?? execFileRunner,
    cephBinary: options.cephBinary ?? CEPH_CLI_DEFAULTS.cephBinary,
    rbdBinary: options.rbdBinary ?? CEPH_CLI_DEFAULTS.rbdBinary,
  };
}

function common(o: Resolved): string[] {
  return ['-c', o.confFile, ...(o.user === undefined ? [] : ['--id', o.user])];
}

/** The CLIs take whole seconds; never 0, which means "wait forever" to librados. */
function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

async function run(o: Resolved, file: string, args: readonly string[], shown: string): Promise<Exited> {
  return exitedOrThrow(await o.runner.run(file, args, { timeoutMs: o.timeoutMs, ...(o.signal ? { signal: o.signal } : {}) }), file, shown);
}

/** A command that exited (any code) is returned; interrupted, killed after its timeout or not started is the error. */
function exitedOrThrow(out: CommandOutcome, file: string, shown: string): Exited {
  switch (out.outcome) {
    case 'exited':
      return out;
    case 'aborted':
      throw new FerryError('FERRY_ABORTED', `${shown} was interrupted`, 'Nothing to do: the operation was cancelled',
        { command: shown });
    case 'timed-out':
      throw new FerryError('FERRY_CEPH', `${shown} did not finish within ${out.timeoutMs} ms and was killed` +
        lastLineSuffix(out.stderr),
        'Check that this host reaches the mons named by mon_host in the ceph.conf and that the cluster is healthy',
        { command: shown, timeoutMs: out.timeoutMs, stderr: lastLine(out.stderr) });
    case 'failed':
      throw new FerryError('FERRY_CEPH', `could not run ${file}: ${out.message}`,
        out.errorCode === 'ENOENT'
          ? `Install the Ceph client tools (Debian/Ubuntu: ceph-common), or give the path to '${file}'`
          : 'Run the same command by hand to see what is wrong',
        { command: shown, errorCode: out.errorCode });
  }
}

function exitError(shown: string, out: Exited, o: Resolved): FerryError {
  const status = out.exitCode === null ? `killed by ${out.signal ?? 'a signal'}` : `exit ${out.exitCode}`;
  return new FerryError('FERRY_CEPH', `${shown} failed (${status})${lastLineSuffix(out.stderr)}`, hintFor(out.exitCode, out.stderr, o),
    { command: shown, exitCode: out.exitCode, signal: out.signal, stderr: lastLine(out.stderr) });
}

function hintFor(exitCode: number | null, stderr: string, o: Resolved): string {
  const user = o.user ?? 'admin';
  if (exitCode === ETIMEDOUT || /timed out/.test(lastLine(stderr))) {
    return `The cluster did not answer: check mon_host in ${o.confFile}, the network to the mons, and the cluster's health`;
  }
  if (/no keyring found|unable to find a keyring/.test(stderr)) {
    return `No keyring for client.${user}: check the keyring = setting in ${o.confFile} and that ferry may read the file`;
  }
  // Not rc 1 alone: the CLIs also exit 1 for any generic failure (a missing conf file, say).
  if (exitCode === EACCES || /Permission denied|Operation not permitted/.test(lastLine(stderr))) {
    return `Check client.${user}: its key, and caps mon 'profile rbd', osd 'profile rbd pool=…' for the pool`;
  }
  return `Run the command by hand with -c ${o.confFile} --id ${user} to see the full error`;
}

/** Ceph's own log lines (`2026-11-21T19:22:35.771+0000 7fb9… -1 AuthRegistry…`) can come after the CLI's message. */
const CEPH_LOG_LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\S* [0-9a-f]+ /;

/** The CLI's own last message: the last non-empty stderr line that is not a Ceph log line (else the last line). */
function lastLine(text: string): string {
  const lines = text.split('\n').map((line) => line.trim()).filter((line) => line !== '');
  return lines.filter((line) => !CEPH_LOG_LINE.test(line)).at(-1) ?? lines.at(-1) ?? '';
}

function lastLineSuffix(stderr: string): string {
  const line = lastLine(stderr);
  return line === '' ? '' : `: ${line}`;
}

// For the other CLI edges in rbd/ (probe-rbd-pool.ts): the same option checks, connection arguments, whole-second
// timeouts and "the CLI's own message" as the calls above.
export {
  resolve as resolveCephCliOptions, common as cephConnectionArgs, seconds as cephTimeoutSeconds, lastLine as cephMessage,
  exitedOrThrow as cephCommandExited,
};
