import { z } from 'zod';

// `ferry doctor --json` and `ferry agent status --json`: the node's checks and the verdict (docs/cli.md).

export const CHECK_STATUSES = ['ok', 'warn', 'fail'] as const;

/**
 * A judged node, as host/judge-node's NodeVerdict has it. contract/ stands below host/ (host prints contract's
 * documents), so the document names the fields it prints rather than importing the verdict's type.
 */
export interface NodeChecksInput {
  readonly ok: boolean;
  readonly code: string | null;
  readonly checks: readonly {
    readonly name: string; readonly status: (typeof CHECK_STATUSES)[number]; readonly message: string;
    readonly code?: string; readonly hint?: string;
  }[];
}

export const nodeChecksJsonSchema = z.object({
  ok: z.boolean(),
  code: z.string().nullable(),
  checks: z.array(z.object({ name: z.string(), status: z.enum(CHECK_STATUSES), message: z.string(),
    code: z.string().nullable(), hint: z.string().nullable() }).strict()),
}).strict();

export type NodeChecksJson = z.infer<typeof nodeChecksJsonSchema>;

export function nodeChecksDocument(verdict: NodeChecksInput): NodeChecksJson {
  return { ok: verdict.ok, code: verdict.code, checks: verdict.checks.map((check) => ({ name: check.name, status: check.status,
    message: check.message, code: check.code ?? null, hint: check.hint ?? null })) };
}
