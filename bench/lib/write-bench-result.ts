import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './devcloud-facts.js';

export const RESULTS_DIR = join(REPO_ROOT, 'bench', 'results');

/** Where and when a run happened: what makes two results comparable (the dev cloud shares a 2-core machine). */
export function machineInfo(): Record<string, unknown> {
  let debian = 'unknown';
  try {
    debian = readFileSync('/etc/debian_version', 'utf8').trim();
  } catch {
    // not Debian: leave it unknown
  }
  return { startedAt: new Date(performance.timeOrigin).toISOString(), date: new Date().toISOString(), node: process.version, cpus: availableParallelism(), debian,
    loadavg: loadavg().map((v) => Math.round(v * 100) / 100) };
}

/**
 * The commit measured, and which files under src/ differed from it (the lead commits while helpers run). Read-only:
 * --no-optional-locks keeps `git status` from refreshing the index.
 */
export function codeVersion(): { commit: string; srcChanges: string[] } {
  const git = (args: readonly string[]): string => spawnSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).stdout ?? '';
  return { commit: git(['rev-parse', '--short', 'HEAD']).trim() || 'unknown',
    srcChanges: git(['--no-optional-locks', 'status', '--porcelain', '--', 'src']).split('\n').filter((line) => line !== '') };
}

/** Writes bench/results/<name>.json (the latest run of that benchmark) and returns its path. */
export function writeBenchResult(name: string, result: Record<string, unknown>): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${name}.json`);
  writeFileSync(file, `${JSON.stringify({ bench: name, machine: machineInfo(), code: codeVersion(), ...result }, null, 2)}\n`);
  return file;
}
