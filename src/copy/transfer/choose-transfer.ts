import type { CopyPolicy } from '../../config/copy-policy.js';
import { FerryError } from '../../errors/ferry-error.js';
import { sourceClusters } from '../../config/build-ceph-cluster.js';
import type { CephCluster } from '../../config/ceph-cluster.js';
import type { CopyTransfer } from '../copy-job.js';
import { glanceCopyImage } from './glance-copy-image.js';
import { createRbdDirectTransfer, type RbdDirectOptions } from './rbd-direct.js';
import { createFanOutTransfer } from './fan-out-transfer.js';
import type { FanOutLimits } from './plan-fan-out.js';

/** The clusters ferry may write to: Glance store id → its ceph.conf and cephx user (ensure: the local store only). */
export type TransferTargets = ReadonlyMap<string, CephCluster>;

/**
 * The transfer a policy asks for: Glance's copy-image; the direct RBD transfer (sources from --source-ceph-conf, read
 * as --source-rbd-user, else the local --rbd-user); or `auto`, direct with Glance as the fallback. A direct transfer
 * without a target cluster is refused before any request.
 */
export function chooseTransfer(policy: CopyPolicy, targets: TransferTargets, localUser: string | undefined,
  extra: Pick<RbdDirectOptions, 'perClusterLimit' | 'slots' | 'runner' | 'bytesPerSecond'> & { readonly fanOut?: FanOutLimits } = {}): CopyTransfer {
  // Glance's path in waves: one import per wave, naming that wave's stores.
  const glance = extra.fanOut === undefined ? glanceCopyImage : createFanOutTransfer(glanceCopyImage, { limits: extra.fanOut, readable: new Set() });
  if (policy.transfer === 'glance') return glance;
  if (targets.size === 0) {
    if (policy.transfer === 'auto') return glance;
    throw new FerryError('FERRY_INVALID_OPTION', 'transfer rbd writes into the local cluster, but no ceph.conf names it',
      'Pass --ceph-conf FILE (and --rbd-user USER with write caps on the target pool), or use --transfer glance.', { option: 'cephConf' });
  }
  const sources = sourceClusters(policy, localUser);
  const { fanOut, ...direct } = extra;
  const transfer = createRbdDirectTransfer({ targets, sources, quietMs: policy.rbdQuietMs, ...(policy.transfer === 'auto' ? { fallback: glanceCopyImage } : {}), ...direct });
  // A store serves the next wave only if ferry may read it (--source-ceph-conf).
  return fanOut === undefined ? transfer : createFanOutTransfer(transfer, { limits: fanOut, readable: new Set(sources.keys()) });
}
