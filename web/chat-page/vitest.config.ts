import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { JSX, PREACT_COMPAT } from './vite.config.ts';

const testingLibraryModule = fileURLToPath(
  new URL('node_modules/@testing-library/react/dist/@testing-library/react.esm.js', import.meta.url),
);

// The page's unit tests, on the runtime it is built with: React's API on preact/compat (ADR 38).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  oxc: { jsx: JSX },
  resolve: {
    // Testing Library's ES module build, whose imports of React go through the aliases (its CommonJS
    // build would require the React beside it, not preact/compat).
    alias: [{ find: /^@testing-library\/react$/, replacement: testingLibraryModule }, ...PREACT_COMPAT],
    dedupe: ['preact'],
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test/setup.ts'],
    // Testing Library and the Markdown renderer import React: run through Vite, so that the aliases
    // above give them the page's preact/compat too (Node would load the React beside them).
    server: { deps: { inline: [/[\\/]node_modules[\\/](markdown-to-jsx|@testing-library[\\/]react)[\\/]/] } },
    // Above Testing Library's 5 s wait (src/test/setup.ts), so a missing element fails with its own message.
    testTimeout: 15_000,
  },
});
