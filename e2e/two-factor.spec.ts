/// <reference lib="dom" />
// Two-factor sign-in in the browser (docs/product.md, Two-factor sign-in): set up on the account page
// with a code computed here from the key the page shows (with the same TOTP library as the server),
// then signing out and in again with a code, and with a recovery code; and a workspace that requires
// it sending a member without it to set it up first.
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { Secret, TOTP } from 'otpauth';
import pg from 'pg';
import { ownerToken, PASSWORD, registerOwner, uniqueEmail } from './fixtures.ts';
import { screenshot } from './screenshots.ts';

/** The code an authenticator app shows for `key`, `steps` periods from now (one ahead is accepted as clock skew). */
function codeFor(key: string, steps = 0): string {
  const totp = new TOTP({ issuer: 'Parley', algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(key) });
  return totp.generate({ timestamp: Date.now() + steps * 30_000 });
}

async function passwordStep(page: Page, email: string) {
  await page.goto('/login');
  await page.locator('input[name="email"]').fill(email);
  await page.locator('input[name="password"]').fill(PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page.getByRole('heading', { name: 'Two-factor sign-in' })).toBeVisible();
}

test('set up two-factor sign-in, then sign in with a code and with a recovery code', async ({ page }) => {
  const email = await registerOwner(page, uniqueEmail('two-factor'));
  await page.goto('/account');
  const card = page.getByRole('region', { name: 'Two-factor sign-in' });
  await card.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
  // The stack's first two-factor call may wait on a loaded machine (once it took over 10 s).
  await expect(card.getByRole('img', { name: 'QR code for your authenticator app' })).toBeVisible({ timeout: 30_000 });
  await screenshot(page, 'two-factor-set-up');
  const key = (await card.getByLabel('Key').textContent())!.replace(/\s/g, '');
  expect(key).toMatch(/^[A-Z2-7]{32}$/);

  const enrolmentCode = codeFor(key);
  await card.getByLabel('Code from the app').fill(enrolmentCode);
  await card.getByRole('button', { name: 'Turn on' }).click();
  const codes = card.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
  await expect(codes).toHaveCount(10);
  await screenshot(page, 'two-factor-recovery-codes');
  const recoveryCode = (await codes.first().textContent())!;
  await card.getByRole('button', { name: 'I have saved them' }).click();
  await expect(card.getByText('On', { exact: true })).toBeVisible();

  await page.getByRole('button', { name: 'Logout' }).click();
  await passwordStep(page, email);
  await screenshot(page, 'two-factor-code-step');
  // The code that turned it on cannot sign in again; the next period's can.
  await page.getByLabel('Code').fill(enrolmentCode);
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('alert')).toContainText('That code is not right');
  await page.getByLabel('Code').fill(codeFor(key, 1));
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.waitForURL(/\/dashboard$/);

  await page.getByRole('button', { name: 'Logout' }).click();
  await passwordStep(page, email);
  await page.getByLabel('Code').fill(recoveryCode);
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.waitForURL(/\/dashboard$/);
  await page.goto('/account');
  await expect(
    page.getByRole('region', { name: 'Two-factor sign-in' }).getByText('9 recovery codes left.', { exact: false }),
  ).toBeVisible();
});

/** Turns two-factor sign-in on through the account's REST calls, as the card does. */
async function enrolThroughApi(request: APIRequestContext, token: string): Promise<void> {
  const headers = { authorization: `Bearer ${token}` };
  const started = await request.post('/api/user/two-factor/enrolment', { headers });
  expect(started.status()).toBe(200);
  const { secret } = (await started.json()) as { secret: string };
  expect((await request.post('/api/user/two-factor/enrolment/confirm', { headers, data: { code: codeFor(secret) } })).status()).toBe(200);
}

test('a workspace that requires two-factor sign-in sends a member without it to set it up first', async ({ page, browser }) => {
  test.setTimeout(120_000);
  await registerOwner(page, uniqueEmail('strict-owner'));
  const ownerHeaders = { authorization: `Bearer ${await ownerToken(page)}` };
  await enrolThroughApi(page.request, await ownerToken(page));
  const created = await page.request.post('/api/workspaces', { headers: ownerHeaders, data: { name: 'Strict Team' } });
  expect(created.status()).toBe(201);
  const workspaceId = ((await created.json()) as { id: string }).id;
  const required = await page.request.put('/api/workspace/require-two-factor', {
    headers: { ...ownerHeaders, 'x-workspace-id': workspaceId },
    data: { enabled: true },
  });
  expect(required.status()).toBe(200);

  const member = await (await browser.newContext()).newPage();
  const memberEmail = await registerOwner(member, uniqueEmail('strict-member'));
  // The membership an accepted invitation leaves (teams.spec.ts walks the invitation itself).
  const client = new pg.Client({ connectionString: process.env.E2E_DATABASE_URL });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO auth."Membership" ("workspaceId", "userId", role) SELECT $1, id, 'editor' FROM auth."User" WHERE email = $2`,
      [workspaceId, memberEmail.toLowerCase()],
    );
  } finally {
    await client.end();
  }
  const refused = await member.request.get('/api/chatbot', {
    headers: { authorization: `Bearer ${await ownerToken(member)}`, 'x-workspace-id': workspaceId },
  });
  expect(refused.status()).toBe(403);
  expect(await refused.json()).toMatchObject({ code: 'TWO_FACTOR_REQUIRED' });

  await member.evaluate((id) => localStorage.setItem('workspace', id), workspaceId);
  await member.goto('/chatbots');
  await member.waitForURL(/\/account#two-factor$/);
  await expect(member.getByText('Strict Team requires two-factor sign-in. Set it up below to continue.')).toBeVisible();
  await screenshot(member, 'two-factor-required');

  const card = member.getByRole('region', { name: 'Two-factor sign-in' });
  await card.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
  const key = (await card.getByLabel('Key').textContent())!.replace(/\s/g, '');
  await card.getByLabel('Code from the app').fill(codeFor(key));
  await card.getByRole('button', { name: 'Turn on' }).click();
  await card.getByRole('button', { name: 'I have saved them' }).click();
  await expect(member.getByText('Strict Team requires two-factor sign-in.', { exact: false })).toHaveCount(0);
  await member.goto('/chatbots');
  await expect(member).toHaveURL(/\/chatbots$/);
  await expect(member.getByRole('heading', { level: 1 })).toBeVisible();
});
