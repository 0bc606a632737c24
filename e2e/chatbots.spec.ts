/// <reference lib="dom" />
import { expect, test } from '@playwright/test';
import { pngImage, registerOwner } from './fixtures.ts';
import { screenshot } from './screenshots.ts';

test('an owner builds a chatbot: create, rename, status, language, knowledge, picture, delete', async ({ page }) => {
  page.on('dialog', (dialog) => void dialog.accept());
  await registerOwner(page);

  await page.goto('/chatbots');
  await expect(page.getByText('No chatbots yet')).toBeVisible();
  await expect(page.getByText('Create your first chatbot to get started')).toBeVisible();
  await page
    .getByRole('link', { name: 'Create New Chatbot' })
    .or(page.getByRole('button', { name: 'Create New Chatbot' }))
    .first()
    .click();

  await expect(page).toHaveURL(/\/chatbots\/create$/);
  await page.getByRole('button', { name: 'Create Chatbot' }).click();
  await expect(page.getByText('Name is required')).toBeVisible();
  await screenshot(page, 'chatbot-create');
  await page.getByLabel('Name').fill('  Support Bot  ');
  await page.getByRole('button', { name: 'Create Chatbot' }).click();
  await expect(page).toHaveURL(/\/chatbots\/[0-9a-f-]{36}$/);

  // rename
  const name = page.getByLabel('Chatbot Name');
  await expect(name).toHaveValue('Support Bot');
  await name.fill('Acme Helper');
  await page.getByRole('button', { name: 'Save Changes' }).click();
  await expect(page.getByText('Chatbot updated successfully')).toBeVisible();
  await expect(page.getByText('Chatbot updated successfully')).toBeHidden({ timeout: 6000 });

  // inactive and back, then french
  const active = page.getByRole('switch', { name: 'Active' });
  await expect(active).toHaveAttribute('aria-checked', 'true');
  await active.click();
  await page.getByRole('button', { name: 'Save Changes' }).click();
  await expect(page.getByText('Chatbot updated successfully')).toBeVisible();
  await expect(page.getByText('Inactive').first()).toBeVisible();
  await page.reload();
  await expect(page.getByRole('switch', { name: 'Active' })).toHaveAttribute('aria-checked', 'false');
  await page.getByRole('switch', { name: 'Active' }).click();
  await page.getByLabel('Primary Language').selectOption('french');
  await page.getByRole('button', { name: 'Save Changes' }).click();
  await expect(page.getByText('Chatbot updated successfully')).toBeVisible();
  await page.reload();
  await expect(page.getByRole('switch', { name: 'Active' })).toHaveAttribute('aria-checked', 'true');
  await expect(page.getByLabel('Primary Language')).toHaveValue('french');
  await expect(page.getByLabel('Chatbot Name')).toHaveValue('Acme Helper');

  // knowledge: the button waits for text; add two entries, delete one
  await expect(page.getByText('No knowledge base entries yet.')).toBeVisible();
  await expect(page.getByText('No text knowledge added yet.')).toBeVisible();
  const addText = page.getByRole('button', { name: 'Add Text' });
  await expect(addText).toBeDisabled();
  await page.getByLabel('Text Content').fill('   ');
  await expect(addText).toBeDisabled();
  await page.getByLabel('Text Content').fill('Our store opens at nine in the morning and closes at six in the evening.');
  await addText.click();
  await expect(page.getByText('Text added to knowledge base successfully')).toBeVisible();
  await expect(page.getByLabel('Text Content')).toHaveValue('');
  await page.getByLabel('Text Content').fill('Returns are accepted within 45 days with a receipt.');
  await page.getByRole('button', { name: 'Add Text' }).click();
  await expect(page.getByText('Returns are accepted within 45 days with a receipt.').first()).toBeVisible();
  const entries = page.getByRole('button', { name: 'Delete' });
  await expect(entries).toHaveCount(2);
  await entries.first().click();
  await expect(page.getByText('Text entry deleted successfully')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Delete' })).toHaveCount(1);

  // picture: a real PNG is saved and shown
  await page
    .locator('input[type="file"][accept*="image"]')
    .setInputFiles({ name: 'avatar.png', mimeType: 'image/png', buffer: pngImage() });
  await page.getByRole('button', { name: 'Save Picture' }).click();
  await expect(page.getByText('Profile picture updated successfully')).toBeVisible();
  await page.reload();
  const avatar = page.locator('img[src*="/media/chatbots/"]').first();
  await expect(avatar).toBeVisible();
  expect(await avatar.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  await screenshot(page, 'chatbot-detail');

  // the list: the card, the free-plan notice, no second create for a free owner
  await page.goto('/chatbots');
  await expect(page.getByText('Acme Helper')).toBeVisible();
  await expect(page.getByText('Active', { exact: true }).first()).toBeVisible();
  await expect(page.locator('main a[href="/pricing"]').first()).toBeVisible();
  await expect(page.getByRole('link', { name: 'Create New Chatbot' })).toHaveCount(0);
  const openChat = page.getByRole('link', { name: 'Open Chat' }).first();
  await expect(openChat).toHaveAttribute('target', '_blank');
  await expect(openChat).toHaveAttribute('href', /^\/chat\/[A-Za-z0-9_-]{16,}$/);
  await screenshot(page, 'chatbots-list');

  await page
    .getByRole('button', { name: /delete/i })
    .first()
    .click();
  await expect(page.getByText('No chatbots yet')).toBeVisible();
});
