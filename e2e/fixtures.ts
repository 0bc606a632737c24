import { expect, type APIRequestContext, type Page } from '@playwright/test';
import pg from 'pg';

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

/** The signed-in owner's session token, as the web app keeps it. */
export async function ownerToken(page: Page): Promise<string> {
  const token = await page.evaluate(() => localStorage.getItem('token'));
  expect(token).toBeTruthy();
  return token!;
}

/** A chatbot with one text entry, through the REST API. */
export async function createBot(request: APIRequestContext, token: string, name: string, knowledge: string) {
  const headers = { authorization: `Bearer ${token}` };
  const created = await request.post('/api/chatbot', { headers, data: { name } });
  expect(created.status()).toBe(201);
  const bot = (await created.json()) as { _id: string; uniqueId: string };
  const added = await request.post(`/api/chatbot/${bot._id}/knowledge-base/text`, { headers, data: { text: knowledge, append: true } });
  expect(added.status()).toBe(200);
  return bot;
}

/** Moves an owner to the pro plan in billing's own data, as a completed checkout will. */
export async function makePro(email: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.E2E_DATABASE_URL });
  await client.connect();
  try {
    const { rowCount } = await client.query(
      `UPDATE billing."Account" SET plan = 'pro' WHERE "userId" = (SELECT id::text FROM auth."User" WHERE email = $1)`,
      [email.toLowerCase()],
    );
    expect(rowCount).toBe(1);
  } finally {
    await client.end();
  }
}
