import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { databaseFreeTests } from './scripts/database-free-tests.js';

/**
 * Every package's tests: real servers over real databases, so generous hooks; forks keep each file's database apart.
 * `packageDir` is the package's folder (its vitest.config.ts passes `new URL('.', import.meta.url)`).
 */
export function sharedConfig(packageDir: URL) {
  // The PostgreSQL pass of `npm test` (scripts/test-both-databases.sh) leaves out the files that never reach a
  // database (scripts/database-free-tests.ts finds them): the embedded pass already ran them, and they would run the same.
  const onlyDatabaseTests = process.env.RENEW_TEST_ONLY_DATABASE_FILES === '1';
  return defineConfig({
    test: {
      include: ['test/**/*.test.ts'],
      exclude: [...configDefaults.exclude, ...(onlyDatabaseTests ? databaseFreeTests(fileURLToPath(packageDir)) : [])],
      // One migrated database per run, copied for each test app (billing-service/test/helpers/test-database.ts).
      globalSetup: [fileURLToPath(new URL('./billing-service/test/helpers/database-template.ts', import.meta.url))],
      // Creating a database takes seconds; each file builds one in beforeAll.
      hookTimeout: 180_000,
      // Waits for outboxes (e-mails rendered with MJML, webhooks) may take long on a busy machine; a test asserts outcomes, never timings.
      testTimeout: 120_000,
      pool: 'forks',
      // Two files at once on 2 cores (vitest's own default is a core less than the machine has: one at a time): a file
      // spends much of its time waiting on its database, so the suite takes about two thirds as long. RENEW_TEST_WORKERS sets it.
      maxWorkers: Number(process.env.RENEW_TEST_WORKERS) > 0 ? Number(process.env.RENEW_TEST_WORKERS) : Math.max(2, availableParallelism()),
      // The default output, and every failure collected for the summary at the end of `npm test`.
      reporters: ['default', new URL('./scripts/failure-summary-reporter.ts', import.meta.url).pathname],
    },
  });
}
