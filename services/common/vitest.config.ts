import { defineConfig } from 'vitest/config';

// Integration tests talk to real PostgreSQL and Redis (and hash passwords at full cost): on a busy
// machine one can take longer than vitest's default 5 s, which only says the machine is busy.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
