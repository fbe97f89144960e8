import { FerryError, isFerryError } from '../errors/ferry-error.js';
import { askClusterFsid } from './cluster-fsid.js';
import type { CephCluster } from '../config/ceph-cluster.js';
import type { CephCliOptions } from './ceph-cli.js';
import { FSID_PATTERN, readCephConfFsid } from './ceph-conf-fsid.js';

/**
 * The local cluster as configured (FerryConfig.ceph; the library's caller: the same fields): `fsid` is --fsid, trusted
 * as given (after a UUID check), and then nothing is read or run; `confFile` and `user` are --ceph-conf / --rbd-user or
 * nova.conf's `[libvirt] images_rbd_ceph_conf` / `rbd_user`.
 */
export interface LocalClusterOptions extends Partial<CephCluster> {
  /** Passed to the CLI when the cluster is asked (timeouts, signal, runner). */
  readonly cli?: Omit<CephCliOptions, keyof CephCluster>;
}

/** Where the fsid came from, so `explain` output can say it. */
export type FsidSource = 'option' | 'cluster' | 'ceph-conf';

/** The local cluster with its fsid known: as configured (its ceph.conf unnamed when --fsid alone named it), and how it was known. */
export interface ResolvedLocalCluster extends Partial<CephCluster> {
  readonly fsid: string;
  readonly source: FsidSource;
  /** Things an operator should know: the cluster could not be asked, or the conf's fsid disagrees with it. */
  readonly warnings: readonly string[];
}

/**
 * The local cluster's fsid. Order:
 * 1. the `fsid` option, trusted as given (after a UUID check);
 * 2. the cluster itself (librados `get_fsid()`, else `ceph -c conf --id user fsid`: cluster-fsid.ts). This is the
 *    value librados returns to nova and to glance_store (it is what rbd:// URLs carry), and the mons do not check a client's conf fsid: a conf naming a
 *    wrong fsid still connects, so the file alone can be wrong for a working client;
 * 3. `fsid =` in the ceph.conf (`[client.<user>]` > `[client]` > `[global]`), only when the cluster could not be
 *    asked (no ceph-common, cluster down), with a warning.
 * Neither an fsid nor a ceph.conf → FERRY_INVALID_OPTION. An abort is never turned into a fallback.
 */
export async function resolveLocalCluster(options: LocalClusterOptions): Promise<ResolvedLocalCluster> {
  const { confFile, user } = options;
  if (options.fsid !== undefined && options.fsid.trim() !== '') {
    const fsid = options.fsid.trim();
    if (!FSID_PATTERN.test(fsid)) {
      throw new FerryError('FERRY_INVALID_OPTION', `fsid must be a UUID, got '${options.fsid}' (from --fsid)`,
        'Use the value printed by `ceph fsid` on a node of the local cluster', { option: 'fsid', value: options.fsid });
    }
    return { fsid: fsid.toLowerCase(), source: 'option', confFile, user, warnings: [] };
  }
  if (confFile === undefined || confFile.trim() === '') {
    throw new FerryError('FERRY_INVALID_OPTION',
      'ferry cannot tell which Ceph cluster is local: neither an fsid nor a ceph.conf was given',
      'Pass --fsid <uuid> or --ceph-conf <path>; when ferry reads nova.conf it uses [libvirt] images_rbd_ceph_conf and rbd_user',
      { option: 'fsid' });
  }
  const fromConf = await readCephConfFsid(confFile, user);
  let fromCluster: string;
  try {
    fromCluster = await askClusterFsid({ ...options.cli, confFile, ...(user === undefined ? {} : { user }) });
  } catch (error) {
    if (!isFerryError(error, 'FERRY_CEPH') || fromConf === undefined) throw error;
    const warning = `could not ask the cluster for its fsid (${error.message}); using fsid ${fromConf.fsid} from ` +
      `[${fromConf.section}] of ${confFile}, which the cluster has not confirmed`;
    return { fsid: fromConf.fsid, source: 'ceph-conf', confFile, user, warnings: [warning] };
  }
  const warnings =
    fromConf !== undefined && fromConf.fsid !== fromCluster
      ? [`${confFile} [${fromConf.section}] says fsid ${fromConf.fsid} but the cluster reports ${fromCluster}; ` +
          'ferry uses the cluster\'s (so do nova and Glance): fix the file']
      : [];
  return { fsid: fromCluster, source: 'cluster', confFile, user, warnings };
}
