/// <reference lib="dom" />
// Two-factor sign-in in the browser (docs/product.md, Two-factor sign-in): set up on the account page
// with a code computed here from the key the page shows (with the same TOTP library as the server),
// then signing out and in again with a code, and with a recovery code.
import { expect, test, type Page } from '@playwright/test';
import { Secret, TOTP } from 'otpauth';
import { PASSWORD, registerOwner, uniqueEmail } from './fixtures.ts';
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
  await expect(card.getByRole('img', { name: 'QR code for your authenticator app' })).toBeVisible();
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
