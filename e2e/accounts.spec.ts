/// <reference lib="dom" />
import { expect, test, type Page } from '@playwright/test';
import { screenshot } from './screenshots.ts';

const email = `owner.${Date.now()}@example.com`;
const password = 'correct horse 42';

async function fillLogin(page: Page, mail: string, pass: string) {
  await page.locator('input[name="email"]').fill(mail);
  await page.locator('input[name="password"]').fill(pass);
  await page.locator('form button[type="submit"]').click();
}

test('the landing page leads to registration', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Create AI Chatbots with Your Knowledge' })).toBeVisible();
  await expect(page.getByText('Create and manage AI chatbots powered by OpenAI.')).toBeVisible();
  await screenshot(page, 'landing');
  await page.getByRole('link', { name: 'Get Started' }).click();
  await expect(page).toHaveURL(/\/register$/);
});

test('pricing shows the two plans and sends a signed-out upgrade to sign-up', async ({ page }) => {
  await page.goto('/pricing');
  await expect(page.getByText('$10', { exact: false }).first()).toBeVisible();
  await expect(page.getByText('Unlimited chatbots', { exact: false })).toBeVisible();
  await screenshot(page, 'pricing');
  await page
    .getByRole('button', { name: 'Upgrade Now' })
    .or(page.getByRole('link', { name: 'Upgrade Now' }))
    .first()
    .click();
  await expect(page).toHaveURL(/\/(signup|register)$/);
});

test('register, see the dashboard, log out, and log back in', async ({ page }) => {
  await page.goto('/register');
  await expect(page.getByText('Create an account').first()).toBeVisible();
  await screenshot(page, 'register');

  // client-side validation (docs/product.md, Accounts and sessions)
  await page.locator('input[name="email"]').fill(email);
  await page.locator('input[name="password"]').fill('abc');
  await page.locator('input[name="password2"]').fill('abd');
  await page.locator('form button[type="submit"]').click();
  await expect(page.getByText('Passwords do not match')).toBeVisible();
  await page.locator('input[name="password2"]').fill('abc');
  await page.locator('form button[type="submit"]').click();
  await expect(page.getByText('Password must be at least 6 characters')).toBeVisible();

  await page.locator('input[name="password"]').fill(password);
  await page.locator('input[name="password2"]').fill(password);
  await page.locator('form button[type="submit"]').click();

  await expect(page).toHaveURL(/\/dashboard$/);
  // Sign-up asks for no name, so the greeting falls back to "User" (docs/product.md, Dashboard); the account page sets one.
  await expect(page.getByText('Welcome back, User')).toBeVisible();
  await expect(page.getByText(email).first()).toBeVisible();
  await expect(page.getByText('free Plan')).toBeVisible();
  await expect(
    page
      .getByRole('button', { name: 'Upgrade Plan' })
      .or(page.getByRole('link', { name: 'Upgrade Plan' }))
      .first(),
  ).toBeVisible();
  await expect(page.getByText('0.0100').first()).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('token'))).toBeTruthy();
  await screenshot(page, 'dashboard');

  await page.getByRole('button', { name: 'Logout' }).click();
  await expect(
    page
      .getByRole('link', { name: 'Login' })
      .or(page.getByRole('button', { name: 'Login' }))
      .first(),
  ).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();

  await page.goto('/dashboard');
  await expect(page).toHaveURL(/\/login$/);
  await screenshot(page, 'login');

  await fillLogin(page, email, 'wrong password');
  await expect(page.getByText('Invalid credentials')).toBeVisible();

  await fillLogin(page, email.toUpperCase(), password);
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByText('free Plan')).toBeVisible();
});

test('a revoked or forged session token sends the owner back to sign-in', async ({ page }) => {
  await page.goto('/');
  await page.evaluate(() => localStorage.setItem('token', 'forged-token-value'));
  await page.goto('/dashboard');
  await expect(page).toHaveURL(/\/login$/);
  expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
});

test('terms and privacy pages link back home', async ({ page }) => {
  await page.goto('/terms');
  await expect(page.getByText('24 hours', { exact: false }).first()).toBeVisible();
  await page.getByRole('link', { name: 'Back to Home' }).click();
  await expect(page).toHaveURL(/\/$/);
  await page.goto('/privacy');
  await expect(page.getByText('18', { exact: false }).first()).toBeVisible();
});

test('pages fit a phone screen', async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 740 });
  for (const path of ['/', '/login', '/register', '/pricing']) {
    await page.goto(path);
    await expect(page.locator('footer')).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, `horizontal overflow on ${path}`).toBeLessThanOrEqual(0);
  }
  await screenshot(page, 'pricing-phone');
});
