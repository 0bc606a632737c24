/// <reference lib="dom" />
// Single sign-on in the browser (docs/product.md, Single sign-on): an owner sets up OpenID Connect on
// the Security page against a real OpenID provider started here (oidc-provider), checks it with Test
// sign-in, and a colleague in the claimed domain signs in with "Sign in with SSO" through the
// provider's own login form — refused while the free plan has no seat for them, then, on Pro, landing
// on the dashboard with an account made at the default role. Every trip is bound to its browser by the
// SSO cookie (ADR 66), which Chromium keeps on http://localhost. SAML likewise, through a local identity
// provider page that signs its answer with a key made here and posts it cross-site to the ACS URL.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inflateRawSync } from 'node:zlib';
import { expect, test, type Page } from '@playwright/test';
import {
  idpKeys,
  OIDC_CLIENT_ID,
  OIDC_CLIENT_SECRET,
  samlResponse,
  startOidcProvider,
  type IdpKeys,
  type OidcProviderHarness,
} from '../services/auth/test/integration/sso-fixtures.ts';
import { makePro, PASSWORD } from './fixtures.ts';
import { E2E_PORT_OFFSET } from './playwright.config.ts';
import { screenshot } from './screenshots.ts';

const BASE = `http://localhost:${8080 + E2E_PORT_OFFSET}`;
const ACS = `${BASE}/api/auth/sso/saml/acs`;
const SAML_IDP = 'https://idp.e2e.test/saml';
let idp: OidcProviderHarness;
let samlIdp: { url: string; keys: IdpKeys; server: Server };

const escapeAttr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * A SAML identity provider on another origin, the way one behaves in a browser: its sign-in page for
 * the HTTP-Redirect request, then an auto-submitting form that POSTs the signed response cross-site
 * to Parley's ACS URL (so the SSO cookie must be SameSite=None to come along).
 */
async function startSamlIdp(): Promise<typeof samlIdp> {
  const keys = await idpKeys();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://idp');
    const page = (body: string) => {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(`<!doctype html><html><head><title>Example IdP</title></head><body style="font-family:sans-serif">${body}</body></html>`);
    };
    if (req.method === 'GET' && url.pathname === '/sso') {
      const hidden = ['SAMLRequest', 'RelayState']
        .map((n) => `<input type="hidden" name="${n}" value="${escapeAttr(url.searchParams.get(n) ?? '')}">`)
        .join('');
      page(
        `<h1>Example IdP</h1><form method="post" action="/sso">${hidden}<label>Email <input name="email"></label> <button>Sign in</button></form>`,
      );
      return;
    }
    if (req.method !== 'POST' || url.pathname !== '/sso') {
      res.statusCode = 404;
      res.end();
      return;
    }
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const form = new URLSearchParams(raw);
      const request = inflateRawSync(Buffer.from(form.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
      const response = samlResponse({
        keys,
        issuer: SAML_IDP,
        audience: /<saml:Issuer[^>]*>([^<]+)</.exec(request)![1],
        recipient: ACS,
        inResponseTo: /\sID="([^"]+)"/.exec(request)![1],
        email: form.get('email') ?? '',
      });
      page(
        `<form method="post" action="${ACS}"><input type="hidden" name="SAMLResponse" value="${response}">` +
          `<input type="hidden" name="RelayState" value="${escapeAttr(form.get('RelayState') ?? '')}"></form>` +
          '<script>document.forms[0].submit()</script>',
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, keys, server };
}

test.beforeAll(async () => {
  idp = await startOidcProvider(`${BASE}/api/auth/sso/oidc/callback`);
  samlIdp = await startSamlIdp();
});
test.afterAll(async () => {
  await idp?.close();
  await new Promise((resolve) => samlIdp?.server.close(resolve));
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

test('set up SAML on the Security page and sign in through an identity provider that posts its answer cross-site', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  const domain = `initech-${randomBytes(4).toString('hex')}.test`;
  const ownerEmail = `owner@${domain}`;
  await page.goto('/register');
  await page.locator('input[name="email"]').fill(ownerEmail);
  await page.locator('input[name="password"]').fill(PASSWORD);
  await page.locator('input[name="password2"]').fill(PASSWORD);
  await page.locator('form button[type="submit"]').click();
  await page.waitForURL(/\/dashboard$/);
  await makePro(ownerEmail);

  await page.goto('/workspace/security');
  await page.getByLabel('Identity provider').selectOption('saml');
  await expect(page.getByText(ACS)).toBeVisible();
  await page.getByLabel('Single sign-on URL').fill(`${samlIdp.url}/sso`);
  await page.getByLabel('Identity provider entity ID').fill(SAML_IDP);
  await page.getByLabel('Signing certificate (PEM)').fill(samlIdp.keys.certificate);
  await page.getByLabel('Claimed domains').fill(domain);
  await page.getByLabel('Default role').selectOption('agent');
  await page.getByRole('switch', { name: 'Create accounts on first sign-in' }).click();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Single sign-on settings saved.')).toBeVisible();
  await screenshot(page, 'sso-security-page-saml');

  const colleague = await browser.newContext();
  const other = await colleague.newPage();
  await other.goto('/login');
  await other.getByRole('button', { name: 'Sign in with SSO' }).click();
  await other.getByLabel('Work email').fill(`peter@${domain}`);
  await other.getByRole('button', { name: 'Continue with SSO' }).click();
  await other.waitForURL((url) => url.origin === samlIdp.url);
  const cookies = await colleague.cookies(ACS);
  expect(cookies.find((c) => c.name === 'parley_sso')).toMatchObject({
    httpOnly: true,
    secure: true,
    sameSite: 'None',
    path: '/api/auth/sso',
  });
  await other.getByLabel('Email').fill(`peter@${domain}`);
  await other.getByRole('button', { name: 'Sign in' }).click();
  await other.waitForURL(/\/dashboard$/);
  const token = await other.evaluate(() => localStorage.getItem('token'));
  const me = await other.request.get('/api/auth/current', { headers: { authorization: `Bearer ${token}` } });
  expect((await me.json()).email).toBe(`peter@${domain}`);
  await screenshot(other, 'sso-saml-signed-in');

  // An attacker's sign-in link, opened in someone else's browser: the IdP's answer reaches Parley
  // without the cookie of the browser that started it, and opens nothing.
  const attacker = await browser.newContext();
  const start = await attacker.newPage();
  await start.goto('/login');
  await start.getByRole('button', { name: 'Sign in with SSO' }).click();
  await start.getByLabel('Work email').fill(`peter@${domain}`);
  await start.getByRole('button', { name: 'Continue with SSO' }).click();
  await start.waitForURL((url) => url.origin === samlIdp.url);
  const stranger = await browser.newContext();
  const third = await stranger.newPage();
  await third.goto(start.url());
  await third.getByLabel('Email').fill(`peter@${domain}`);
  await third.getByRole('button', { name: 'Sign in' }).click();
  await expect(third.getByRole('heading', { name: 'Single sign-on failed' })).toBeVisible();
  await expect(third.getByText('This single sign-on was started in another browser.')).toBeVisible();
  expect(await third.evaluate(() => localStorage.getItem('token'))).toBeNull();
  await screenshot(third, 'sso-other-browser');
  await stranger.close();
  await attacker.close();
  await colleague.close();
});
