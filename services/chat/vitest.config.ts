import { defineConfig } from 'vitest/config';

// Integration tests talk to real PostgreSQL and Redis and wait on queue workers.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
