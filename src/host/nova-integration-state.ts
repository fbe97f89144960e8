import { readFile } from 'node:fs/promises';
import { z } from 'zod';

/**
 * Where the Debian package's dpkg trigger records whether nova's image backend still carries ferry's patch
 * (packaging/debian/ferry-nova-integration). Absent on hosts installed otherwise: then there is nothing to report.
 */
export const NOVA_INTEGRATION_STATE_FILE = '/var/lib/ferry/nova-integration.json';

export const NOVA_INTEGRATION_STATES = ['applied', 'failed', 'off', 'nova-absent'] as const;
export type NovaIntegrationState = (typeof NOVA_INTEGRATION_STATES)[number];

const stateSchema = z.object({
  state: z.enum(NOVA_INTEGRATION_STATES),
  detail: z.string().nullish(),
  nova_package: z.string().nullish(),
  at: z.string().nullish(),
});

/** The /healthz check: failing only when the patch is wanted and no longer applies (nova then runs its stock copy). */
export type NovaIntegrationCheck =
  | { readonly ok: true; readonly state: NovaIntegrationState; readonly detail?: string; readonly at?: string }
  | { readonly ok: false; readonly state: NovaIntegrationState | 'unreadable'; readonly code: string; readonly message: string;
    readonly detail?: string; readonly at?: string };

/** Judge the state file's text (undefined: no file). Pure. */
export function judgeNovaIntegration(text: string | undefined, path: string): NovaIntegrationCheck | undefined {
  if (text === undefined) return undefined;
  let parsed: z.infer<typeof stateSchema>;
  try {
    parsed = stateSchema.parse(JSON.parse(text));
  } catch {
    return { ok: false, state: 'unreadable', code: 'FERRY_NOVA_INTEGRATION', message: `${path} is not the state file ferry's package writes; `
      + 'run /usr/lib/ferry/nova-integration sync to write it again' };
  }
  const extra = { ...(parsed.detail ? { detail: parsed.detail } : {}), ...(parsed.at ? { at: parsed.at } : {}) };
  if (parsed.state !== 'failed') return { ok: true, state: parsed.state, ...extra };
  return { ok: false, state: 'failed', code: 'FERRY_NOVA_INTEGRATION', ...extra,
    message: `ferry's patch no longer applies to ${parsed.nova_package ?? 'the installed nova'}: nova runs its stock copy loop, without ferry. `
      + 'See journalctl -t ferry-nova-integration; upgrade ferry to a version with a patch for this nova, then run /usr/lib/ferry/nova-integration sync' };
}

/** Read and judge the state file (FERRY_NOVA_INTEGRATION_STATE names another path, for tests). */
export async function readNovaIntegration(path = process.env.FERRY_NOVA_INTEGRATION_STATE ?? NOVA_INTEGRATION_STATE_FILE): Promise<NovaIntegrationCheck | undefined> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    return `unreadable: ${error.code ?? error.message}`;
  });
  return judgeNovaIntegration(text, path);
}
