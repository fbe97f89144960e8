import { CONFIG_DEFAULTS } from '../config/config-defaults.js';

/**
 * The deadline of one image's copy job (prewarm, sync): `--timeout` is one store's share, times the stores the job
 * asks Glance for. Glance runs one import per image at a time and writes an import's stores one after another, so a
 * job that asks N stores takes about N times one store's copy, whatever the request mode; a limit per image ended an
 * import to 40 stores with FERRY_COPY_TIMEOUT (exit 50) while Glance went on copying (issue 37). A job asking one
 * store keeps `--timeout` as it is. `--timeout 0` (already the 24 h cap) is not multiplied: no job waits longer than
 * the larger of that cap and `--timeout`.
 */
export function jobDeadlineMs(timeoutMs: number, storesAsked: number): number {
  const stores = Math.max(1, Math.floor(storesAsked));
  return Math.min(timeoutMs * stores, Math.max(timeoutMs, CONFIG_DEFAULTS.copy.noTimeoutCapMs));
}
