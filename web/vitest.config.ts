import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  // As in vite.config.ts: the chat page's shared components get the app's React and Markdown renderer.
  resolve: { dedupe: ['react', 'react-dom', 'markdown-to-jsx'] },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test/setup.ts'],
    // Above Testing Library's 5 s wait (src/test/setup.ts), so a missing element fails with its own message.
    testTimeout: 15_000,
  },
});
