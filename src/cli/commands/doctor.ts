import { readNovaConfFacts, readNovaPatchFacts } from '../inputs/node-facts.js';
import { nodeCheckCommand } from '../node-check-command.js';

export const doctorCommand = nodeCheckCommand({
  name: 'doctor',
  description: 'Is ferry right on this node? Checks the agent\'s socket and its group, asks the agent (GET /healthz: token, '
    + 'Glance, fsid, transfer, stores; its version from /metrics), reads nova\'s [libvirt] options (images_type, '
    + 'images_rbd_glance_store_name, images_rbd_ferry_agent_socket, images_rbd_glance_copy_timeout) from --nova-conf, else '
    + 'FERRY_NOVA_CONF of /etc/default/ferry-agent, else /etc/nova/nova.conf and nova-compute.conf, and the nova patch\'s '
    + 'state (/var/lib/ferry/nova-integration.json). Talks to no cloud itself. Exit 0 when no check fails (warnings '
    + 'allowed), else the exit code of the first failing check\'s code (docs/cli.md, ferry doctor).',
  examples: ['ferry doctor', 'ferry doctor --json', 'ferry doctor --agent /run/ferry/agent.sock --socket-group 42436',
    'ferry doctor --nova-conf /etc/nova/nova.conf --nova-conf /etc/nova/nova-compute.conf'],
  more: async (ctx) => ({ nova: readNovaConfFacts(ctx.config.origin.novaConfFiles ?? [], (path) => ctx.readFile(path)), novaPatch: await readNovaPatchFacts(ctx.env) }),
});
