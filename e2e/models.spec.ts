/// <reference lib="dom" />
// A chatbot's model against the whole running stack (the chat service calls local fakes of OpenAI's
// and Anthropic's APIs through the official SDKs): the owner switches a chatbot to another provider's
// model on its settings page, a visitor chats, and the usage page names that model with its cost;
// when the chosen model is overloaded its fallback answers, and History says so under the answer.
import { expect, test, type APIRequestContext } from '@playwright/test';
import { answerCostUnits, unitsToDollars } from '../services/common/src/models/catalogue.ts';
import { CLAUDE_OVERLOADED, createBot, makePro, ownerToken, registerOwner, topUpCredit, updateBot } from './fixtures.ts';
import { screenshot } from './screenshots.ts';

interface Request {
  model: { displayName: string } | null;
  promptTokens: number;
  completionTokens: number;
  totalCost: string;
}

/** The owner's answered requests of this month, newest first, as GraphQL gives them (exact decimal amounts). */
async function recentRequests(request: APIRequestContext, token: string): Promise<Request[]> {
  const now = new Date();
  const res = await request.post('/graphql', {
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    data: {
      query: `query ($s: DateTime!, $e: DateTime!) { usage(startDate: $s, endDate: $e) {
        recentRequests { model { displayName } promptTokens completionTokens totalCost } } }`,
      variables: {
        s: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
        e: new Date(Date.now() + 60_000).toISOString(),
      },
    },
  });
  expect(res.status()).toBe(200);
  const body = (await res.json()) as { data?: { usage: { recentRequests: Request[] } }; errors?: unknown };
  expect(body.errors).toBeUndefined();
  return body.data!.usage.recentRequests;
}

/** The usage page's 5 decimals, rounded half away from zero. */
function fiveDecimals(amount: string): string {
  const [whole, fraction = ''] = amount.split('.');
  const rounded = (BigInt(whole + fraction.padEnd(6, '0').slice(0, 6)) + 5n) / 10n;
  const digits = rounded.toString().padStart(6, '0');
  return `$${digits.slice(0, -5)}.${digits.slice(-5)}`;
}

test('the owner switches a chatbot to a Claude model, a visitor chats, and the usage page names the model and its cost', async ({
  page,
  context,
  request,
}) => {
  await registerOwner(page);
  const token = await ownerToken(page);
  await topUpCredit(page);
  const bot = await createBot(request, token, 'Acme Support', 'Acme opens at nine in the morning and closes at six in the evening.');

  // The Model section: the default answers, Pro models are listed but cannot be chosen on the free plan.
  await page.goto(`/chatbots/${bot._id}#settings-model`);
  const section = page.getByRole('region', { name: 'Model' });
  const select = section.getByLabel('Model', { exact: true });
  await expect(select).toHaveValue('gpt-4o-mini');
  await expect(select.locator('option', { hasText: 'Claude Sonnet 4.5' })).toBeDisabled();
  await expect(section.getByText('More models are part of Pro.')).toBeVisible();
  await select.selectOption('claude-haiku-4-5');
  await expect(select.locator('option:checked')).toHaveText('Claude Haiku 4.5 · Anthropic · $0.0035 per typical answer');
  await section.getByLabel('Fallback').selectOption('gpt-4o-mini');
  await section.getByRole('button', { name: 'Save Model' }).click();
  await expect(section.getByText('Chatbot updated successfully')).toBeVisible();
  await screenshot(page, 'chatbot-model');
  await page.reload();
  await expect(page.getByRole('region', { name: 'Model' }).getByLabel('Model', { exact: true })).toHaveValue('claude-haiku-4-5');

  // A visitor chats: Claude answers (the fake quotes the passage that shares the question's words).
  const visitor = await context.newPage();
  await visitor.goto(`/chat/${bot.uniqueId}`);
  await visitor.getByPlaceholder('Type your message...').fill('When does Acme open in the morning?');
  await visitor.getByPlaceholder('Type your message...').press('Enter');
  await expect(visitor.getByText(/opens at nine/).first()).toBeVisible();
  await visitor.close();

  // The answer is billed at Claude Haiku 4.5's prices ($1.00 and $5.00 per million tokens), exactly.
  await expect.poll(async () => (await recentRequests(request, token)).length, { timeout: 15_000 }).toBe(1);
  const [answered] = await recentRequests(request, token);
  expect(answered!.model?.displayName).toBe('Claude Haiku 4.5');
  expect(answered!.promptTokens).toBeGreaterThan(0);
  expect(answered!.totalCost).toBe(
    unitsToDollars(
      answerCostUnits({ inputPricePerMillion: '1.00', outputPricePerMillion: '5.00' }, answered!.promptTokens, answered!.completionTokens),
    ),
  );

  await page.goto('/usage');
  const rows = page.locator('table tbody tr');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('Claude Haiku 4.5');
  await expect(rows.first()).toContainText(fiveDecimals(answered!.totalCost));
  await screenshot(page, 'usage-claude');
});

test('when the chosen Claude model is overloaded the fallback answers, and History names it under the answer', async ({
  page,
  context,
  request,
}) => {
  const email = await registerOwner(page);
  await makePro(email);
  const token = await ownerToken(page);
  await topUpCredit(page);
  // The Anthropic fake is overloaded for this chatbot (its knowledge holds the word), before any token.
  const bot = await createBot(
    request,
    token,
    'Acme Fallback',
    `Acme opens at nine in the morning and closes at six in the evening. ${CLAUDE_OVERLOADED}`,
  );
  const changed = await updateBot(request, token, bot._id, { modelId: 'claude-haiku-4-5', fallbackModelId: 'gpt-4o-mini' });
  expect(changed.status()).toBe(200);

  const visitor = await context.newPage();
  await visitor.goto(`/chat/${bot.uniqueId}`);
  await visitor.getByPlaceholder('Type your message...').fill('When does Acme open in the morning?');
  await visitor.getByPlaceholder('Type your message...').press('Enter');
  await expect(visitor.getByTestId('assistant-message').last()).toContainText('opens at nine');
  // The visitor is not told which model answered.
  await expect(visitor.getByText('fallback model')).toHaveCount(0);
  await visitor.close();

  // Billed once, to the model that answered.
  await expect.poll(async () => (await recentRequests(request, token)).length, { timeout: 15_000 }).toBe(1);
  expect((await recentRequests(request, token))[0]!.model?.displayName).toBe('GPT-4o mini');

  await page.goto(`/chatbots/${bot._id}`);
  await page.getByRole('tab', { name: /History/ }).click();
  await page
    .getByText(/Session ID/)
    .first()
    .click();
  const messages = page.getByRole('list', { name: 'Messages' });
  await expect(messages.getByTestId('answered-by')).toHaveText(['Answered by the fallback model (GPT-4o mini)']);
  await screenshot(page, 'history-fallback-model');
});
