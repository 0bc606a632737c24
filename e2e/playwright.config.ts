import { defineConfig } from '@playwright/test';
import { CHROMIUM } from '../scripts/machine.ts';

const root = new URL('..', import.meta.url).pathname;

/**
 * The end-to-end stack runs on its own ports (default ports + 100), beside a development one;
 * `E2E_PORT_OFFSET` moves them, so that two checkouts can run their end-to-end tests at once.
 */
export const E2E_PORT_OFFSET = Number(process.env.E2E_PORT_OFFSET || 100);
const E2E_PORT = 8080 + E2E_PORT_OFFSET;

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  outputDir: `${root}test-results/e2e`,
  globalSetup: './global-setup.ts',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list'], ['json', { outputFile: `${root}test-results/playwright.json` }]],
  use: {
    baseURL: `http://localhost:${E2E_PORT}`,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  projects: [{ name: 'chromium', use: { browserName: 'chromium', viewport: { width: 1280, height: 800 } } }],
});
