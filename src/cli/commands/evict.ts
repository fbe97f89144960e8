import { FerryError } from '../../errors/ferry-error.js';
import { EVICT_DEFAULTS } from '../../evict/evict-options.js';
import { parseBudget } from '../../fleet/store-budget.js';
import { createEvictMetrics } from '../../evict/evict-metrics.js';
import { evictStore } from '../../evict/evict-store.js';
import { evictExitCode } from '../../evict/exit-verdicts.js';
import { removeOwnersGiven } from '../../fleet/project-owners.js';
import { buildStoreCluster } from '../../fleet/store-cluster.js';
import type { EvictEvent, EvictReport } from '../../fleet/evict-report.js';
import type { CommandSpec } from '../command-spec.js';
import { configFlag } from '../global-options.js';
import { BUDGET_FLAGS, budgetOfFlag, durationFlag, flagList, flagText } from '../inputs/evict-flags.js';
import { readPolicyFile } from '../inputs/policy-file.js';
import { ownerFlags, PIN_OWNER_FLAG, REMOVE_OWNER_FLAG } from '../inputs/pin-flags.js';
import { checkMetricsFileName, writeMetricsFile } from '../output/write-metrics-file.js';
import { renderEvict } from '../render/evict.js';
import { evictJsonSchema, evictToJson } from '../../contract/evict-document.js';
import { EVICT_COLUMNS, evictToRows } from '../reports/evict-rows.js';


export const evictCommand: CommandSpec<EvictReport> = {
  name: 'evict',
  description: 'A copy is a candidate when it is not the image\'s last location, has no clones (trash included), is not pinned '
    + '(--pin, a --policy that wants it here, the image\'s tag ferry-pin or property ferry_pin when a --pin-owner owns it), is not being imported, its image\'s '
    + 'owner is a --remove-owner (default: the credential\'s project; another project\'s copy is never sent a DELETE), and went '
    + 'unused for --idle (default 24h; last use = its newest clone\'s creation, a read, or its own copy time). Candidates go least '
    + 'recently used first until the pool is under --budget (all of them without one). Each is fenced, left a grace period '
    + '(--grace) for boots that were handed it, looked at again, then removed through Glance (DELETE /v2/stores/…). Exit 51 '
    + 'when the budget cannot be met. How and why: docs/evict.md.',
  examples: [
    'ferry evict --store site-b --ceph-conf /etc/ceph/site-b.conf --rbd-user ferry-evict --budget 500G --dry-run',
    'ferry evict --store site-b --ceph-conf /etc/ceph/site-b.conf --budget 80% --policy /etc/ferry/edge-images.yaml',
    'ferry evict --store site-b --ceph-conf /etc/ceph/site-b.conf --idle 7d --json',
    'ferry evict --store site-b --ceph-conf /etc/ceph/site-b.conf --budget 500G -f csv -c image -c outcome',
  ],
  arguments: [],
  options: [
    configFlag('store'), configFlag('ceph-conf'), configFlag('rbd-user'),
    { ...BUDGET_FLAGS[0]!, description: 'evict until the pool holds at most this: 500G, 1.5TiB, 750GB, or 80% (default: every idle copy goes)' },
    BUDGET_FLAGS[1]!,
    { name: 'idle', value: 'DURATION', description: `how long a copy must have gone unused: 24h, 7d, 0 (default ${EVICT_DEFAULTS.idleMs / 3_600_000}h)` },
    { name: 'grace', value: 'DURATION', description: `between the fence and the last look, for boots already handed the copy (default ${EVICT_DEFAULTS.graceMs / 1000}s)` },
    { name: 'pin', value: 'IMAGE', repeatable: true, description: 'never evict this image (ID or name) here' },
    PIN_OWNER_FLAG, REMOVE_OWNER_FLAG,
    { name: 'policy', value: 'FILE', description: 'a sync policy: the images it wants in this store are pinned' },
    { name: 'pool', value: 'POOL', description: 'the store\'s pool (default: Glance\'s stores/detail, else the pool its locations name)' },
    { name: 'dry-run', description: 'show the plan; fence and remove nothing' },
    { name: 'metrics-file', value: 'FILE.prom', description: 'after the run, write its metrics there for node_exporter\'s textfile collector (not with --dry-run)' },
  ],
  jsonSchema: evictJsonSchema,
  async run(ctx) {
    const store = ctx.config.copy.store;
    if (store === undefined) {
      throw new FerryError('FERRY_INVALID_OPTION', '--store STORE is required: the Glance store to free space in', 'Pass e.g. --store site-b.', { option: 'store' });
    }
    const confFile = ctx.config.ceph.confFile;
    if (confFile === undefined) {
      throw new FerryError('FERRY_INVALID_OPTION', `--ceph-conf FILE is required: the ceph.conf of store ${store}'s cluster`,
        'Pass e.g. --ceph-conf /etc/ceph/site-b.conf (and --rbd-user: a user with profile rbd on the store\'s pool).', { option: 'ceph-conf' });
    }
    const metricsFile = flagText(ctx.flags['metrics-file']);
    if (metricsFile !== undefined) {
      checkMetricsFileName(metricsFile);
      if (ctx.flags['dry-run'] === true) {
        throw new FerryError('FERRY_INVALID_OPTION', '--metrics-file records what a run did, and --dry-run does nothing',
          'Drop one of them: ferry status --usage shows a store against its budget without a run.', { option: 'metrics-file' });
      }
    }
    const of = budgetOfFlag(ctx);
    const budget = flagText(ctx.flags.budget);
    const policyFile = flagText(ctx.flags.policy);
    const policy = policyFile === undefined ? undefined : readPolicyFile(ctx, policyFile);
    const refs = flagList(ctx.flags.pin);
    const owners = ownerFlags(ctx, 'pin-owner');
    const removeOwners = removeOwnersGiven(ownerFlags(ctx, 'remove-owner'), policy);
    const flags = { ...(budget === undefined ? {} : { budget: parseBudget(budget, of) }),
      idleMs: durationFlag(ctx, 'idle', EVICT_DEFAULTS.idleMs), graceMs: durationFlag(ctx, 'grace', EVICT_DEFAULTS.graceMs) };
    const cloud = await ctx.connect();
    // The listing is read as this project sees it (a policy's names resolve as sync resolves them); its images' pins count.
    const project = await cloud.projectId(ctx.signal);
    const options = {
      store, cluster: buildStoreCluster(undefined, { confFile, user: ctx.config.ceph.user }, flagText(ctx.flags.pool)), ...flags,
      pinsFrom: { refs, policy, owners, project },
      // Resolved by evictStore with the credential's project when neither names them (project-owners.ts).
      ...(removeOwners === undefined ? {} : { removeOwners }),
      dryRun: ctx.flags['dry-run'] === true, signal: ctx.signal,
      onProgress: (event: EvictEvent) => {
        if (event.type === 'fenced') ctx.notice?.(`fenced ${event.copies} cop${event.copies === 1 ? 'y' : 'ies'}; looking again at ${new Date(event.recheckAtMs).toISOString()}`);
        if (event.type === 'copy-done') ctx.notice?.(`${event.imageId}: ${event.outcome} (${event.detail})`);
      },
    };
    const report = await evictStore(cloud, options);
    if (metricsFile !== undefined) {
      const metrics = createEvictMetrics();
      metrics.record(report, cloud.clock.wallNow());
      writeMetricsFile(metricsFile, await metrics.registry.metrics());
    }
    return report;
  },
  toJson: evictToJson,
  rows: evictToRows,
  rowColumns: EVICT_COLUMNS,
  render: renderEvict,
  exitCode: evictExitCode,
};
