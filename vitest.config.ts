import { defineConfig } from 'vitest/config';

// Two projects: unit (pure code + nock, no network) and integration (real services from scripts/devcloud).
// scripts/run-integration.mjs decides whether integration runs and fails loudly when it must and cannot.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          setupFiles: ['test/helpers/unit-setup.ts'],
        },
      },
      {
        test: {
          name: 'integration',
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
