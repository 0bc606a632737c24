/// <reference lib="dom" />
// The workspace's own provider key against the whole running stack (the chat service checks and then
// calls the local fake of Anthropic's API through the official SDK): the owner saves an Anthropic key
// on the Developers page and sees only its last four characters, a visitor chats with a Claude
// chatbot, and the usage page says the answer ran on "your key", at no cost.
import { expect, test } from '@playwright/test';
import { createBot, ownerToken, registerOwner } from './fixtures.ts';

const OWN_KEY = 'sk-ant-e2e-workspace-key-9z8y';

test('the owner saves their own Anthropic key, a visitor chats, and the usage page says "your key"', async ({ page, context, request }) => {
  await registerOwner(page);
  const token = await ownerToken(page);
  const bot = await createBot(request, token, 'Acme Support', 'Acme opens at nine in the morning and closes at six in the evening.');
  const chosen = await request.put(`/api/chatbot/${bot._id}`, {
    headers: { authorization: `Bearer ${token}` },
    data: { modelId: 'claude-haiku-4-5' },
  });
  expect(chosen.status()).toBe(200);

  await page.goto('/workspace/developers');
  const field = page.getByLabel('Anthropic API key');
  await expect(field).toHaveAttribute('type', 'password');
  await field.fill(OWN_KEY);
  await field.locator('xpath=ancestor::form').getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('•••• 9z8y')).toBeVisible();
  await expect(page.getByText(/saved on/)).toBeVisible();
  await expect(page.getByLabel('Anthropic API key')).toHaveCount(0);
  await page.reload();
  await expect(page.getByText('•••• 9z8y')).toBeVisible();
  expect(await page.content()).not.toContain(OWN_KEY);

  const visitor = await context.newPage();
  await visitor.goto(`/chat/${bot.uniqueId}`);
  await visitor.getByPlaceholder('Type your message...').fill('When does Acme open in the morning?');
  await visitor.getByPlaceholder('Type your message...').press('Enter');
  await expect(visitor.getByText(/opens at nine/).first()).toBeVisible();
  await visitor.close();

  await page.goto('/usage');
  const rows = page.locator('table tbody tr');
  await expect(rows).toHaveCount(1, { timeout: 15_000 });
  await expect(rows.first()).toContainText('Claude Haiku 4.5');
  await expect(rows.first()).toContainText('your key');
  await expect(rows.first()).toContainText('$0.00000');
});
