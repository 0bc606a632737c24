import { defineConfig } from 'vitest/config';

// One run covers every package: each directory below is a vitest project with its own config or
// the defaults (node environment). Integration tests read DATABASE_URL and REDIS_URL.
export default defineConfig({
  test: {
    projects: ['services/*', 'gateway', 'web', 'web/chat-page', 'test'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
