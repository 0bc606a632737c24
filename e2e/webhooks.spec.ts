// Webhooks in the browser (docs/adr/0032-webhooks.md): an owner finds the page in the workspace menu,
// registers an endpoint (a receiver this test runs on 127.0.0.1, which the end-to-end stack's
// KNOWLEDGE_URL_ALLOW_PRIVATE lets the service call), copies the secret shown once, sends a test event
// and sees it succeed in the delivery log, with the answer's body; the receiver got it signed with
// that secret (checked by the standardwebhooks package); a redelivery carries the same webhook-id;
// the log then shows both attempts; the endpoint is deleted.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { Webhook } from 'standardwebhooks';
import { registerOwner, uniqueEmail } from './fixtures.ts';
import { screenshot } from './screenshots.ts';

interface Received {
  headers: Record<string, string>;
  body: string;
}

test('an owner registers a webhook, sends a test event, sees it in the delivery log, and the receiver verifies it', async ({ page }) => {
  const received: Received[] = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/parley-events`;
  try {
    await registerOwner(page, uniqueEmail('webhooks'));
    await page.getByRole('button', { name: /^Workspace:/ }).click();
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Webhooks' })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'No endpoints yet' })).toBeVisible();

    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const adding = page.getByRole('dialog', { name: 'Add endpoint' });
    await adding.getByLabel('Endpoint URL').fill(url);
    await adding.getByLabel('conversation.started').check();
    await adding.getByLabel('message.created').check();
    await adding.getByRole('button', { name: 'Add endpoint' }).click();

    const shown = page.getByRole('dialog', { name: 'Endpoint added' });
    await expect(shown.getByText("you won't see it again")).toBeVisible();
    const secret = (await shown.getByLabel('Signing secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    await screenshot(page, 'webhooks-secret');
    await shown.getByRole('button', { name: 'Done' }).click();
    await expect(page.getByText(secret)).toHaveCount(0);

    const card = page.getByRole('region', { name: url });
    await expect(card.getByText('conversation.started')).toBeVisible();
    await expect(card.getByText('none yet')).toBeVisible();
    await expect(card.getByRole('switch', { name: 'Enabled' })).toHaveAttribute('aria-checked', 'true');

    await card.getByRole('button', { name: 'Send test event' }).click();
    const testing = page.getByRole('dialog', { name: 'Send test event' });
    await testing.getByLabel('Event type').selectOption('feedback.created');
    await testing.getByRole('button', { name: 'Send test event' }).click();

    // The log opens and follows the delivery until it is answered.
    const row = card.getByRole('table').getByRole('row').filter({ hasText: 'feedback.created' });
    await expect(row.getByText('Succeeded')).toBeVisible({ timeout: 20_000 });
    await expect(row.getByRole('cell').nth(2)).toHaveText('200');
    await expect(row.getByRole('cell').nth(4)).toHaveText('1');
    await row.getByRole('button', { name: 'Response' }).click();
    await expect(card.getByText('{"ok":true}').filter({ visible: true })).toBeVisible();
    await page.reload();
    await expect(page.getByRole('region', { name: url }).getByText('Succeeded')).toBeVisible();
    await screenshot(page, 'webhooks-delivered');

    // The receiver got it, signed with the secret shown once.
    expect(received).toHaveLength(1);
    const payload = new Webhook(secret).verify(received[0].body, received[0].headers) as { type: string; data: { rating: string } };
    expect(payload).toMatchObject({ type: 'feedback.created', data: { rating: 'up' } });

    // A redelivery: the same delivery (same webhook-id), sent again.
    await card.getByRole('button', { name: 'Delivery log' }).click();
    await row.getByRole('button', { name: 'Redeliver' }).click();
    await expect.poll(() => received.length, { timeout: 20_000 }).toBe(2);
    expect(received[1].headers['webhook-id']).toBe(received[0].headers['webhook-id']);
    expect(() => new Webhook(secret).verify(received[1].body, received[1].headers)).not.toThrow();
    await expect(card.getByRole('table').getByRole('row')).toHaveCount(2);
    await expect(row.getByText('Succeeded')).toBeVisible({ timeout: 20_000 });
    // The log keeps each attempt: the first delivery's and the redelivery's, oldest first.
    await row.getByRole('button', { name: 'Response' }).click();
    const attempts = card.getByRole('list', { name: 'Attempts' }).getByRole('listitem');
    await expect(attempts).toHaveCount(2, { timeout: 20_000 });
    await expect(attempts.nth(0)).toContainText('Delivered');
    await expect(attempts.nth(1)).toContainText('200');
    await screenshot(page, 'webhooks-attempts');

    await card.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete this endpoint?' }).getByRole('button', { name: 'Delete endpoint' }).click();
    await expect(page.getByRole('heading', { name: 'No endpoints yet' })).toBeVisible();
  } finally {
    await new Promise((resolve) => receiver.close(resolve));
  }
});
