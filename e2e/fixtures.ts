import type { Page } from '@playwright/test';

export { pngImage } from '../services/common/src/testing/png.ts';

export const PASSWORD = 'correct horse 42';

export function uniqueEmail(tag: string): string {
  return `${tag}.${Date.now()}.${Math.floor(Math.random() * 1e6)}@example.com`;
}

/** Registers a new owner through the page and waits for the dashboard. */
export async function registerOwner(page: Page, email = uniqueEmail('owner')): Promise<string> {
  await page.goto('/register');
  await page.locator('input[name="email"]').fill(email);
  await page.locator('input[name="password"]').fill(PASSWORD);
  await page.locator('input[name="password2"]').fill(PASSWORD);
  await page.locator('form button[type="submit"]').click();
  await page.waitForURL(/\/dashboard$/);
  return email;
}
