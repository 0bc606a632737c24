import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  resolve: {
    // Node loads graphql's CommonJS build for Apollo; Vite would pick its ESM build for our sources,
    // and graphql refuses types from "another realm". One copy, as in production.
    alias: [{ find: /^graphql$/, replacement: createRequire(import.meta.url).resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // Integration files start auth, billing and the gateway in-process against real PostgreSQL and Redis.
    hookTimeout: 60_000,
    testTimeout: 30_000,
  },
});
