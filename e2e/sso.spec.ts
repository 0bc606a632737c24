/// <reference lib="dom" />
// Single sign-on in the browser (docs/product.md, Single sign-on): an owner sets up OpenID Connect on
// the Security page against a real OpenID provider started here (oidc-provider), checks it with Test
// sign-in, and a colleague in the claimed domain signs in with "Sign in with SSO" through the
// provider's own login form — refused while the free plan has no seat for them, then, on Pro, landing
// on the dashboard with an account made at the default role. Every trip is bound to its browser by the
// SSO cookie (ADR 66), which Chromium keeps on http://localhost.
import { randomBytes } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import {
  OIDC_CLIENT_ID,
  OIDC_CLIENT_SECRET,
  startOidcProvider,
  type OidcProviderHarness,
} from '../services/auth/test/integration/sso-fixtures.ts';
import { makePro, PASSWORD } from './fixtures.ts';
import { E2E_PORT_OFFSET } from './playwright.config.ts';
import { screenshot } from './screenshots.ts';

const BASE = `http://localhost:${8080 + E2E_PORT_OFFSET}`;
let idp: OidcProviderHarness;

test.beforeAll(async () => {
  idp = await startOidcProvider(`${BASE}/api/auth/sso/oidc/callback`);
});
test.afterAll(async () => {
  await idp?.close();
});

/** The provider's own pages: its login form (any password), then its consent. */
async function signInAtProvider(page: Page, login: string) {
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('anything');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

test('set up OpenID Connect on the Security page, test it, and sign in with SSO', async ({ page, browser }) => {
  test.setTimeout(120_000);
  const domain = `acme-${randomBytes(4).toString('hex')}.test`;
  const ownerEmail = `owner@${domain}`;
  await page.goto('/register');
  await page.locator('input[name="email"]').fill(ownerEmail);
  await page.locator('input[name="password"]').fill(PASSWORD);
  await page.locator('input[name="password2"]').fill(PASSWORD);
  await page.locator('form button[type="submit"]').click();
  await page.waitForURL(/\/dashboard$/);

  await page.goto('/workspace/security');
  await page.getByLabel('Identity provider').selectOption('oidc');
  await expect(page.getByText(`${BASE}/api/auth/sso/oidc/callback`)).toBeVisible();
  await page.getByLabel('Issuer URL').fill(idp.issuer);
  await page.getByLabel('Client ID').fill(OIDC_CLIENT_ID);
  await page.getByLabel('Client secret').fill(OIDC_CLIENT_SECRET);
  await page.getByLabel('Claimed domains').fill(domain);
  await page.getByLabel('Default role').selectOption('editor');
  await page.getByRole('switch', { name: 'Create accounts on first sign-in' }).click();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Single sign-on settings saved.')).toBeVisible();
  await expect(page.getByLabel('Client secret')).toHaveValue('');
  await screenshot(page, 'sso-security-page');

  await page.getByRole('button', { name: 'Test sign-in' }).click();
  await signInAtProvider(page, ownerEmail);
  await page.waitForURL(/\/workspace\/security\?test=passed/);
  await expect(page.getByText(`Test sign-in succeeded as ${ownerEmail}.`)).toBeVisible();

  // A colleague, in a browser of their own.
  const colleague = await browser.newContext();
  const other = await colleague.newPage();
  await other.goto('/login');
  await other.getByRole('button', { name: 'Sign in with SSO' }).click();
  await other.getByLabel('Work email').fill(`nobody@elsewhere-${randomBytes(3).toString('hex')}.test`);
  await other.getByRole('button', { name: 'Continue with SSO' }).click();
  await expect(other.getByRole('alert')).toContainText('No workspace signs in this email through single sign-on');
  await other.getByLabel('Work email').fill(`dev@${domain}`);
  await screenshot(other, 'sso-sign-in');
  await other.getByRole('button', { name: 'Continue with SSO' }).click();
  await signInAtProvider(other, `dev@${domain}`);
  // The free plan's one seat is the owner's: the first sign-in is refused, saying why.
  await expect(other.getByRole('heading', { name: 'Single sign-on failed' })).toBeVisible();
  await expect(other.getByText('Your Free plan allows 1 member, pending invitations included.')).toBeVisible();
  await screenshot(other, 'sso-no-seat');

  // On Pro there is a seat: the same person, starting again, joins at the default role.
  await makePro(ownerEmail);
  await other.getByRole('link', { name: 'Back to sign-in' }).click();
  await other.getByRole('button', { name: 'Sign in with SSO' }).click();
  await other.getByLabel('Work email').fill(`dev@${domain}`);
  await other.getByRole('button', { name: 'Continue with SSO' }).click();
  // The provider remembers the colleague's session: it may ask only for consent, or nothing.
  await other.waitForURL((url) => url.pathname === '/dashboard' || url.origin === idp.issuer);
  if (new URL(other.url()).origin === idp.issuer) {
    const consent = other.getByRole('button', { name: 'Continue' });
    if (await other.locator('input[name="login"]').count()) await signInAtProvider(other, `dev@${domain}`);
    else await consent.click();
  }
  await other.waitForURL(/\/dashboard$/);
  const token = await other.evaluate(() => localStorage.getItem('token'));
  expect(token).toBeTruthy();
  // The fragment that carried the session is gone from the address bar and history.
  expect(other.url()).not.toContain('token=');
  const me = await other.request.get('/api/auth/current', { headers: { authorization: `Bearer ${token}` } });
  expect((await me.json()).email).toBe(`dev@${domain}`);
  await colleague.close();
});
