import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// The long run: every size in harness/mode.ts switches to its long value. Set before the workers start, so they
// inherit it; an explicit RELIABILITY in the environment still wins.
process.env.RELIABILITY ??= 'long';

/**
 * `npm run test:reliability`: the reliability suites only, one file at a time so they do not skew each other's
 * timings. A default export, as vitest requires of a config file (like the root vitest.config.ts).
 */
export default defineConfig({
  root: join(import.meta.dirname, '..', '..'),
  test: {
    include: ['test/reliability/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 60 * 60_000,
    hookTimeout: 10 * 60_000,
    globalSetup: ['test/reliability/harness/long-run-report.ts'],
  },
});
