/// <reference lib="dom" />
// Leads end to end (docs/product.md, Leads): an owner's chatbot asks for a name and an email after
// the visitor's second message; a visitor chats, the form shows in the conversation and is sent; the
// owner finds the lead on /leads, opens its conversation and downloads the CSV (its content checked);
// a webhook receiver this test runs on 127.0.0.1 gets lead.created, signed.
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse } from 'csv-parse/sync';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { Webhook } from 'standardwebhooks';
import { createBot, makePro, ownerToken, registerOwner, uniqueEmail } from './fixtures.ts';
import { screenshot } from './screenshots.ts';

/** axe finds nothing serious or critical on the page as it stands (as screens.spec.ts asks of every screen). */
async function expectAccessible(page: Page): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
}

interface Received {
  headers: Record<string, string>;
  body: string;
}

test('a visitor leaves their details after two messages; the owner lists, opens and exports the lead, and a webhook gets lead.created', async ({
  page,
  context,
  request,
}) => {
  const received: Received[] = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    const email = await registerOwner(page, uniqueEmail('leads'));
    const token = await ownerToken(page);
    const headers = { authorization: `Bearer ${token}` };
    const bot = await createBot(request, token, 'Acme Support', 'Acme opens at nine in the morning and closes at six in the evening.');
    const hook = await request.post('/api/workspace/webhooks', {
      headers,
      data: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/leads`, events: ['lead.created'] },
    });
    expect(hook.status()).toBe(201);
    const { secret } = (await hook.json()) as { secret: string };

    // The owner sets the form up in the chatbot's settings.
    await page.goto(`/chatbots/${bot._id}`);
    const settings = page.locator('form').filter({ has: page.getByRole('button', { name: 'Save Lead Form' }) });
    await settings.getByLabel('Ask for name').selectOption('optional');
    await settings.getByLabel('Ask for email').selectOption('required');
    await settings.getByLabel('Show the form').selectOption('after_messages');
    await settings.getByLabel('After how many messages').fill('2');
    await settings.getByLabel('Consent line').fill('I agree that Acme may contact me.');
    await settings.getByRole('button', { name: 'Save Lead Form' }).click();
    await expect(settings.getByText('Chatbot updated successfully')).toBeVisible();
    await screenshot(page, 'leads-settings');
    // Handoff is pro: disabled on the free plan, with the way to Pro.
    await expect(page.getByRole('switch', { name: 'Let visitors talk to a person' })).toBeDisabled();

    // The visitor: no form until their second message is answered.
    const visitor = await context.newPage();
    await visitor.goto(`/chat/${bot.uniqueId}`);
    const input = visitor.getByPlaceholder('Type your message...');
    const form = visitor.getByRole('form', { name: 'Leave your details and we will get back to you.' });
    await input.fill('When do you open?');
    await input.press('Enter');
    await expect(visitor.getByText('You asked:').first()).toBeVisible();
    await expect(input).toBeEnabled();
    await expect(form).toHaveCount(0);
    await input.fill('And when do you close?');
    await input.press('Enter');
    await expect(form).toBeVisible();
    // Email is required: no Skip, and the chat waits for the form.
    await expect(form.getByRole('button', { name: 'Skip' })).toHaveCount(0);
    await expect(input).toBeDisabled();
    await form.getByLabel('Name (optional)').fill('Ada Lovelace');
    await form.getByLabel('Email').fill('ada@example.com');
    await form.getByRole('button', { name: 'Send' }).click();
    await expect(form.getByRole('alert')).toHaveText('Please tick the box to agree.');
    await expectAccessible(visitor);
    await screenshot(visitor, 'leads-chat-form');
    await visitor.setViewportSize({ width: 375, height: 740 });
    await screenshot(visitor, 'leads-chat-form-phone', { fullPage: false });
    await visitor.setViewportSize({ width: 1280, height: 800 });
    await form.getByLabel('I agree that Acme may contact me.').check();
    await form.getByRole('button', { name: 'Send' }).click();
    await expect(visitor.getByText('Thanks! Your details were sent.')).toBeVisible();
    await expect(input).toBeEnabled();

    // The webhook: lead.created, signed with the endpoint's secret.
    await expect.poll(() => received.length, { timeout: 30_000 }).toBe(1);
    const event = new Webhook(secret).verify(received[0].body, received[0].headers) as { type: string; data: Record<string, unknown> };
    expect(event).toMatchObject({
      type: 'lead.created',
      data: { chatbotId: bot._id, name: 'Ada Lovelace', email: 'ada@example.com', phone: '', consented: true, source: 'form' },
    });
    expect(event.data.leadId).toMatch(/^[0-9a-f-]{36}$/);

    // The owner's Leads page, from the header.
    await page.getByRole('link', { name: 'Leads', exact: true }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Leads' })).toBeVisible();
    const row = page.getByRole('row').filter({ hasText: 'ada@example.com' });
    await expect(row).toBeVisible();
    await expect(row.getByRole('cell', { name: 'Acme Support' })).toBeVisible();
    await expect(row.getByRole('cell', { name: 'Ada Lovelace' })).toBeVisible();
    await expect(row.getByRole('cell', { name: 'Agreed' })).toBeVisible();
    await screenshot(page, 'leads-page');
    await expectAccessible(page);
    await page.setViewportSize({ width: 375, height: 740 });
    await screenshot(page, 'leads-page-phone');
    await page.setViewportSize({ width: 1280, height: 800 });

    // The CSV.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('leads.csv');
    const text = (await readFile((await download.path())!, 'utf8')).replace(/^\ufeff/, '');
    const [header, ...records] = parse(text) as string[][];
    expect(header).toEqual([
      'created_at',
      'lead_id',
      'chatbot_id',
      'chatbot_name',
      'conversation_id',
      'name',
      'email',
      'phone',
      'consented',
      'consent_text',
      'source',
      'channel',
      'channel_contact',
    ]);
    expect(records).toEqual([
      [
        expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        event.data.leadId,
        bot._id,
        'Acme Support',
        expect.stringMatching(/^[0-9a-f-]{36}$/),
        'Ada Lovelace',
        'ada@example.com',
        '',
        'yes',
        'I agree that Acme may contact me.',
        'form',
        'web',
        '',
      ],
    ]);

    // Open conversation: the visitor's messages in the chatbot's History (pro).
    await makePro(email);
    await page.reload();
    await page.getByRole('link', { name: 'Open conversation' }).click();
    await expect(page).toHaveURL(new RegExp(`/chatbots/${bot._id}\\?conversation=`));
    await expect(page.getByRole('tab', { name: 'History' })).toHaveAttribute('aria-selected', 'true');
    await expect(page.locator('#chatbot-panel-history').getByText('And when do you close?').first()).toBeVisible();
  } finally {
    await new Promise((resolve) => receiver.close(resolve));
  }
});
