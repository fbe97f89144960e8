// The decision behind test/helpers/spawn-limit-runner.ts: may a test (or hook) spawn this program, given its own time
// limit and the programs it spawned before? Pure: no clock, no process. A test's verdict must not depend on the
// machine's speed, so what a test spawns must fit the test's limit by what each program is allowed to take (its
// `timeout`), never by how fast it happened to run.
//
// The model: each task (a test or a hook) has a declared clock, the worst case of its spawns so far. A synchronous
// spawn runs from the clock's reading to that plus its timeout, and moves the clock there. An asynchronous one starts
// at the reading, and moves the clock to its own worst end only when it exits, so children running side by side count
// once, one after another count each.

/**
 * Marks a spawn's options as a service's (service(options)): a program the tests use while it runs (an agent, a
 * proxy) and stop themselves, not one a test waits to end. It needs a timeout still (its lifetime: no orphan outlives
 * a hung file), but that is not the spawning test's to cover, and it moves no task's clock.
 */
export const SERVICE = Symbol.for('ferry.spawn-limit.service');
export function service<T extends object>(options: T): T {
  return Object.assign(options, { [SERVICE]: true });
}

/** One spawn as the guard sees it. */
export interface SpawnRequest {
  /** What was called and run, for the message: `spawnSync('python3')`. */
  readonly call: string;
  /** Where the test's code called it: `test/unit/rbd/python-programs.test.ts:29`. */
  readonly site: string;
  /** The spawn's own `timeout` option in ms; undefined when it has none. */
  readonly timeoutMs: number | undefined;
  /** A service (service(options)): its timeout is its lifetime, not the test's to cover. */
  readonly service?: boolean;
}

/** The running task: its limit (undefined outside any test or hook, e.g. while a file is collected). */
export interface TaskBudget {
  readonly limitMs: number | undefined;
  /** The declared clock: the worst case of the spawns this task made so far. */
  readonly declaredMs: number;
}

export type SpawnVerdict =
  | { readonly allowed: true; readonly startsAtMs: number; readonly endsAtMs: number }
  | { readonly allowed: false; readonly reason: string };

const seconds = (ms: number): string => `${ms / 1000} s`;

export function judgeSpawn(request: SpawnRequest, task: TaskBudget): SpawnVerdict {
  const { call, site, timeoutMs } = request;
  if (timeoutMs === undefined || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    return {
      allowed: false,
      reason: `${call} at ${site} has no timeout: a program the test spawns needs a limit of its own `
        + '(the `timeout` option), and the test a limit that covers it (the last argument of it(), beforeAll(), …)',
    };
  }
  const startsAtMs = task.declaredMs;
  if (request.service === true) return { allowed: true, startsAtMs, endsAtMs: startsAtMs };
  const endsAtMs = startsAtMs + timeoutMs;
  if (task.limitMs !== undefined && task.limitMs > 0 && endsAtMs > task.limitMs) {
    const before = startsAtMs > 0 ? ` after ${seconds(startsAtMs)} its earlier spawns may take` : '';
    return {
      allowed: false,
      reason: `${call} at ${site} may run ${seconds(timeoutMs)}${before}, but the test (or hook) that spawns it `
        + `has a limit of ${seconds(task.limitMs)}: its verdict would depend on the machine's speed. Give the test `
        + `a limit of at least ${seconds(endsAtMs)} (the last argument of it(), beforeAll(), …), or the program a shorter timeout`,
    };
  }
  return { allowed: true, startsAtMs, endsAtMs };
}

/**
 * What an integration test waits for besides the programs it spawns (HTTP answers, Glance's copies, an agent's
 * warm-up): vitest.config.ts's integration testTimeout. A test that spawns states its limit as this plus its spawns'
 * timeouts, each named where its helper is (CEPH_MS, COMMAND_MS, …).
 */
export const INTEGRATION_TEST_MS = 120_000;
