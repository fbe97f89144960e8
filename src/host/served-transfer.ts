import type { TransferMode } from '../config/copy-policy.js';
import type { FerryConfig } from '../config/ferry-config.js';
import type { HealthCheck } from './health-check.js';

/** The transfer a long-lived service copies with, and the `transfer` check of its /healthz. */
export interface ServedTransfer {
  readonly transfer: TransferMode;
  readonly check: HealthCheck;
}

/**
 * `--transfer rbd` needs the clusters it reads from, named by the operator (--source-ceph-conf STORE=PATH), and the
 * one it writes into (--ceph-conf). Without them the agent does not guess: it copies through Glance's copy-image (the
 * default transfer, which needs neither) and fails its `transfer` check, naming the fix. It keeps answering because a
 * compute node's agent that refuses to start leaves nova's requests in systemd's socket backlog until the start limit
 * (docs/agent.md); `ferry ensure` in a process of its own still refuses the same flags with exit 2. Pure.
 */
export function servedTransfer(config: FerryConfig): ServedTransfer {
  const { transfer, sourceCephConfs } = config.copy;
  if (transfer !== 'rbd') return { transfer, check: { ok: true } };
  const missing = [
    ...(Object.keys(sourceCephConfs).length === 0 ? ['the clusters it reads from (--source-ceph-conf STORE=PATH, repeatable)'] : []),
    ...(config.ceph.confFile === undefined ? ['the local cluster it writes into (--ceph-conf FILE, or nova.conf images_rbd_ceph_conf)'] : []),
  ];
  if (missing.length === 0) return { transfer, check: { ok: true } };
  return { transfer: 'glance', check: { ok: false, code: 'FERRY_INVALID_OPTION',
    message: `transfer rbd${sourceOf(config)} is not configured: it needs ${missing.join(' and ')}. Until then the agent copies `
      + 'through Glance (copy-image); give them, or --transfer glance / auto, and reload (SIGHUP)' } };
}

function sourceOf(config: FerryConfig): string {
  const source = config.sources['copy.transfer'];
  return source === undefined ? '' : ` (from ${source})`;
}
