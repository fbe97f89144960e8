import { resolve } from 'node:path';
import { FerryError } from '../errors/ferry-error.js';
import type { CephCluster } from '../config/ceph-cluster.js';
import { cephCommandExited, cephMessage, cephTimeoutSeconds, resolveCephCliOptions, type CephCliOptions } from './ceph-cli.js';
import { isolatedPython, rbdPython } from './python-program.js';
import { parsePoolCheck, parsePoolListing, type PoolEntry, type PoolListing } from './store-copy-listing.js';

// One store's pool in one process: python/rbd_store_copies.py (its header: commands and answers) through python3-rbd,
// run isolated from / without ferry's credentials (python-program.ts, the runner's childEnvironment). Reading a pool of
// any size is one process: the sizes, the copies' clones (trash included) with their creation times, the timestamps
// and ferry's image-meta marks, the pool's quota and, where the cluster reports it, its capacity.

/** The snapshot a Glance copy is cloned from: glance_store's and ferry's (rbd://fsid/pool/image/snap). */
export const COPY_SNAPSHOT = 'snap';

/** A store's pool in its cluster (reading needs the user's `profile rbd-read-only` on every pool clones may live in). */
export interface StorePool extends CephCluster {
  readonly pool: string;
  /** The copies' snapshot: glance_store's and ferry's `snap`. */
  readonly snapshot: string;
}

export interface StoreCopiesOptions extends Omit<CephCliOptions, 'confFile' | 'user'> {
  /** The python with python3-rbd; default FERRY_RBD_PYTHON, else Debian's /usr/bin/python3. */
  readonly python?: string;
  /** The longest answer read (default STORE_OUTPUT_MAX_BYTES). */
  readonly maxOutputBytes?: number;
}

/**
 * The longest answer of the program read: a pool's listing grows with its images and their clones (~150 bytes a clone,
 * ~400 an image with its marks bounded: python/rbd_store_copies.py MARK_MAX), so 256 MiB holds ~1.7 million clones or
 * ~600 000 images (the 4 MiB the rbd/ceph commands are held to broke a store at ~30 000 clones). Still a bound: a
 * runaway answer fails its store with FERRY_CEPH rather than ferry's memory.
 */
export const STORE_OUTPUT_MAX_BYTES = 256 * 2 ** 20;

/** A listing opens every image (and every clone, for its creation time): longer than one rbd command may take. */
export const STORE_LISTING_TIMEOUT_MS = 300_000;

export type StoreCommand = 'list' | 'check' | 'look' | 'fence' | 'unfence';

/** Runs one command of the program for a pool; its stdout, or FERRY_CEPH naming the cluster, the pool and why. */
export async function runStoreCommand(store: StorePool, command: StoreCommand, args: readonly string[],
  options: StoreCopiesOptions = {}): Promise<{ readonly stdout: string; readonly shown: string }> {
  const o = resolveCephCliOptions({ ...options, confFile: store.confFile, ...(store.user === undefined ? {} : { user: store.user }),
    timeoutMs: options.timeoutMs ?? STORE_LISTING_TIMEOUT_MS });
  const python = options.python ?? rbdPython();
  const shown = `rbd_store_copies ${command} ${store.pool} (-c ${o.confFile}${o.user === undefined ? '' : ` --id ${o.user}`})`;
  const program = isolatedPython('rbd_store_copies', [resolve(o.confFile), o.user ?? '', String(cephTimeoutSeconds(o.connectTimeoutMs)),
    store.pool, store.snapshot, command, ...args]);
  const maxOutputBytes = options.maxOutputBytes ?? STORE_OUTPUT_MAX_BYTES;
  const out = await o.runner.run(python, program.args, { cwd: program.cwd, timeoutMs: o.timeoutMs, maxOutputBytes, ...(o.signal ? { signal: o.signal } : {}) });
  if (out.outcome === 'failed' && out.errorCode === 'ENOENT') throw unavailable(shown, `${python} is not installed`);
  if (out.outcome === 'failed' && out.errorCode === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
    throw new FerryError('FERRY_CEPH', `${shown} answered more than ${binaryBytes(maxOutputBytes)}: too much to read`,
      `pool ${store.pool} holds more images and clones than one listing reads (rbd -c ${store.confFile} ls -l ${store.pool} | wc -l); `
      + 'report it with the counts: ferry reads a pool in one answer', { command: shown, pool: store.pool, maxOutputBytes });
  }
  const exited = cephCommandExited(out, python, shown);
  if (exited.exitCode === 3 && exited.stdout.includes('"unavailable"')) throw unavailable(shown, exited.stdout.trim());
  if (exited.exitCode === 0) return { stdout: exited.stdout, shown };
  const assertion = exited.exitCode === null ? cephAssertion(exited.stderr) : undefined;
  const message = assertion ?? cephMessage(exited.stderr);
  const status = exited.exitCode === null ? `killed by ${exited.signal ?? 'a signal'}` : `exit ${exited.exitCode}`;
  throw new FerryError('FERRY_CEPH', `${shown} failed (${status})${message === '' ? '' : `: ${message}`}`,
    assertion === undefined ? hintFor(exited.exitCode, store, o.user) : abortHint(store, o.user),
    { command: shown, exitCode: exited.exitCode, stderr: message, pool: store.pool });
}

/**
 * Every image of the store's pool and of its trash (`list`). `knownNames`: strings to keep as the entries' names where
 * they are equal (Glance's image ids, read before): a fleet's pools name each image in ~10 stores, and each name parsed
 * is its own 36-character string otherwise (5 MB of 100 000 at 10 000 images, bench/fleet-plan.ts). Memory only.
 */
export async function readStoreCopies(store: StorePool, options: StoreCopiesOptions = {}, knownNames?: ReadonlyMap<string, string>): Promise<PoolListing> {
  const { stdout, shown } = await runStoreCommand(store, 'list', [], options);
  return parsePoolListing(stdout, shown, knownNames);
}

/** The named images only (`check`), in the order given: the last look before a removal. */
export async function checkStoreCopies(store: StorePool, names: readonly string[], options: StoreCopiesOptions = {}): Promise<readonly PoolEntry[]> {
  if (names.length === 0) return [];
  const { stdout, shown } = await runStoreCommand(store, 'check', names, options);
  return parsePoolCheck(stdout, shown);
}

/** 1 KiB, 256 MiB: a bound as its message names it. */
const binaryBytes = (bytes: number): string => (bytes < 2 ** 20 ? `${Math.round(bytes / 1024)} KiB` : `${Math.round(bytes / 2 ** 20)} MiB`);

function unavailable(shown: string, why: string): FerryError {
  return new FerryError('FERRY_CEPH', `${shown} cannot run: python3-rbd is not there (${why})`,
    'Install python3-rbd (Debian/Ubuntu; ceph-common depends on it), or set FERRY_RBD_PYTHON to a python that has it.',
    { command: shown });
}

/**
 * The line of a Ceph assertion in a dead process's stderr (`FILE: LINE: FAILED ceph_assert(…)`), or undefined: librbd
 * aborts the whole process on one and prints it above a backtrace, whose last line (`21: _start()`) says nothing.
 */
function cephAssertion(stderr: string): string | undefined {
  return stderr.split('\n').map((line) => line.trim()).find((line) => /: FAILED (ceph_)?assert\(/.test(line));
}

function abortHint(store: StorePool, user: string | undefined): string {
  return `python3-rbd aborted inside librbd on an image of pool ${store.pool} (a Ceph assertion: nothing a program can catch, and `
    + `every listing of the pool dies on it until that image is gone or changed): find it with \`rbd -c ${store.confFile} --id ${user ?? 'admin'} `
    + `ls -l ${store.pool}\` (a name listed with an error, or of 0 B), remove it if no Glance import is writing it, and report the `
    + 'assertion to ferry with the Ceph version';
}

function hintFor(exitCode: number | null, store: StorePool, user: string | undefined): string {
  const id = user ?? 'admin';
  if (exitCode === 110) return `The cluster did not answer: check mon_host in ${store.confFile}, the network to the mons, and the cluster's health`;
  if (exitCode === 2) return `Check that ${store.confFile} exists, that client.${id}'s keyring is readable, and that pool '${store.pool}' exists`;
  if (exitCode === 1 || exitCode === 13) {
    return `Check client.${id}'s key and caps: mon 'profile rbd', osd 'profile rbd-read-only' (every pool: clones may live in any)`;
  }
  return `Run \`rbd -c ${store.confFile} --id ${id} ls -l ${store.pool}\` by hand to see whether the cluster answers`;
}
