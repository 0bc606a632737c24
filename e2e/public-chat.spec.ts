/// <reference lib="dom" />
// The public chat page against the whole running stack (the chat service calls a local fake of the
// OpenAI API through the real SDK), and the History tab a pro owner reads afterwards.
import { expect, test } from '@playwright/test';
import { createBot, makePro, ownerToken, registerOwner } from './fixtures.ts';
import { screenshot } from './screenshots.ts';

test('a visitor chats with a bot: streamed answer, restored on reload, cleared, and an inactive bot', async ({
  page,
  context,
  request,
}) => {
  await registerOwner(page);
  const token = await ownerToken(page);
  const bot = await createBot(request, token, 'Acme Support', 'Acme opens at nine in the morning and closes at six in the evening.');

  const visitor = await context.newPage();
  // The page runs on preact/compat (ADR 38): nothing it does may throw or log an error (the browser's own
  // line for a refused request aside: the inactive bot below is a 404 on purpose).
  const errors: string[] = [];
  visitor.on('pageerror', (err) => errors.push(err.message));
  visitor.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(message.text());
  });
  await visitor.goto(`/chat/${bot.uniqueId}`);
  await expect(visitor.getByRole('heading', { name: 'Acme Support' })).toBeVisible();
  await expect(visitor.getByText('Ask me anything!')).toBeVisible();
  // No site header or footer on the public page.
  await expect(visitor.getByText('Create and manage AI chatbots powered by OpenAI.')).toHaveCount(0);

  const input = visitor.getByPlaceholder('Type your message...');
  // Whitespace is not a message: the button stays disabled and Enter sends nothing.
  await input.fill('   ');
  await expect(visitor.getByRole('button', { name: 'Send message' })).toBeDisabled();
  await input.press('Enter');
  await expect(visitor.getByText('Ask me anything!')).toBeVisible();

  await input.fill('When do you open?');
  const streamed = visitor.waitForResponse((r) => r.url().endsWith(`/api/chatbot/public/${bot.uniqueId}/chat`));
  await input.press('Enter');
  const response = await streamed;
  expect(response.headers()['content-type']).toMatch(/^text\/event-stream/);
  await expect(visitor.getByText('When do you open?').first()).toBeVisible();
  // Markdown is rendered: bold text and a link that opens safely in a new tab.
  await expect(visitor.locator('strong', { hasText: 'Thanks for asking!' })).toBeVisible();
  const link = visitor.getByRole('link', { name: 'our site' });
  await expect(link).toHaveAttribute('target', '_blank');
  await expect(link).toHaveAttribute('rel', /noopener/);
  await expect(input).toBeEnabled();
  await screenshot(visitor, 'public-chat');

  // The server's session id replaces the local one, and the conversation survives a reload.
  const sessionKeys = await visitor.evaluate(() => Object.keys(localStorage));
  expect(sessionKeys.length).toBeGreaterThan(0);
  await visitor.reload();
  await expect(visitor.locator('strong', { hasText: 'Thanks for asking!' })).toBeVisible();
  await expect(visitor.getByText('When do you open?').first()).toBeVisible();

  // A second question, kept for the owner's history.
  await input.fill('Do you open on Sundays?');
  await input.press('Enter');
  await expect(visitor.getByText('You asked:').nth(1)).toBeVisible();

  // The phone layout.
  await visitor.setViewportSize({ width: 390, height: 760 });
  await screenshot(visitor, 'public-chat-phone');
  await visitor.setViewportSize({ width: 1280, height: 800 });

  // Clear empties the list and its saved copy.
  await visitor.getByRole('button', { name: 'Clear conversation' }).click();
  await expect(visitor.getByText('Ask me anything!')).toBeVisible();
  await visitor.reload();
  await expect(visitor.getByText('Ask me anything!')).toBeVisible();

  // The owner's history (pro only): locked on the free plan, then readable once pro.
  await page.goto(`/chatbots/${bot._id}`);
  await expect(page.getByText('PRO', { exact: true }).first()).toBeVisible();
  const email = await page.evaluate(async (t) => {
    const r = await fetch('/api/auth/current', { headers: { authorization: `Bearer ${t}` } });
    return ((await r.json()) as { email: string }).email;
  }, token);
  await makePro(email);
  await page.reload();
  await page
    .getByRole('tab', { name: /History/ })
    .or(page.getByRole('button', { name: /^History/ }))
    .first()
    .click();
  const session = page.getByText(/Session ID/).first();
  await expect(session).toBeVisible();
  await expect(page.getByText(/2 messages|4 messages/).first()).toBeVisible();
  await session.click();
  await expect(page.getByText('When do you open?').first()).toBeVisible();
  await expect(page.getByText('Do you open on Sundays?').first()).toBeVisible();
  await expect(page.getByText('User Agent').first()).toBeVisible();
  // Answers read as the visitor saw them: Markdown rendered, not raw asterisks.
  await expect(page.locator('strong', { hasText: 'Thanks for asking!' }).first()).toBeVisible();
  await screenshot(page, 'chatbot-history');
  await page.getByRole('button', { name: 'Back' }).click();
  await expect(page.getByText(/Session ID/).first()).toBeVisible();

  // An inactive bot: the page is replaced by the error and a Try Again button.
  const off = await request.put(`/api/chatbot/${bot._id}`, { headers: { authorization: `Bearer ${token}` }, data: { isActive: false } });
  expect(off.status()).toBe(200);
  await visitor.reload();
  await expect(visitor.getByText('Chatbot not found or inactive')).toBeVisible();
  await expect(visitor.getByRole('button', { name: 'Try Again' })).toBeVisible();
  await screenshot(visitor, 'public-chat-unavailable');
  const on = await request.put(`/api/chatbot/${bot._id}`, { headers: { authorization: `Bearer ${token}` }, data: { isActive: true } });
  expect(on.status()).toBe(200);
  await visitor.getByRole('button', { name: 'Try Again' }).click();
  await expect(visitor.getByText('Ask me anything!')).toBeVisible();
  expect(errors).toEqual([]);
});
