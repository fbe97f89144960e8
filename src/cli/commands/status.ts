import { statusCommandJsonSchema } from '../../contract/status-command-document.js';
import { statusDocument } from '../../contract/status-document.js';
import { copyStatus, type CopyStatus } from '../../copy/copy-status.js';
import { FerryError } from '../../errors/ferry-error.js';
import { assertSelection } from '../../fleet/prewarm-selection.js';
import { removeOwnersGiven } from '../../fleet/project-owners.js';
import { readStoreMatrix, type StoreMatrix } from '../../prewarm/store-matrix.js';
import type { CommandSpec } from '../command-spec.js';
import { matrixDocument } from '../../contract/matrix-document.js';
import { matrixToRows, renderMatrix } from '../render/matrix.js';
import { renderStatus } from '../render/status.js';
import { renderUsage } from '../render/usage.js';
import { usageToJson } from '../../contract/usage-document.js';
import { usageToRows } from '../reports/usage-rows.js';
import { BUDGET_FLAGS, flagText } from '../inputs/evict-flags.js';
import { readPolicyFile } from '../inputs/policy-file.js';
import { ownerFlags, PIN_OWNER_FLAG, REMOVE_OWNER_FLAG } from '../inputs/pin-flags.js';
import { usageStoresFromFlags } from '../inputs/usage-stores.js';
import { configFlag } from '../global-options.js';
import { EVICT_DEFAULTS } from '../../evict/evict-options.js';
import { usageExitCode } from '../../evict/exit-verdicts.js';
import { readUsage, type UsageReport } from '../../evict/read-usage.js';
import { SELECTION_OPTIONS, selectionFromFlags } from '../inputs/prewarm-flags.js';


/** `ferry status IMAGE` reads one image; `ferry status --matrix …` reads a table of images × stores. */
export type StatusReport = { readonly kind: 'image'; readonly status: CopyStatus } | { readonly kind: 'matrix'; readonly matrix: StoreMatrix }
  | { readonly kind: 'usage'; readonly usage: UsageReport };

/** Flags that belong to --usage only. */
const USAGE_ONLY = ['policy', 'budget', 'budget-of', 'idle', 'pool', 'ceph-conf', 'rbd-user', 'pin-owner', 'remove-owner'] as const;

export const statusCommand: CommandSpec<StatusReport> = {
  name: 'status',
  description: 'With --matrix: a table of images × stores (present / copying / failed / missing) for the named images, '
    + '--tag/--property, or --all; --store limits the columns (default: every writable store). With --usage: each store\'s '
    + 'pool against its budget (--budget for one --store, or the --policy\'s stores:), and every copy in it with its size, '
    + 'clones and last use; exit 50 when a store could not be read. docs/evict.md, "See it".',
  examples: ['ferry status 3f1c2a9e-5b7d-4c1e-9a8f-0d2e4b6c8a10', 'ferry status cirros-raw --json',
    'ferry status --matrix --tag golden', 'ferry status --matrix --all --store site-a --store site-b --json',
    'ferry status --usage --policy /etc/ferry/edge-images.yaml',
    'ferry status --usage --store site-b --ceph-conf /etc/ceph/site-b.conf --budget 500G --json'],
  arguments: [{ name: 'IMAGE', description: 'image ID or unique name (with --matrix: any number of them)', required: false, variadic: true }],
  options: [
    { name: 'matrix', description: 'images × stores table instead of one image' },
    { name: 'usage', description: 'each store\'s use against its budget, and its copies\' size, clones and last use' },
    { name: 'store', value: 'STORE', repeatable: true, description: 'with --matrix: the store columns (default: every writable store); with --usage: the stores (default: the --policy\'s stores:)' },
    ...SELECTION_OPTIONS,
    { name: 'policy', value: 'FILE', description: 'with --usage: a sync policy; its stores: give each store\'s budget, idle and cluster, its placements pin' },
    { ...BUDGET_FLAGS[0]!, description: 'with --usage and one --store: its budget, 500G, 1.5TiB, 750GB or 80% (wins over the policy\'s)' }, BUDGET_FLAGS[1]!,
    { name: 'idle', value: 'DURATION', description: `with --usage: how long a copy must go unused to count as one ferry evict could free (default: the policy's, else ${EVICT_DEFAULTS.idleMs / 3_600_000}h)` },
    { name: 'pool', value: 'POOL', description: 'with --usage and one --store: its pool (default: Glance\'s stores/detail, else the pool its locations name)' },
    configFlag('ceph-conf'), configFlag('rbd-user'),
    { ...PIN_OWNER_FLAG, description: `with --usage: ${PIN_OWNER_FLAG.description}` },
    { ...REMOVE_OWNER_FLAG, description: `with --usage: ${REMOVE_OWNER_FLAG.description}` },
  ],
  jsonSchema: statusCommandJsonSchema,
  async run(ctx) {
    const usageOnly = USAGE_ONLY.filter((name) => ctx.flags[name] !== undefined);
    if (ctx.flags.usage === true) {
      const selection = SELECTION_OPTIONS.map((option) => option.name).filter((name) => ctx.flags[name] !== undefined);
      if (ctx.flags.matrix === true || ctx.args.length > 0 || selection.length > 0) {
        throw new FerryError('FERRY_INVALID_OPTION', ctx.flags.matrix === true ? '--usage and --matrix are two different tables: one at a time'
          : ctx.args.length > 0 ? `--usage takes no IMAGE, got ${ctx.args.join(' ')}` : `--${selection[0]} goes with --matrix, not --usage`,
        '--usage shows every copy in the stores asked for (--store, or the --policy\'s stores:); for some images only, use ferry status --matrix.');
      }
      const policyFile = flagText(ctx.flags.policy);
      const policy = policyFile === undefined ? undefined : readPolicyFile(ctx, policyFile);
      const stores = usageStoresFromFlags(ctx, policy);
      const owners = ownerFlags(ctx, 'pin-owner');
      const removeOwners = ownerFlags(ctx, 'remove-owner');
      const cloud = await ctx.connect();
      const project = await cloud.projectId(ctx.signal);
      return { kind: 'usage', usage: await readUsage(cloud, { stores, signal: ctx.signal, pinsFrom: { refs: [], policy, owners, project },
        removeOwners: removeOwnersGiven(removeOwners, policy) }) };
    }
    if (usageOnly.length > 0) {
      throw new FerryError('FERRY_INVALID_OPTION', `--${usageOnly[0]} goes with --usage`, 'Add --usage (ferry status --usage --store S …), or drop the flag.');
    }
    if (ctx.flags.matrix === true) {
      const selection = selectionFromFlags(ctx);
      assertSelection(selection);
      const stores = Array.isArray(ctx.flags.store) ? ctx.flags.store as readonly string[] : [];
      const cloud = await ctx.connect();
      return { kind: 'matrix', matrix: await readStoreMatrix(cloud, selection, { stores, signal: ctx.signal }) };
    }
    const matrixOnly = ['store', ...SELECTION_OPTIONS.map((o) => o.name)].filter((name) => ctx.flags[name] !== undefined);
    if (ctx.args.length !== 1 || matrixOnly.length > 0) {
      throw new FerryError('FERRY_INVALID_OPTION', ctx.args.length === 0 ? 'no IMAGE given'
        : matrixOnly.length > 0 ? `--${matrixOnly[0]} goes with --matrix` : `one IMAGE at a time, got ${ctx.args.length}`,
      'Give one IMAGE (ferry status IMAGE), or ask for a table with --matrix (ferry status --matrix IMAGE... | --tag T | --all).');
    }
    const cloud = await ctx.connect();
    return { kind: 'image', status: await copyStatus(cloud, ctx.args[0] ?? '', { signal: ctx.signal }) };
  },
  toJson: (report) => (report.kind === 'image' ? statusDocument(report.status) : report.kind === 'usage' ? usageToJson(report.usage) : matrixDocument(report.matrix)),
  rows: (report) => (report.kind === 'matrix' ? matrixToRows(report.matrix) : report.kind === 'usage' ? usageToRows(report.usage) : undefined),
  render: (report, style) => (report.kind === 'image' ? renderStatus(report.status, style)
    : report.kind === 'usage' ? renderUsage(report.usage, style) : renderMatrix(report.matrix, style)),
  exitCode: (report) => (report.kind === 'usage' ? usageExitCode(report.usage) : 0),
};
