import { z } from 'zod';

// `ferry completion SHELL --json`: the script, for the shell asked (docs/cli.md).

export const COMPLETION_SHELLS = ['bash', 'zsh'] as const;

export interface CompletionReport {
  readonly shell: (typeof COMPLETION_SHELLS)[number];
  readonly script: string;
}

export const completionJsonSchema = z.object({ shell: z.enum(COMPLETION_SHELLS), script: z.string() }).strict();

export type CompletionJson = z.infer<typeof completionJsonSchema>;

export function completionDocument(report: CompletionReport): CompletionJson {
  return { shell: report.shell, script: report.script };
}
