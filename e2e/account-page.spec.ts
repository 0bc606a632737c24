/// <reference lib="dom" />
// Accounts in the browser (docs/product.md, Password reset and the account page): a forgotten password reset through the mail (read on the local outbox
// page), the account page's changes, and deleting the account.
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { PASSWORD, registerOwner, uniqueEmail } from './fixtures.ts';
import { screenshot } from './screenshots.ts';

async function signIn(page: Page, email: string, password: string) {
  await page.goto('/login');
  await page.locator('input[name="email"]').fill(email);
  await page.locator('input[name="password"]').fill(password);
  await page.locator('form button[type="submit"]').click();
}

test('forgot password: the mail, the reset link once, then sign in with the new password', async ({ page }) => {
  const email = await registerOwner(page, uniqueEmail('forgot'));
  await page.getByRole('button', { name: 'Logout' }).click();

  await page.goto('/login');
  await page.getByRole('link', { name: 'Forgot password?' }).click();
  await expect(page).toHaveURL(/\/forgot-password$/);
  await page.locator('input[name="email"]').fill(email);
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await expect(page.getByText("If an account exists for that email, we've sent a link.")).toBeVisible();
  await screenshot(page, 'forgot-password');

  // No SMTP server here: the mail is in the local outbox, which the gateway shows on this machine.
  const mail = page.locator('article', { hasText: email });
  await expect(async () => {
    await page.goto('/dev/mail');
    await expect(mail).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  await screenshot(page, 'mail-outbox');
  const link = await mail.getByRole('link', { name: /reset-password\?token=/ }).getAttribute('href');
  expect(link).toBeTruthy();

  await page.goto(link!);
  await page.locator('input[name="password"]').fill('new pass 123');
  await page.locator('input[name="password2"]').fill('new pass 124');
  await page.locator('form button[type="submit"]').click();
  await expect(page.getByText('Passwords do not match')).toBeVisible();
  await page.locator('input[name="password2"]').fill('new pass 123');
  await screenshot(page, 'reset-password');
  await page.locator('form button[type="submit"]').click();
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByText('Your password has been reset. Please sign in with your new password.')).toBeVisible();

  // The link is spent.
  await page.goto(link!);
  await page.locator('input[name="password"]').fill('another 123');
  await page.locator('input[name="password2"]').fill('another 123');
  await page.locator('form button[type="submit"]').click();
  await expect(page.getByText('This reset link has already been used.')).toBeVisible();

  await signIn(page, email, PASSWORD);
  await expect(page.getByText('Invalid credentials')).toBeVisible();
  await signIn(page, email, 'new pass 123');
  await expect(page).toHaveURL(/\/dashboard$/);
});

test('the account page changes the name, the email and the password, and signs other devices out', async ({ page }) => {
  const email = await registerOwner(page, uniqueEmail('account'));
  // A second device: the same account signed in elsewhere.
  const other = await page.request.post('/api/auth/login', { data: { email, password: PASSWORD } });
  expect(other.ok()).toBe(true);
  const otherToken = (await other.json()).token as string;

  await page.getByRole('link', { name: 'Account' }).first().click();
  await expect(page).toHaveURL(/\/account$/);
  await expect(page.getByText('free Plan').first()).toBeVisible();
  await screenshot(page, 'account');

  const profile = page.getByRole('region', { name: 'Profile' });
  await profile.locator('input[name="name"]').fill('Ada Lovelace');
  await profile.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Profile updated')).toBeVisible();

  const newEmail = uniqueEmail('moved');
  const emailCard = page.getByRole('region', { name: 'Email' });
  await emailCard.getByLabel('New email').fill(newEmail);
  await emailCard.getByLabel('Current password').fill('not my password');
  await emailCard.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Current password is incorrect')).toBeVisible();
  await emailCard.getByLabel('Current password').fill(PASSWORD);
  await emailCard.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Email updated')).toBeVisible();

  const devices = page.getByRole('region', { name: 'Devices' });
  await expect(devices.getByText('This device')).toBeVisible();
  await devices.getByRole('button', { name: 'Sign out of all other devices' }).click();
  await expect(page.getByText('Signed out of 1 other device')).toBeVisible();
  const revoked = await page.request.get('/api/auth/current', { headers: { authorization: `Bearer ${otherToken}` } });
  expect(revoked.status()).toBe(401);

  const passwordCard = page.getByRole('region', { name: 'Password' });
  await passwordCard.getByLabel('Current password').fill(PASSWORD);
  await passwordCard.getByLabel('New password', { exact: true }).fill('brand new 1');
  await passwordCard.getByLabel('Confirm new password').fill('brand new 1');
  await passwordCard.getByRole('button', { name: /Change password|Save/ }).click();
  await expect(page.getByText(/^Password changed/)).toBeVisible();
  await screenshot(page, 'account-changed');

  // Everything Parley holds about the owner, as one JSON file.
  const download = page.waitForEvent('download');
  await page.getByRole('region', { name: 'Your data' }).getByRole('button', { name: 'Download my data' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^parley-data-\d{4}-\d{2}-\d{2}\.json$/);
  const exported = JSON.parse(readFileSync(await file.path(), 'utf8'));
  expect(exported.account).toMatchObject({ email: newEmail, name: 'Ada Lovelace' });

  await page.goto('/dashboard');
  await expect(page.getByText('Welcome back, Ada Lovelace')).toBeVisible();
  await expect(page.getByText(newEmail).first()).toBeVisible();

  await page.getByRole('button', { name: 'Logout' }).click();
  await signIn(page, newEmail, 'brand new 1');
  await expect(page).toHaveURL(/\/dashboard$/);
});

test('deleting the account leads to the landing page and the old sign-in fails', async ({ page }) => {
  const email = await registerOwner(page, uniqueEmail('leaving'));
  const token = await page.evaluate(() => localStorage.getItem('token'));
  const created = await page.request.post('/api/chatbot', { headers: { authorization: `Bearer ${token}` }, data: { name: 'Soon gone' } });
  expect(created.status()).toBe(201);

  await page.goto('/account');
  const danger = page.getByRole('region', { name: 'Delete account' });
  await danger.locator('input[name="deletePassword"]').fill(PASSWORD);
  await screenshot(page, 'account-delete');
  page.once('dialog', (dialog) => {
    expect(dialog.message()).toBe('Are you sure you want to delete your account? This cannot be undone.');
    void dialog.accept();
  });
  await danger.getByRole('button', { name: 'Delete my account' }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByText('Your account has been deleted.')).toBeVisible();
  await screenshot(page, 'account-deleted');
  expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();

  await signIn(page, email, PASSWORD);
  await expect(page.getByText('Invalid credentials')).toBeVisible();
});
