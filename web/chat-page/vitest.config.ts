import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// The page's unit tests, on the React 18 it is built with (this package's own install).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test/setup.ts'],
    // Above Testing Library's 5 s wait (src/test/setup.ts), so a missing element fails with its own message.
    testTimeout: 15_000,
  },
});
