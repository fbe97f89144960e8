import type { CommandOptions, CommandOutcome, CommandRunner } from '../../src/rbd/command-runner.js';

export interface RunnerCall {
  readonly file: string;
  readonly args: readonly string[];
  readonly options: CommandOptions;
}

/**
 * A command runner (for the ceph/rbd CLIs) that answers from a script and records what it was asked: each call gets
 * the next outcome, and the last one answers every call after it.
 */
export function scriptedRunner(...outcomes: [CommandOutcome, ...CommandOutcome[]]): CommandRunner & { calls: RunnerCall[] } {
  const calls: RunnerCall[] = [];
  return {
    calls,
    run: (file, args, options) => {
      calls.push({ file, args, options });
      return Promise.resolve(outcomes[Math.min(calls.length, outcomes.length) - 1]!);
    },
  };
}
