import { defineConfig } from 'vitest/config';

// Repository checks shell out to buf and read the tree; generation can take seconds on a busy machine.
export default defineConfig({
  test: {
    testTimeout: 60_000,
  },
});
