/// <reference lib="dom" />
// Privacy and data retention against the whole running stack: the owner turns on "Hide personal data
// from the model" with a pattern of their own in the chatbot's settings, a visitor's message with an
// email address is answered, and the owner sets how long conversations are kept on the workspace's
// page, which saves and reads back.
import { expect, test } from '@playwright/test';
import { createBot, ownerToken, registerOwner } from './fixtures.ts';
import { screenshot } from './screenshots.ts';

test('the owner keeps personal data from the model and sets a retention window', async ({ page, context, request }) => {
  await registerOwner(page);
  const token = await ownerToken(page);
  const bot = await createBot(request, token, 'Acme Support', 'Acme opens at nine in the morning and closes at six in the evening.');

  await page.goto(`/chatbots/${bot._id}#settings-privacy`);
  const privacy = page.locator('form').filter({ has: page.getByRole('button', { name: 'Save Privacy' }) });
  await privacy.getByRole('switch', { name: 'Hide personal data from the model' }).click();
  await privacy.getByLabel('Your own patterns').fill('CUST-\\d{6}');
  await privacy.getByRole('button', { name: 'Save Privacy' }).click();
  await expect(privacy.getByText('Chatbot updated successfully')).toBeVisible();
  await screenshot(page, 'privacy-settings');
  const saved = await request.get(`/api/chatbot/${bot._id}`, { headers: { authorization: `Bearer ${token}` } });
  expect(((await saved.json()) as { privacy: unknown }).privacy).toEqual({
    redactPersonalData: true,
    keepOriginal: false,
    patterns: ['CUST-\\d{6}'],
  });

  const visitor = await context.newPage();
  await visitor.goto(`/chat/${bot.uniqueId}`);
  await visitor.getByPlaceholder('Type your message...').fill('I am jo@example.com, when does Acme open in the morning?');
  await visitor.getByPlaceholder('Type your message...').press('Enter');
  await expect(visitor.getByText(/opens at nine/).first()).toBeVisible();
  await visitor.close();

  await page.goto('/workspace/members');
  const retention = page.getByRole('region', { name: 'Data retention' });
  await retention.getByLabel('Keep conversations').selectOption('30');
  await retention.getByLabel('Keep usage detail').selectOption('365');
  await retention.getByLabel('Keep webhook deliveries').selectOption('30');
  await retention.getByLabel('Keep analytics').selectOption('730');
  await retention.getByRole('button', { name: 'Save' }).click();
  await expect(retention.getByText('Retention windows saved')).toBeVisible();
  await screenshot(page, 'data-retention');
  await page.reload();
  await expect(page.getByRole('region', { name: 'Data retention' }).getByLabel('Keep conversations')).toHaveValue('30');
  await expect(page.getByRole('region', { name: 'Data retention' }).getByLabel('Keep usage detail')).toHaveValue('365');
  await expect(page.getByRole('region', { name: 'Data retention' }).getByLabel('Keep webhook deliveries')).toHaveValue('30');
  await expect(page.getByRole('region', { name: 'Data retention' }).getByLabel('Keep analytics')).toHaveValue('730');
});
