import { configDefaults, defineConfig } from 'vitest/config';

// pool 'forks': chdb allows one ClickHouse engine per process, so each test file runs in its own process.
export default defineConfig({
  test: {
    pool: 'forks',
    globalSetup: ['test/setup/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    // The fault suite starts its own servers and runs minutes of load: `npm run test:faults`.
    exclude: [...configDefaults.exclude, 'test/faults/**'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
  },
});
