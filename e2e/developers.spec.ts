// API keys from the dashboard to the API (docs/adr/0031-api-keys.md): an owner creates a key on the
// Developers page, sees its secret once (a reload shows only its last four characters), calls the
// developer API with it, revokes it, and the next call is refused.
import { expect, test } from '@playwright/test';
import { createBot, ownerToken, registerOwner, uniqueEmail } from './fixtures.ts';

test('a key is created, shown once, works against the API and stops when revoked', async ({ page, request }) => {
  test.setTimeout(90_000);
  await registerOwner(page, uniqueEmail('developers'));
  await createBot(request, await ownerToken(page), 'Acme Support', 'Acme opens at nine in the morning.');

  await page.getByRole('link', { name: 'Developers' }).first().click();
  await expect(page.getByRole('heading', { level: 1, name: 'Developers' })).toBeVisible();
  await page.getByRole('button', { name: 'Create key' }).click();
  const create = page.getByRole('dialog', { name: 'Create API key' });
  await create.getByRole('button', { name: 'Create key' }).click();
  await expect(create.getByRole('alert')).toHaveText('Give the key a name.');
  await create.getByLabel('Name').fill('Support tool');
  await create.getByRole('checkbox', { name: /chatbots:read/ }).check();
  await create.getByRole('button', { name: 'Create key' }).click();

  const reveal = page.getByRole('dialog', { name: 'Your new API key' });
  await expect(reveal).toContainText("you won't see this secret again");
  const secret = await reveal.getByRole('textbox', { name: 'Secret' }).inputValue();
  expect(secret).toMatch(/^parley_sk_[A-Za-z0-9]{43}$/);
  await expect(reveal.getByRole('button', { name: 'Done' })).toBeDisabled();
  await reveal.getByRole('checkbox').check();
  await reveal.getByRole('button', { name: 'Done' }).click();

  const keys = page.getByRole('list', { name: 'API keys' });
  await expect(keys.getByText(`parley_sk_…${secret.slice(-4)}`)).toBeVisible();
  expect(await page.content()).not.toContain(secret);
  await page.reload();
  await expect(keys.getByText('Support tool')).toBeVisible();
  expect(await page.content()).not.toContain(secret);

  const call = () => request.get('/api/v1/chatbots', { headers: { authorization: `Bearer ${secret}` } });
  const listed = await call();
  expect(listed.status()).toBe(200);
  expect(JSON.stringify(await listed.json())).toContain('Acme Support');

  await page.getByRole('button', { name: 'Revoke Support tool' }).click();
  await page.getByRole('dialog', { name: 'Revoke “Support tool”?' }).getByRole('button', { name: 'Revoke key' }).click();
  await expect(keys.getByText('Revoked', { exact: true }).first()).toBeVisible();
  await expect(page.getByRole('button', { name: 'Revoke Support tool' })).toHaveCount(0);
  // The gateway may keep a key's answer a few seconds (ADR 31): the refusal comes within them.
  await expect.poll(async () => (await call()).status(), { timeout: 15_000 }).toBe(401);
});
