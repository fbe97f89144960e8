import { nodeCheckCommand } from '../node-check-command.js';

export const agentStatusCommand = nodeCheckCommand({
  name: 'agent status',
  description: 'The agent\'s health without curl: its socket and group, then GET /healthz on it (every check, now, with '
    + 'its message) and its version from /metrics. Exit 0 when no check fails, else the exit code of the first failing '
    + 'check\'s code (docs/cli.md, ferry agent status). For nova.conf and the nova patch too: ferry doctor.',
  examples: ['ferry agent status', 'ferry agent status --json', 'ferry agent status --agent /run/ferry/agent.sock'],
  more: () => Promise.resolve({}),
});
