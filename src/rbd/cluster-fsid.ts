import { resolve } from 'node:path';
import { FerryError } from '../errors/ferry-error.js';
import { cephCommandExited, cephMessage, cephTimeoutSeconds, readClusterFsid, resolveCephCliOptions, type CephCliOptions } from './ceph-cli.js';
import { FSID_PATTERN } from './ceph-conf-fsid.js';
import { isolatedPython, rbdPython } from './python-program.js';

// A cluster's fsid as its mons report it: what librados `get_fsid()` returns to nova and to glance_store, and so what
// their rbd:// URLs carry. Asked through python3-rados where it is installed (Ceph's own binding, on every host with
// nova's or Glance's rbd code): one short Python, ~0.05 s. Else `ceph fsid`, whose Python CLI takes ~0.15 s and most
// of a core — measured beside ensure's first Glance request, which it slowed from ~10 ms to ~130 ms. The Python is
// python/librados_fsid.py (its header: arguments, output, exit codes), run isolated from / (python-program.ts).

export interface ClusterFsidOptions extends CephCliOptions {
  /** The python with python3-rados; default FERRY_RBD_PYTHON, else Debian's /usr/bin/python3. */
  readonly python?: string;
}

/** The cluster's fsid through librados, or through `ceph fsid` where python3-rados is missing. Failures: FERRY_CEPH. */
export async function askClusterFsid(options: ClusterFsidOptions): Promise<string> {
  const o = resolveCephCliOptions(options);
  const python = options.python ?? rbdPython();
  const shown = `librados get_fsid (-c ${o.confFile}${o.user === undefined ? '' : ` --id ${o.user}`})`;
  const program = isolatedPython('librados_fsid', [resolve(o.confFile), o.user ?? '', String(cephTimeoutSeconds(o.connectTimeoutMs))]);
  const out = await o.runner.run(python, program.args, { cwd: program.cwd, timeoutMs: o.timeoutMs, ...(o.signal ? { signal: o.signal } : {}) });
  if (out.outcome === 'failed') return readClusterFsid(options); // no python at all
  const exited = cephCommandExited(out, python, shown);
  if (exited.exitCode === 3 && exited.stdout.startsWith('unavailable')) return readClusterFsid(options);
  const fsid = exited.stdout.trim().toLowerCase();
  if (exited.exitCode === 0 && FSID_PATTERN.test(fsid)) return fsid;
  const message = cephMessage(exited.stderr) || exited.stdout.trim().slice(0, 80);
  const status = exited.exitCode === null ? `killed by ${exited.signal ?? 'a signal'}` : `exit ${exited.exitCode}`;
  throw new FerryError('FERRY_CEPH', `${shown} failed (${status})${message === '' ? '' : `: ${message}`}`, hintFor(exited.exitCode, message, o.confFile, o.user),
    { command: shown, exitCode: exited.exitCode, stderr: message });
}

function hintFor(exitCode: number | null, message: string, confFile: string, user: string | undefined): string {
  const id = user ?? 'admin';
  if (exitCode === 110) return `The cluster did not answer: check mon_host in ${confFile}, the network to the mons, and the cluster's health`;
  // Seen on Ceph 16: "[errno 2] RADOS object not found (error calling conf_read_file)".
  if (/conf_read_file/.test(message)) return `Check that ${confFile} exists and that ferry may read it`;
  // A missing keyring is errno 2 "(error connecting to the cluster)"; a wrong key or missing caps errno 1 or 13.
  if (exitCode === 1 || exitCode === 2 || exitCode === 13) {
    return `Check client.${id}'s keyring (the keyring = setting in ${confFile}, readable by ferry), its key and its mon caps`;
  }
  return `Run \`ceph -c ${confFile} --id ${id} fsid\` by hand to see the full error`;
}
