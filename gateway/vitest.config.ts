import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // Integration files start auth, billing and the gateway in-process against real PostgreSQL and Redis.
    hookTimeout: 60_000,
    testTimeout: 30_000,
  },
});
