import { ERROR_TABLE } from '../errors/error-table.js';
import { judgeNode, type NodeFacts, type NodeVerdict } from '../host/judge-node.js';
import { FERRY_VERSION } from '../metrics/ferry-version.js';
import type { CommandContext, CommandSpec } from './command-spec.js';
import { NODE_OPTIONS, readAgentFacts, readSocketFacts, socketGroupOf, socketPathOf } from './inputs/node-facts.js';
import { nodeChecksDocument, nodeChecksJsonSchema } from '../contract/node-checks-document.js';
import { renderNodeChecks } from './render/node-checks.js';

/** `ferry doctor` and `ferry agent status`: gather facts about this node, judge them (host/judge-node.ts), print the checks. */
export function nodeCheckCommand(input: { readonly name: string; readonly description: string; readonly examples: readonly string[];
  /** The facts beyond the socket and the agent's answer (nova.conf, the patch), for the socket path given. */
  readonly more: (ctx: CommandContext) => Promise<Pick<NodeFacts, 'nova' | 'novaPatch'>> }): CommandSpec<NodeVerdict> {
  return {
    name: input.name,
    description: input.description,
    examples: input.examples,
    arguments: [],
    options: NODE_OPTIONS,
    // It asks the agent's socket and reads local files: no credentials, no cloud option.
    offline: true,
    jsonSchema: nodeChecksJsonSchema,
    async run(ctx) {
      const path = socketPathOf(ctx);
      const [agent, more] = await Promise.all([readAgentFacts(path, ctx.signal), input.more(ctx)]);
      return judgeNode({ socket: readSocketFacts(path), socketGroup: socketGroupOf(ctx), agent, version: FERRY_VERSION, ...more });
    },
    toJson: nodeChecksDocument,
    render: (verdict, style) => renderNodeChecks(verdict, style, `ferry ${input.name}`),
    // The first failing check's code (docs/cli.md); warnings alone exit 0.
    exitCode: (verdict) => (verdict.code === null ? 0 : ERROR_TABLE[verdict.code].exit),
  };
}
