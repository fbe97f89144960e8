// bench/lib/step-log.ts: its rbd/ceph wrappers log each run of a ferry process's children. ferry hands a child only the
// variables src/process/child-environment.ts allows: the wrapper must log with nothing more (seen before: the log was
// named in FERRY_BENCH_STEP_LOG, which ferry drops, so nothing was logged and every wrapped ensure exited 35).
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { createStepLog, type StepLog } from '../../../bench/lib/step-log.js';
import { childEnvironment } from '../../../src/process/child-environment.js';

/** `uname -s` through the wrapper (the unit tests run before the dev cloud has installed rbd on a fresh machine). */
const RUN_MS = 30_000;
let log: StepLog | undefined;

afterEach(() => log?.dispose());

describe('the bench step log', () => {
  it('logs a wrapped run with ferry\'s child environment', () => {
    log = createStepLog(['uname']);
    const startedAt = Date.now() / 1000;
    const env = childEnvironment({ ...process.env, ...log.env });
    const run = spawnSync('uname', ['-s'], { env, encoding: 'utf8', timeout: RUN_MS });
    expect(run.status, run.stderr).toBe(0);
    const steps = log.read(startedAt);
    expect(steps.map((step) => [step.name, step.exit])).toEqual([['uname -s', 0]]);
  }, RUN_MS + 10_000);
});
