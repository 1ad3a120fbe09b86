import { defineConfig } from 'vitest/config';

// `npm run test:faults`: the fault suite (test/faults). Each file starts its own Postgres, Redis and
// service processes and drives load against them, so files run one at a time, never beside
// `npm test` (which excludes test/faults). CI=true shortens every run.
export default defineConfig({
  test: {
    pool: 'forks',
    include: ['test/faults/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 900_000,
    hookTimeout: 300_000,
    teardownTimeout: 60_000,
  },
});
