import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Creating a database takes seconds; each file builds one in beforeAll.
    hookTimeout: 180_000,
    testTimeout: 30_000,
    pool: 'forks',
  },
});
