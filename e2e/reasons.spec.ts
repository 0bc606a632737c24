/// <reference lib="dom" />
// Reason codes against the whole running stack: a visitor's questions the knowledge cannot answer,
// one asking for a person in words, reach the owner's Analytics with their reasons, counted per
// reason and filtered by one.
import { expect, test } from '@playwright/test';
import { createBot, makePro, ownerToken, registerOwner } from './fixtures.ts';
import { screenshot } from './screenshots.ts';

test('the unanswered questions carry their reasons, counted and filtered in Analytics', async ({ page, context, request }) => {
  const email = await registerOwner(page);
  await makePro(email);
  const token = await ownerToken(page);
  const bot = await createBot(request, token, 'Acme Support', 'Acme opens at nine in the morning and closes at six in the evening.');

  const visitor = await context.newPage();
  await visitor.goto(`/chat/${bot.uniqueId}`);
  const input = visitor.getByPlaceholder('Type your message...');
  for (const question of ['Do you sell gift cards?', 'Can I talk to a person about a refund?']) {
    await input.fill(question);
    await input.press('Enter');
    await expect(visitor.getByTestId('assistant-message').last()).toContainText('You asked');
  }

  await page.goto(`/chatbots/${bot._id}`);
  await expect(async () => {
    await page.getByRole('tab', { name: 'Analytics' }).click();
    await expect(page.getByRole('list', { name: 'Questions by reason' })).toBeVisible({ timeout: 1000 });
    await expect(page.getByRole('list', { name: 'Questions by reason' }).getByRole('button')).toHaveCount(2, { timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  const reasons = page.getByRole('list', { name: 'Questions by reason' });
  await expect(reasons.getByRole('button', { name: 'Missing knowledge 1' })).toBeVisible();
  await expect(reasons.getByRole('button', { name: 'Asked for a person 1' })).toBeVisible();
  const list = page.getByRole('list', { name: 'Unanswered questions' });
  await expect(list.getByRole('listitem', { name: 'Can I talk to a person about a refund?' })).toContainText('Asked for a person');
  await list.getByRole('listitem', { name: 'Can I talk to a person about a refund?' }).scrollIntoViewIfNeeded();
  await screenshot(page, 'unanswered-reasons');

  await page.getByLabel('Reason', { exact: true }).selectOption('asked_for_person');
  await expect(list.getByRole('listitem', { name: /\?$/ })).toHaveCount(1);
  await expect(list.getByRole('listitem', { name: 'Can I talk to a person about a refund?' })).toBeVisible();
  await screenshot(page, 'unanswered-reasons-filtered');

  // The Bot voice card's switch, saved and read back.
  await page.getByRole('tab', { name: 'Settings' }).click();
  const visitorLanguage = page.getByRole('switch', { name: "Answer in the visitor's language" });
  await visitorLanguage.scrollIntoViewIfNeeded();
  await expect(visitorLanguage).toHaveAttribute('aria-checked', 'false');
  await visitorLanguage.click();
  await page.getByRole('button', { name: 'Save Voice' }).click();
  await expect(page.getByText('Chatbot updated successfully').first()).toBeVisible();
  await expect(visitorLanguage).toHaveAttribute('aria-checked', 'true');
  await screenshot(page, 'voice-visitor-language');
});
