/// <reference lib="dom" />
// The money half of the product against the whole running stack, with checkout in test mode (no
// Stripe key): a new owner upgrades and tops up through the local checkout page, a visitor chats,
// and the owner reads what it cost on /usage (chart, ranges, CSV), the dashboard and the detail page.
import { readFileSync } from 'node:fs';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { registerOwner } from './fixtures.ts';
import { screenshot } from './screenshots.ts';

async function ownerToken(page: Page): Promise<string> {
  const token = await page.evaluate(() => localStorage.getItem('token'));
  expect(token).toBeTruthy();
  return token!;
}

/** An exact decimal string rounded half away from zero to `places`, as the pages show it. */
function dollars(amount: string, places: number): string {
  const [whole, fraction = ''] = amount.replace('-', '').split('.');
  const scaled = BigInt(whole + fraction.padEnd(places + 1, '0').slice(0, places + 1));
  const rounded = (scaled + 5n) / 10n;
  const digits = rounded.toString().padStart(places + 1, '0');
  return `$${digits.slice(0, -places)}.${digits.slice(-places)}`;
}

interface UsageReport {
  currentCreditBalance: string;
  overallUsage: { totalCost: string; totalRequests: number };
  recentRequests: {
    totalCost: string;
    promptTokens: number;
    completionTokens: number;
    totalTokens: number;
    chatbot: { name: string } | null;
  }[];
  usageByChatbot: { chatbotId: string; totalCost: string }[];
}

/** The owner's usage since `start` through GraphQL, whose amounts are exact decimal strings. */
async function usage(request: APIRequestContext, token: string, start: Date): Promise<UsageReport> {
  const res = await request.post('/graphql', {
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    data: {
      query: `query ($s: DateTime!, $e: DateTime!) { usage(startDate: $s, endDate: $e) {
        currentCreditBalance overallUsage { totalCost totalRequests }
        recentRequests { totalCost promptTokens completionTokens totalTokens chatbot { name } }
        usageByChatbot { chatbotId totalCost } } }`,
      variables: { s: start.toISOString(), e: new Date(Date.now() + 60_000).toISOString() },
    },
  });
  expect(res.status()).toBe(200);
  const body = (await res.json()) as { data?: { usage: UsageReport }; errors?: unknown };
  expect(body.errors).toBeUndefined();
  return body.data!.usage;
}

async function payOnTestCheckout(page: Page, label: RegExp) {
  await page.waitForURL(/\/checkout\/test\//);
  await expect(page.getByText('Test mode — no real payment')).toBeVisible();
  await expect(page.getByText(label)).toBeVisible();
}

test('a new owner upgrades and tops up through test-mode checkout, and reads what the chats cost', async ({ page, context, request }) => {
  await registerOwner(page);
  const token = await ownerToken(page);
  const headers = { authorization: `Bearer ${token}` };

  // Free plan: one chatbot, and the dashboard's Usage Statistics card shows the opening credit.
  const created = await request.post('/api/chatbot', { headers, data: { name: 'Acme Support' } });
  expect(created.status()).toBe(201);
  const bot = (await created.json()) as { _id: string; uniqueId: string };
  const added = await request.post(`/api/chatbot/${bot._id}/knowledge-base/text`, {
    headers,
    data: { text: 'Acme opens at nine in the morning and closes at six in the evening.', append: true },
  });
  expect(added.status()).toBe(200);
  const refused = await request.post('/api/chatbot', { headers, data: { name: 'Second bot' } });
  expect(refused.status()).toBe(403);
  expect(await refused.json()).toMatchObject({ limitReached: true });

  await page.goto('/dashboard');
  await expect(page.getByRole('heading', { name: 'Usage Statistics' })).toBeVisible();
  await expect(page.getByText('$0.0100').first()).toBeVisible();
  await expect(page.getByText('Free Plan')).toBeVisible();

  // Upgrade Now on the pricing page goes to checkout (never back to the dashboard), and Pay makes the owner pro.
  await page.goto('/pricing');
  await page.getByRole('button', { name: 'Upgrade Now' }).click();
  await payOnTestCheckout(page, /Parley Pro/);
  await screenshot(page, 'checkout-test-mode');
  await page.getByRole('button', { name: 'Pay' }).click();
  await page.waitForURL(/\/dashboard/);
  await expect(page.getByText('Pro Plan')).toBeVisible({ timeout: 15_000 });
  await expect(page.getByRole('button', { name: 'Upgrade Plan' })).toHaveCount(0);
  await expect(page.getByText('$2.0100').first()).toBeVisible({ timeout: 15_000 });

  // Pro: a second chatbot is allowed and the History tab opens.
  const second = await request.post('/api/chatbot', { headers, data: { name: 'Second bot' } });
  expect(second.status()).toBe(201);
  await page.goto(`/chatbots/${bot._id}`);
  await page
    .getByRole('tab', { name: /History/ })
    .or(page.getByRole('button', { name: /^History/ }))
    .first()
    .click();
  await expect(page.getByText('No conversations found for this chatbot.')).toBeVisible();

  // A top-up from the dashboard adds exactly its amount.
  await page.goto('/dashboard');
  await page.getByRole('button', { name: 'Top up $5.00' }).click();
  await payOnTestCheckout(page, /Credit top-up/);
  await page.getByRole('button', { name: 'Pay' }).click();
  await page.waitForURL(/\/dashboard/);
  await expect(page.getByText('$7.0100').first()).toBeVisible({ timeout: 15_000 });

  // A visitor asks two questions on the public page.
  const visitor = await context.newPage();
  await visitor.goto(`/chat/${bot.uniqueId}`);
  const input = visitor.getByPlaceholder('Type your message...');
  await input.fill('When do you open?');
  await input.press('Enter');
  await expect(visitor.getByText('You asked:').first()).toBeVisible();
  await expect(input).toBeEnabled();
  await input.fill('Do you open on Sundays?');
  await input.press('Enter');
  await expect(visitor.getByText('You asked:').nth(1)).toBeVisible();
  await visitor.close();

  // Both answers are metered (through the queue) before the pages are read.
  const monthStart = new Date();
  monthStart.setDate(1);
  monthStart.setHours(0, 0, 0, 0);
  await expect.poll(async () => (await usage(request, token, monthStart)).overallUsage.totalRequests, { timeout: 15_000 }).toBe(2);
  const month = await usage(request, token, monthStart);
  const botCost = month.usageByChatbot.find((c) => c.chatbotId === bot._id)!.totalCost;
  expect(botCost).toBe(month.overallUsage.totalCost);

  // /usage: both requests, the chart, the three ranges, and the CSV.
  await page.goto('/usage');
  await expect(page.getByRole('heading', { name: /Usage/ }).first()).toBeVisible();
  const rows = page.locator('table tbody tr');
  await expect(rows).toHaveCount(2);
  await expect(rows.first()).toContainText('Acme Support');
  await expect(rows.first()).toContainText(dollars(month.recentRequests[0].totalCost, 5));
  await expect(page.locator('.recharts-surface').first()).toBeVisible();
  await expect(page.getByText(dollars(month.overallUsage.totalCost, 5)).first()).toBeVisible();
  await screenshot(page, 'usage');
  const range = page.getByLabel('Time range');
  for (const label of ['Last 7 days', 'Last year', 'Last 30 days']) {
    await range.selectOption({ label });
    await expect(rows).toHaveCount(2);
  }

  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^usage_data_\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = readFileSync((await file.path())!, 'utf8')
    .replace(/^\uFEFF/, '')
    .trim()
    .split(/\r?\n/);
  expect(csv[0]).toBe('Date,Chatbot,Model,Prompt Tokens,Completion Tokens,Total Tokens,Cost ($)');
  expect(csv).toHaveLength(3);
  const newest = month.recentRequests[0];
  const cells = csv[1].split(',');
  expect(cells.slice(1)).toEqual([
    'Acme Support',
    'GPT-4o mini',
    String(newest.promptTokens),
    String(newest.completionTokens),
    String(newest.totalTokens),
    dollars(newest.totalCost, 5).slice(1),
  ]);

  // The dashboard: credit used this month and the chatbot's cost, 4 decimals; the balance after the chats.
  await page.goto('/dashboard');
  await expect(page.getByText(dollars(month.overallUsage.totalCost, 4)).first()).toBeVisible();
  await expect(page.getByText(dollars(month.currentCreditBalance, 4)).first()).toBeVisible();
  expect(month.currentCreditBalance).not.toBe('7.01');
  await expect(page.getByText('Cost this month').first()).toBeVisible();
  await screenshot(page, 'dashboard-billing');

  // The detail page's Total Cost, 5 decimals.
  await page.goto(`/chatbots/${bot._id}`);
  await expect(page.getByText(dollars(botCost, 5)).first()).toBeVisible();
});
