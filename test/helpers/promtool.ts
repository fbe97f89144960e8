import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export interface PromtoolCheck {
  /** Path of promtool, or undefined when it cannot be had here. */
  readonly path: string | undefined;
  /** Why not (empty when found): goes into the skipped suite's title. */
  readonly reason: string;
}

/**
 * promtool (Debian's `prometheus` package), installed by scripts/monitoring/ensure-promtool when missing. When apt
 * cannot give it, the caller skips with the reason in its title; under FERRY_REQUIRE_INTEGRATION=1 (CI) this throws.
 */
export function findPromtool(): PromtoolCheck {
  const run = spawnSync('bash', [join(process.cwd(), 'scripts/monitoring/ensure-promtool')], { encoding: 'utf8', timeout: 900_000 });
  const path = run.status === 0 ? run.stdout.trim().split('\n').at(-1) : undefined;
  if (path) return { path, reason: '' };
  const reason = `promtool unavailable: ${(run.stderr || run.error?.message || 'ensure-promtool failed').trim().split('\n').slice(-2).join(' ')}`;
  if (process.env.FERRY_REQUIRE_INTEGRATION === '1') throw new Error(`FERRY_REQUIRE_INTEGRATION=1 and ${reason}`);
  console.error(`\n!!! SKIPPED (promtool): ${reason}\n`);
  return { path: undefined, reason };
}

/** One promtool run (a rules test, a check): it reads the files it is given, nothing else. */
export const PROMTOOL_MS = 60_000;
/** Run promtool with the given arguments (and stdin); its exit code and output. */
export function promtool(path: string, args: readonly string[], input?: string): { code: number; output: string } {
  const run = spawnSync(path, args, { encoding: 'utf8', timeout: PROMTOOL_MS, ...(input === undefined ? {} : { input }) });
  return { code: run.status ?? -1, output: `${run.stdout}${run.stderr}`.trim() };
}
