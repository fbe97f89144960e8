import { configShowReport, type ConfigShowReport } from '../../config/config-show-report.js';
import { configShowDocument, configShowJsonSchema } from '../../contract/config-show-document.js';
import type { CommandSpec } from '../command-spec.js';
import { HOST_STORAGE_FLAGS, configFlag } from '../global-options.js';
import { renderConfigShow } from '../render/config-show.js';

export const configShowCommand: CommandSpec<ConfigShowReport> = {
  name: 'config show',
  description: 'Reads flags, OS_*/FERRY_* variables, clouds.yaml (+ secure.yaml) and nova.conf exactly as every other command '
    + 'does, and prints the result without talking to any service. Passwords, application-credential secrets and tokens '
    + 'are shown as <hidden>.',
  examples: ['ferry config show', 'ferry config show --os-cloud site-b --nova-conf /etc/nova/nova.conf', 'ferry config show -f value -c values'],
  arguments: [],
  options: ['store', 'fsid', 'ceph-conf', 'rbd-user', 'rbd-pool', 'timeout', 'poll-interval', 'stale-lock-after', 'take-over-expired', 'transfer', 'source-ceph-conf', 'source-rbd-user',
    'rbd-quiet-time', ...HOST_STORAGE_FLAGS].map(configFlag),
  jsonSchema: configShowJsonSchema,
  run: (ctx) => Promise.resolve(configShowReport(ctx.config)),
  toJson: configShowDocument,
  render: renderConfigShow,
};
