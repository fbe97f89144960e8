import { z } from 'zod';

// `ferry agent --json`: what the agent did, printed when it stops (docs/cli.md). Its HTTP answers: docs/agent.md.

/** How the agent's run went: where it listened, and what it served until it stopped. */
export interface AgentRunReport {
  readonly socketPath: string;
  readonly requests: number;
  readonly reloads: number;
  /** HOST:PORT of the metrics listener; undefined without --metrics-listen. */
  readonly metricsListen: string | undefined;
}

export const agentJsonSchema = z.object({
  socket: z.string(),
  requests: z.number().int(),
  reloads: z.number().int(),
  /** HOST:PORT of the metrics listener; absent without --metrics-listen. */
  metrics_listen: z.string().optional(),
});

export type AgentJson = z.infer<typeof agentJsonSchema>;

export function agentDocument(report: AgentRunReport): AgentJson {
  return { socket: report.socketPath, requests: report.requests, reloads: report.reloads,
    ...(report.metricsListen === undefined ? {} : { metrics_listen: report.metricsListen }) };
}
