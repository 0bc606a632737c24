import type { Page } from '@playwright/test';

const dir = new URL('../test-results/screenshots/', import.meta.url).pathname;

/** Keeps a full-page screenshot (or what the window shows, for a very long page) as a test artifact (test-results/screenshots/NAME.png). */
export async function screenshot(page: Page, name: string, { fullPage = true } = {}): Promise<void> {
  await page.screenshot({ path: `${dir}${name}.png`, fullPage });
}
