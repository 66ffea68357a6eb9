import { defineConfig } from 'vitest/config';

/** Every package's tests: real servers over real databases, so generous hooks; forks keep each file's database apart. */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Creating a database takes seconds; each file builds one in beforeAll.
    hookTimeout: 180_000,
    testTimeout: 30_000,
    pool: 'forks',
  },
});
