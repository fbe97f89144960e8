// vitest's runner (vitest.config.ts `runner:`, both projects) with one addition: every program a test's own code
// spawns (node:child_process spawn, spawnSync, execFile, execFileSync, execSync, exec, fork; called from a file under
// test/) must carry a `timeout`, and fit the limit of the test or hook that spawns it (spawn-budget.ts judgeSpawn).
// Otherwise the call throws, on every machine, fast or slow: a test whose limit is vitest's 5 s default while its
// spawnSync may take 120 s passes on a quiet machine and times out on a busy one (issue 36).
// Programs ferry itself spawns (src/) keep their own limits and are not judged here.
// Both projects, unit and integration, judge every file alike (the integration files that only reported their findings
// while they were being fixed, spawn-limit-debt.ts, are all judged now).
import type * as ChildProcess from 'node:child_process';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestRunner } from 'vitest';
import { judgeSpawn, SERVICE } from './spawn-budget.js';

type ChildProcessModule = typeof ChildProcess;
const SPAWNERS = ['spawn', 'spawnSync', 'execFile', 'execFileSync', 'execSync', 'fork'] as const;
/** Those that return once the program ended; the others return a running child. */
const SYNCHRONOUS = new Set<string>(['spawnSync', 'execFileSync', 'execSync']);

const THIS_FILE = fileURLToPath(import.meta.url);
const ROOT = process.cwd();
const TEST_DIR = `${ROOT}${sep}test${sep}`;

/** A child_process call's options: the first plain object after the command. */
const optionsOf = (args: readonly unknown[]): { timeout?: unknown; [SERVICE]?: unknown } | undefined =>
  args.slice(1).find((arg) => typeof arg === 'object' && arg !== null && !Array.isArray(arg)) as { timeout?: unknown } | undefined;

/** The `timeout` of a child_process call's options. */
export function timeoutOption(args: readonly unknown[]): number | undefined {
  const options = optionsOf(args);
  return typeof options?.timeout === 'number' ? options.timeout : undefined;
}

/** The test file and line that called, or undefined when the caller is not the tests' own code (src/, node_modules). */
export function testCallSite(stack: string): string | undefined {
  for (const line of stack.split('\n').slice(1)) {
    const file = /\(?((?:file:\/\/)?\/[^():]+):(\d+):\d+\)?\s*$/.exec(line);
    if (!file?.[1]) continue;
    const path = file[1].startsWith('file://') ? fileURLToPath(file[1]) : file[1];
    if (path === THIS_FILE || path.includes(`${sep}node_modules${sep}`)) continue;
    return path.startsWith(TEST_DIR) ? `${relative(ROOT, path)}:${file[2]}` : undefined;
  }
  return undefined;
}

/** What the runner says about the running task: vitest sets both while a test or hook runs (withTimeout). */
interface RunnerTaskState {
  _currentTaskTimeout?: number;
  _currentTaskStartTime?: number;
}

let installed = false;

function install(runner: RunnerTaskState): void {
  if (installed) return;
  installed = true;
  const childProcess = createRequire(import.meta.url)('node:child_process') as ChildProcessModule;
  let task: { key: number | undefined; declaredMs: number } = { key: undefined, declaredMs: 0 };
  const current = (): typeof task => {
    if (task.key !== runner._currentTaskStartTime) task = { key: runner._currentTaskStartTime, declaredMs: 0 };
    return task;
  };
  for (const name of SPAWNERS) {
    const original = childProcess[name] as (...args: unknown[]) => unknown;
    const guarded = function (this: unknown, ...args: unknown[]): unknown {
      const site = testCallSite(new Error().stack ?? '');
      if (site === undefined) return original.apply(this, args);
      const budget = current();
      const verdict = judgeSpawn({ call: `${name}('${String(args[0])}')`, site, timeoutMs: timeoutOption(args), service: optionsOf(args)?.[SERVICE] === true },
        { limitMs: runner._currentTaskTimeout, declaredMs: budget.declaredMs });
      if (!verdict.allowed) throw new Error(verdict.reason);
      const { endsAtMs } = verdict;
      if (SYNCHRONOUS.has(name)) {
        budget.declaredMs = endsAtMs;
        return original.apply(this, args);
      }
      const child = original.apply(this, args) as { once(event: 'exit', listener: () => void): unknown };
      child.once('exit', () => {
        budget.declaredMs = Math.max(budget.declaredMs, endsAtMs);
      });
      return child;
    };
    (childProcess as unknown as Record<string, unknown>)[name] = guarded;
  }
  // `import { spawnSync } from 'node:child_process'` in a test file sees the guarded functions too.
  syncBuiltinESMExports();
}

export default class SpawnLimitRunner extends TestRunner {
  constructor(...args: ConstructorParameters<typeof TestRunner>) {
    super(...args);
    install(this as unknown as RunnerTaskState);
  }
}
