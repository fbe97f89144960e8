import { storesDocument, storesJsonSchema, type StoresReport } from '../../contract/stores-document.js';
import { FerryError } from '../../errors/ferry-error.js';
import { checkStores } from '../../fleet/check-stores.js';
import { buildCephCluster } from '../../config/build-ceph-cluster.js';
import type { CephCluster } from '../../config/ceph-cluster.js';
import { POOL_PROBE_DEFAULTS } from '../../rbd/probe-rbd-pool.js';
import { parseDuration } from '../../clock/parse-duration.js';
import type { CommandContext, CommandSpec } from '../command-spec.js';
import { configFlag } from '../global-options.js';
import type { RowColumn, RowList } from '../output/row-list.js';
import { renderStores } from '../render/stores.js';

/** `ferry stores` as rows: one per store, the fields of `--json`'s `stores` items. */
export const STORE_COLUMNS: readonly RowColumn[] = [
  { key: 'id', header: 'ID' }, { key: 'description', header: 'Description' }, { key: 'default', header: 'Default' },
  { key: 'read_only', header: 'Read Only' }, { key: 'copy_target', header: 'Copy Target' }, { key: 'type', header: 'Type' },
  { key: 'pool', header: 'Pool' }, { key: 'fsid', header: 'FSID' }, { key: 'local', header: 'Local' },
  { key: 'answers', header: 'Answers' }, { key: 'answers_why', header: 'Answers Why' },
];

export function storesToRows(report: StoresReport): RowList {
  return { columns: STORE_COLUMNS, rows: storesDocument(report).stores };
}

const PROBE_TIMEOUT_RANGE_MS = { min: 2_000, max: 600_000 } as const;

/** `--probe-ceph-conf STORE=FILE` (repeatable) → store → its cluster, reached as --rbd-user. */
function probeConfsFromFlags(ctx: CommandContext): ReadonlyMap<string, CephCluster> {
  const raw = ctx.flags['probe-ceph-conf'];
  const values = Array.isArray(raw) ? (raw as readonly string[]) : typeof raw === 'string' ? [raw] : [];
  const user = ctx.config.ceph.user;
  const byStore = new Map<string, CephCluster>();
  for (const value of values) {
    const at = value.indexOf('=');
    const store = value.slice(0, Math.max(at, 0)).trim();
    const confFile = value.slice(at + 1).trim();
    if (at < 1 || store === '' || confFile === '') {
      throw new FerryError('FERRY_INVALID_OPTION', `--probe-ceph-conf must be STORE=FILE, got '${value}'`,
        'Pass e.g. --probe-ceph-conf site-a=/etc/ceph/site-a.conf (the ceph.conf of that store\'s cluster).', { option: 'probe-ceph-conf', value });
    }
    if (byStore.has(store)) {
      throw new FerryError('FERRY_INVALID_OPTION', `--probe-ceph-conf names store '${store}' twice`,
        'Give each store one ceph.conf.', { option: 'probe-ceph-conf', store });
    }
    byStore.set(store, buildCephCluster({ confFile, user }));
  }
  return byStore;
}

function probeTimeoutFromFlags(ctx: CommandContext): number {
  const raw = ctx.flags['probe-timeout'];
  if (typeof raw !== 'string') return POOL_PROBE_DEFAULTS.timeoutMs;
  const ms = parseDuration(raw, '--probe-timeout');
  if (ms < PROBE_TIMEOUT_RANGE_MS.min || ms > PROBE_TIMEOUT_RANGE_MS.max) {
    throw new FerryError('FERRY_INVALID_OPTION', `--probe-timeout must be from 2s to 10m, got '${raw}'`,
      'Pass e.g. --probe-timeout 10s (Ceph\'s own timeouts are half of it).', { option: 'probe-timeout', value: raw });
  }
  return ms;
}

export const storesCommand: CommandSpec<StoresReport> = {
  name: 'stores',
  description: 'Local = the configured store (--store, FERRY_STORE, nova.conf images_rbd_glance_store_name) by exact id, else '
    + 'the rbd store whose fsid Glance reports (Glance >= 30) equal to --fsid. Types and pools need the admin-only /detail; '
    + 'without it ferry falls back to the plain list. Glance reports no per-store health, so ferry checks what it can reach '
    + 'itself: the local rbd store with --ceph-conf (nova.conf images_rbd_ceph_conf) and any rbd store given with '
    + '--probe-ceph-conf STORE=FILE: its mons (`ceph fsid`) and `rbd ls` on its pool, each within --probe-timeout, which also '
    + 'bounds /detail (Glance reconnects to every rbd cluster to answer it). Other stores: answers null, with the reason.',
  examples: ['ferry stores --store site-b --ceph-conf /etc/ceph/ceph.conf --rbd-user nova', 'ferry stores --json',
    'ferry stores --probe-ceph-conf site-a=/etc/ceph/site-a.conf', 'ferry stores -f value -c id', 'ferry stores -f csv -c id -c type -c answers'],
  arguments: [],
  options: [configFlag('store'), configFlag('fsid'), configFlag('ceph-conf'), configFlag('rbd-user'),
    { name: 'probe-ceph-conf', value: 'STORE=FILE', repeatable: true, description: 'probe rbd store STORE with this ceph.conf of its cluster (as --rbd-user)' },
    { name: 'probe-timeout', value: 'DURATION', description: `bound of each probe command and of /detail, e.g. 10s (default ${POOL_PROBE_DEFAULTS.timeoutMs / 1000}s)` }],
  jsonSchema: storesJsonSchema,
  async run(ctx) {
    const byStore = probeConfsFromFlags(ctx);
    const timeoutMs = probeTimeoutFromFlags(ctx);
    const { store } = ctx.config.copy;
    const { fsid } = ctx.config.ceph;
    const local = buildCephCluster(ctx.config.ceph);
    return checkStores(ctx.connect(), { byStore, ...(local ? { local } : {}), identity: { ...(store ? { store } : {}), ...(fsid ? { fsid } : {}) },
      timeoutMs, signal: ctx.signal });
  },
  toJson: storesDocument,
  rows: storesToRows,
  rowColumns: STORE_COLUMNS,
  render: renderStores,
};
