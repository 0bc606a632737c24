// Email against the whole running stack (docs/adr/0063-email-channel.md): the (pro) owner enters the
// Mailgun webhook signing key in the chatbot's Channels section and reads the inbound address and the
// webhook URL to give Mailgun; a mail to the inbound address arrives through the fake Mailgun route
// (signed as Mailgun does), the bot answers by mail in the thread (caught by the fake's SMTP server),
// an out-of-office reply is skipped and listed under Skipped mails, and the owner reads the
// conversation in History with the Email badge.
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { createBot, makePro, ownerToken, registerOwner, uniqueEmail } from './fixtures.ts';
import { screenshot } from './screenshots.ts';

const fakeMailgun = () => process.env.E2E_FAKE_MAILGUN_URL!;
const SIGNING_KEY = 'key-e2e0mailgun0webhook0signing0key';

interface SentMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  inReplyTo: string;
}

test('the owner connects email, a mail is answered in its thread, and History shows the conversation with its channel', async ({
  page,
  request,
}) => {
  const email = await registerOwner(page, uniqueEmail('email-channel'));
  await makePro(email);
  const token = await ownerToken(page);
  const bot = await createBot(request, token, 'Museum Bot', 'The museum opens at ten and closes at six, every day but Monday.');

  await page.goto(`/chatbots/${bot._id}#settings-channels`);
  const card = page.getByRole('region', { name: 'Channels' }).getByRole('region', { name: 'Email' });
  await card.getByLabel('Mailgun webhook signing key').fill(SIGNING_KEY);
  await card.getByRole('button', { name: 'Connect email' }).click();
  await expect(card.getByText('Connected', { exact: true })).toBeVisible();
  await expect(card.getByText(`•••• ${SIGNING_KEY.slice(-4)}`)).toBeVisible();
  await expect(page.locator('body')).not.toContainText(SIGNING_KEY);
  const address = (await card.getByLabel('Inbound address').textContent())!.trim();
  expect(address).toMatch(/^bot-[0-9a-f]{20}@mail\.parley\.e2e$/);
  const webhookUrl = (await card.getByLabel('Mailgun webhook URL').textContent())!.trim();
  expect(webhookUrl).toMatch(/\/api\/channels\/email\/[0-9a-f-]{36}$/);
  const { violations } = await new AxeBuilder({ page }).include('#settings-channels').analyze();
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  await card.scrollIntoViewIfNeeded();
  await screenshot(page, 'channels-email-connected', { fullPage: false });

  // A visitor writes to the inbound address; Mailgun's route signs and forwards it.
  const contact = `grace.${Date.now()}@example.com`;
  const messageId = `<e2e.${Date.now()}@example.com>`;
  const delivered = await request.post(`${fakeMailgun()}/_fake/deliver`, {
    data: {
      url: webhookUrl,
      signingKey: SIGNING_KEY,
      mail: { from: contact, fromName: 'Grace', to: address, subject: 'Opening hours', text: 'Is the museum open every day?', messageId },
    },
  });
  expect((await delivered.json()).status).toBe(200);
  await expect
    .poll(async () => {
      const sent = (await (await request.get(`${fakeMailgun()}/_fake/sent`)).json()) as SentMail[];
      return sent
        .filter((m) => m.to.includes(contact))
        .map((m) => [m.from, m.subject, m.inReplyTo, m.text.includes('The museum opens at ten')]);
    })
    .toEqual([[address, 'Re: Opening hours', messageId, true]]);

  // An out-of-office reply to the answer is taken and never answered: the owner reads it under Skipped mails.
  const away = await request.post(`${fakeMailgun()}/_fake/deliver`, {
    data: {
      url: webhookUrl,
      signingKey: SIGNING_KEY,
      mail: {
        from: contact,
        to: address,
        subject: 'Out of office',
        text: 'I am away until Monday.',
        headers: [['Auto-Submitted', 'auto-replied']],
      },
    },
  });
  expect((await away.json()).status).toBe(200);

  // The owner sees the delivery and the skipped mail, then the conversation in History with its channel.
  await page.reload();
  const emailCard = page.getByRole('region', { name: 'Email' });
  await expect(emailCard.getByText('Answer to chat')).toBeVisible();
  await expect(emailCard.getByRole('list', { name: 'Skipped mails' }).getByText(`${contact} — Auto-reply`)).toBeVisible();
  await emailCard.getByText('Skipped mails', { exact: true }).scrollIntoViewIfNeeded();
  await screenshot(page, 'channels-email-skipped', { fullPage: false });
  expect(
    ((await (await request.get(`${fakeMailgun()}/_fake/sent`)).json()) as SentMail[]).filter((m) => m.to.includes(contact)),
  ).toHaveLength(1);
  await page.getByRole('tab', { name: /History/ }).click();
  const conversations = page.getByRole('list', { name: 'Conversations' });
  await expect(conversations.getByText('Email', { exact: true })).toBeVisible();
  await conversations.getByRole('button').first().click();
  await expect(page.getByText('Is the museum open every day?')).toBeVisible();
  await screenshot(page, 'channels-email-history');
});
