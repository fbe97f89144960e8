import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';

/**
 * Where the Debian package's dpkg trigger records whether nova's image backend still carries ferry's patch
 * (debian/ferry-nova-integration). Absent on hosts installed otherwise: then there is nothing to report.
 */
export const NOVA_INTEGRATION_STATE_FILE = '/var/lib/ferry/nova-integration.json';
/**
 * Beside it: whether nova-compute runs the nova code on disk, written as root by `nova-integration check-running` (after
 * each sync, and every minute by ferry-nova-check.timer): the agent's user cannot see nova's processes.
 */
export const NOVA_COMPUTE_FILE_NAME = 'nova-compute.json';

export const NOVA_INTEGRATION_STATES = ['applied', 'failed', 'off', 'nova-absent'] as const;
export type NovaIntegrationState = (typeof NOVA_INTEGRATION_STATES)[number];

const stateSchema = z.object({
  state: z.enum(NOVA_INTEGRATION_STATES),
  detail: z.string().nullish(),
  nova_package: z.string().nullish(),
  at: z.string().nullish(),
});

const computeSchema = z.object({
  running: z.boolean(),
  stale: z.boolean(),
  pid: z.number().int().nullish(),
  started_at: z.string().nullish(),
  code_changed_at: z.string().nullish(),
});

/** nova-compute against the code on disk: stale when it started before nova's files last changed. */
export interface NovaComputeProcess {
  readonly stale: boolean;
  readonly pid?: number;
  readonly started_at?: string;
  readonly code_changed_at?: string;
}

/**
 * The /healthz check: failing when the patch is wanted and no longer applies, or when nova-compute still runs the
 * code from before nova's files changed (both: nova runs its stock copy). `nova_compute` is absent where nothing
 * recorded it or nova-compute does not run.
 */
export type NovaIntegrationCheck =
  | { readonly ok: true; readonly state: NovaIntegrationState; readonly detail?: string; readonly at?: string; readonly nova_compute?: NovaComputeProcess }
  | { readonly ok: false; readonly state: NovaIntegrationState | 'unreadable'; readonly code: string; readonly message: string;
    readonly detail?: string; readonly at?: string; readonly nova_compute?: NovaComputeProcess };

/** The nova-compute record's text (undefined: none); undefined too when it is unreadable or nova-compute does not run. Pure. */
export function judgeNovaCompute(text: string | undefined): NovaComputeProcess | undefined {
  if (text === undefined) return undefined;
  let parsed: z.infer<typeof computeSchema>;
  try {
    parsed = computeSchema.parse(JSON.parse(text));
  } catch {
    return undefined;
  }
  if (!parsed.running) return undefined;
  return { stale: parsed.stale, ...(parsed.pid == null ? {} : { pid: parsed.pid }),
    ...(parsed.started_at ? { started_at: parsed.started_at } : {}), ...(parsed.code_changed_at ? { code_changed_at: parsed.code_changed_at } : {}) };
}

/** Judge the state file's text (undefined: no file) and nova-compute's record. Pure. */
export function judgeNovaIntegration(text: string | undefined, path: string, compute?: NovaComputeProcess): NovaIntegrationCheck | undefined {
  if (text === undefined) return undefined;
  let parsed: z.infer<typeof stateSchema>;
  try {
    parsed = stateSchema.parse(JSON.parse(text));
  } catch {
    return { ok: false, state: 'unreadable', code: 'FERRY_NOVA_INTEGRATION', message: `${path} is not the state file ferry's package writes; `
      + 'run /usr/lib/ferry/nova-integration sync to write it again' };
  }
  const extra = { ...(parsed.detail ? { detail: parsed.detail } : {}), ...(parsed.at ? { at: parsed.at } : {}),
    ...(compute === undefined ? {} : { nova_compute: compute }) };
  if (parsed.state === 'applied' && compute?.stale === true) {
    return { ok: false, state: parsed.state, code: 'FERRY_NOVA_INTEGRATION', ...extra,
      message: `nova-compute${compute.pid === undefined ? '' : ` (PID ${compute.pid})`} started${compute.started_at ? ` at ${compute.started_at}` : ''}, `
        + `before nova's files changed${compute.code_changed_at ? ` at ${compute.code_changed_at}` : ''} (ferry's patch applied again): it still runs `
        + 'the code from before, which does not ask ferry. Restart nova-compute (systemctl restart nova-compute)' };
  }
  if (parsed.state !== 'failed') return { ok: true, state: parsed.state, ...extra };
  return { ok: false, state: 'failed', code: 'FERRY_NOVA_INTEGRATION', ...extra,
    message: `ferry's patch no longer applies to ${parsed.nova_package ?? 'the installed nova'}: nova runs its stock copy loop, without ferry. `
      + 'See journalctl -t ferry-nova-integration; upgrade ferry to a version with a patch for this nova, then run /usr/lib/ferry/nova-integration sync' };
}

/** Read and judge the state file and nova-compute's record beside it (FERRY_NOVA_INTEGRATION_STATE names another path, for tests). */
export async function readNovaIntegration(path = process.env.FERRY_NOVA_INTEGRATION_STATE ?? NOVA_INTEGRATION_STATE_FILE): Promise<NovaIntegrationCheck | undefined> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    return `unreadable: ${error.code ?? error.message}`;
  });
  const compute = await readFile(join(dirname(path), NOVA_COMPUTE_FILE_NAME), 'utf8').catch(() => undefined);
  return judgeNovaIntegration(text, path, judgeNovaCompute(compute));
}
