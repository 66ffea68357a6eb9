import { defineConfig } from 'vitest/config';

/** Every package's tests: real servers over real databases, so generous hooks; forks keep each file's database apart. */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Creating a database takes seconds; each file builds one in beforeAll.
    hookTimeout: 180_000,
    // Waits for outboxes (e-mails rendered with MJML, webhooks) may take long on a busy machine; a test asserts outcomes, never timings.
    testTimeout: 120_000,
    pool: 'forks',
    // The default output, and every failure collected for the summary at the end of `npm test`.
    reporters: ['default', new URL('./scripts/failure-summary-reporter.ts', import.meta.url).pathname],
  },
});
