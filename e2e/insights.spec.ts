/// <reference lib="dom" />
// What visitors ask and where the bot falls short, against the whole running stack: a visitor rates
// an answer, the (pro) owner sees the rating in History, reads the Analytics tab (kept up to date by
// the chat service's analytics worker from the queue), answers the unanswered question once — the
// next visitor asking it gets that answer — and downloads the conversations as CSV.
import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { createBot, makePro, ownerToken, registerOwner } from './fixtures.ts';
import { screenshot } from './screenshots.ts';

test('a visitor rates an answer; the owner reads it, opens Analytics, answers an unanswered question and exports CSV', async ({
  page,
  context,
  request,
}) => {
  const email = await registerOwner(page);
  await makePro(email);
  const token = await ownerToken(page);
  const bot = await createBot(request, token, 'Acme Support', 'Acme opens at nine in the morning and closes at six in the evening.');

  // The visitor: one answer from the knowledge, one the knowledge cannot give, rated down.
  const visitor = await context.newPage();
  await visitor.goto(`/chat/${bot.uniqueId}`);
  const input = visitor.getByPlaceholder('Type your message...');
  await input.fill('When does Acme open in the morning?');
  await input.press('Enter');
  await expect(visitor.getByTestId('assistant-message').last()).toContainText('nine in the morning');
  await input.fill('Do you sell gift cards?');
  await input.press('Enter');
  const unanswered = visitor.getByTestId('assistant-message').last();
  await expect(unanswered).toContainText('You asked');
  await unanswered.getByRole('button', { name: 'Bad answer' }).click();
  await expect(unanswered.getByRole('button', { name: 'Bad answer' })).toHaveAttribute('aria-pressed', 'true');
  await screenshot(visitor, 'public-chat-feedback');

  // History shows the rating beside the answer.
  await page.goto(`/chatbots/${bot._id}`);
  await page.getByRole('tab', { name: /History/ }).click();
  await page
    .getByText(/Session ID/)
    .first()
    .click();
  await expect(page.getByLabel('Rated bad answer')).toBeVisible();

  // Analytics: the figures of the two messages, once the worker has counted them.
  await expect(async () => {
    await page.getByRole('tab', { name: 'Analytics' }).click();
    await expect(page.getByRole('region', { name: 'Messages', exact: true })).toContainText('2', { timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  await expect(page.getByRole('region', { name: 'Conversations', exact: true })).toContainText('1');
  await expect(page.getByRole('region', { name: 'Answered from knowledge' })).toContainText('50');
  await expect(page.locator('.recharts-surface').first()).toBeVisible();
  await screenshot(page, 'analytics');

  // The unanswered question, answered once as a Q&A pair.
  const group = page.getByRole('listitem', { name: 'Do you sell gift cards?' });
  await group.getByRole('button', { name: 'Answer', exact: true }).click();
  await group.getByLabel('Answer', { exact: true }).fill('Yes: gift cards from $10 at the front desk.');
  await group.getByRole('button', { name: 'Save answer' }).click();
  await expect(group).toContainText('Resolved');
  await screenshot(page, 'unanswered-answered');

  await visitor.reload();
  await input.fill('do you sell gift cards');
  await input.press('Enter');
  await expect(visitor.getByTestId('assistant-message').last()).toContainText('gift cards from $10 at the front desk');

  // Export: every message of the conversation, as CSV.
  await page.getByRole('tab', { name: /History/ }).click();
  await page.getByRole('button', { name: 'Back', exact: true }).click();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
  const csv = await readFile((await download.path())!, 'utf8');
  expect(csv.split('\n')[0]).toContain('content');
  expect(csv).toContain('Do you sell gift cards?');
  expect(csv).toContain('gift cards from $10 at the front desk');
});
