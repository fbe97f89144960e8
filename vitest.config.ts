import { defineConfig } from 'vitest/config';

// Two projects: unit (pure code + nock, no network) and integration (real services from scripts/devcloud).
// scripts/run-integration.mjs decides whether integration runs and fails loudly when it must and cannot.
// Both run under test/helpers/spawn-limit-runner.ts: a program a test spawns needs a timeout that fits the test's limit.
const runner = 'test/helpers/spawn-limit-runner.ts';
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          runner,
          // A unit test waits for the CPU alone (fake clocks, nock): its limit catches a hang, it is no speed test
          // (bench/ measures speed). vitest's 5 s default decided verdicts on a busy 2-core machine (issue 36: a
          // worker thread's start and a first command's imports took over 5 s at load 12), so 60 s. A test that spawns
          // a program states its own limit (spawn-limit-runner.ts).
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // One worker per core. vitest's default (cores - 1) ran the unit suite in one worker on a 2-core machine,
          // where many files mostly wait on programs they spawn (python3, patch, bash): 172 s of `npm test`.
          maxWorkers: '100%',
          include: ['test/unit/**/*.test.ts'],
          setupFiles: ['test/helpers/unit-setup.ts'],
        },
      },
      {
        test: {
          name: 'integration',
          runner,
          include: ['test/integration/**/*.test.ts'],
          setupFiles: ['test/helpers/integration-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          pool: 'forks',
        },
      },
    ],
  },
});
