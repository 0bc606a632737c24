import { expect, type APIRequestContext, type Page } from '@playwright/test';
import pg from 'pg';

export { pngImage } from '../services/common/src/testing/png.ts';

export const PASSWORD = 'correct horse 42';

/** A word that makes the end-to-end run's Anthropic fake answer 529 (overloaded) to the chatbot whose knowledge holds it (global-setup.ts). */
export const CLAUDE_OVERLOADED = 'claudeoverloadeddrill';
/** The one bot token the fake Telegram Bot API knows in the end-to-end run (global-setup.ts). */
export const E2E_TELEGRAM_TOKEN = '555000111:AAE2eTelegramBotTokenForParley_tests1';
/** The one bot token the fake Slack Web API knows in the end-to-end run (global-setup.ts). */
export const E2E_SLACK_TOKEN = 'xoxb-555000111-222333-E2eSlackBotTokenSlk1';
/** The operator's Slack app for "Add to Slack" (slack-channel.spec.ts), and the bot token its install gives. */
export const E2E_SLACK_APP = {
  clientId: '5550001110.2223334440',
  clientSecret: 'e2e-slack-client-secret-0123456789',
  signingSecret: 'e2e0app0signing0secret0000000000',
  botToken: 'xoxb-555000111-444555-E2eInstalledBotOAu1',
};
/** The one WhatsApp number the fake Graph API knows in the end-to-end run (global-setup.ts). */
export const E2E_WHATSAPP = {
  phoneNumberId: '106540352242922',
  businessAccountId: '102290129340398',
  token: 'EAAGe2eSystemUserTokenForParleyTests0w4p',
  appSecret: 'e2e0e2e0e2e0e2e0e2e0e2e0e2e0e2e0',
};

/** The fake Twilio account the SMS spec connects (sms-channel.spec.ts). */
export const E2E_TWILIO = {
  accountSid: 'ACe2e0e2e0e2e0e2e0e2e0e2e0e2e0e2e0',
  authToken: 'e2e1e2e1e2e1e2e1e2e1e2e1e2e1e2e1',
  number: '+15550100300',
};

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

/** Changes a chatbot through PUT /api/chatbot/{id} (appearance, allowedDomains, standalonePage, limits among them). */
export async function updateBot(request: APIRequestContext, token: string, id: string, data: Record<string, unknown>) {
  return request.put(`/api/chatbot/${id}`, { headers: { authorization: `Bearer ${token}` }, data });
}

/** The signed-in owner's credit balance in dollars, through GraphQL. */
async function creditBalance(page: Page): Promise<number> {
  const token = await ownerToken(page);
  const res = await page.request.post('/graphql', {
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    data: { query: '{ me { usage { creditBalance } } }' },
  });
  const body = (await res.json()) as { data?: { me: { usage: { creditBalance: string } } } };
  return Number(body.data?.me.usage.creditBalance ?? 'NaN');
}

/** Adds $5.00 of credit through the dashboard's test-mode checkout, as an owner who tops up does, and waits for it to arrive. */
export async function topUpCredit(page: Page): Promise<void> {
  await page.goto('/dashboard');
  const before = await creditBalance(page);
  await page.getByRole('button', { name: 'Top up $5.00' }).click();
  await page.waitForURL(/\/checkout\/test\//);
  await page.getByRole('button', { name: 'Pay' }).click();
  await page.waitForURL(/\/dashboard/);
  await expect.poll(() => creditBalance(page), { timeout: 15_000 }).toBeGreaterThanOrEqual(before + 5);
}

export interface UsageTotals {
  totalRequests: number;
  /** Exact decimal dollars. */
  totalCost: string;
}

/** What the owner has been billed since the start of this UTC month (usage records arrive through a queue: poll). */
export async function ownerUsage(request: APIRequestContext, token: string): Promise<UsageTotals> {
  const now = new Date();
  const res = await request.post('/graphql', {
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    data: {
      query: 'query ($s: DateTime!, $e: DateTime!) { usage(startDate: $s, endDate: $e) { overallUsage { totalRequests totalCost } } }',
      variables: {
        s: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
        e: new Date(Date.now() + 60_000).toISOString(),
      },
    },
  });
  expect(res.status()).toBe(200);
  const body = (await res.json()) as { data?: { usage: { overallUsage: UsageTotals } }; errors?: unknown };
  expect(body.errors).toBeUndefined();
  return body.data!.usage.overallUsage;
}

/**
 * Disconnects the chatbot's channel from its card in the Channels section, as the owner does: the
 * page loaded at the section, Disconnect, the dialog's text read (`told`), confirmed; resolves once
 * the card offers to connect again (`connectAgain`, the connect button's name).
 */
export async function disconnectFromCard(page: Page, chatbotId: string, channel: string, told: RegExp, connectAgain: string) {
  await page.goto(`/chatbots/${chatbotId}#settings-channels`);
  // When only the hash changed, loaded again: the page opens at the Channels section.
  await page.reload();
  const card = page.getByRole('region', { name: 'Channels' }).getByRole('region', { name: channel });
  await card.getByRole('button', { name: 'Disconnect' }).click();
  const dialog = page.getByRole('dialog', { name: `Disconnect ${channel}?` });
  await expect(dialog.getByText(told)).toBeVisible();
  await dialog.getByRole('button', { name: 'Disconnect' }).click();
  await expect(card.getByRole('button', { name: connectAgain })).toBeVisible();
}
