// SMS against the whole running stack (docs/adr/0070-sms-channel.md): the (pro) owner enters the
// Twilio Account SID, Auth Token and number in the chatbot's Channels section and reads the webhook
// URL to set on the number in Twilio; a text to the number arrives through the fake Twilio (signed
// X-Twilio-Signature as Twilio does, over that URL), the bot answers through the fake's Messages API,
// and the owner reads the conversation in History with the SMS badge.
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { createBot, E2E_TWILIO, makePro, ownerToken, registerOwner, uniqueEmail } from './fixtures.ts';
import { screenshot } from './screenshots.ts';

const fakeTwilio = () => process.env.E2E_FAKE_TWILIO_URL!;

interface SentSms {
  from: string;
  to: string;
  body: string;
}

test('the owner connects SMS, a text is answered by SMS, and History shows the conversation with its channel', async ({
  page,
  request,
}) => {
  const email = await registerOwner(page, uniqueEmail('sms-channel'));
  await makePro(email);
  const token = await ownerToken(page);
  const bot = await createBot(request, token, 'Museum Bot', 'The museum opens at ten and closes at six, every day but Monday.');

  await page.goto(`/chatbots/${bot._id}#settings-channels`);
  const card = page.getByRole('region', { name: 'Channels' }).getByRole('region', { name: 'SMS' });
  await card.getByLabel('Twilio Account SID').fill(E2E_TWILIO.accountSid);
  await card.getByLabel('Twilio Auth Token').fill(E2E_TWILIO.authToken);
  await card.getByLabel('Twilio phone number').fill(E2E_TWILIO.number);
  await card.getByRole('button', { name: 'Connect SMS' }).click();
  await expect(card.getByText('Connected', { exact: true })).toBeVisible();
  await expect(card.getByText(`•••• ${E2E_TWILIO.authToken.slice(-4)}`)).toBeVisible();
  await expect(page.locator('body')).not.toContainText(E2E_TWILIO.authToken);
  const webhookUrl = (await card.getByLabel('Twilio webhook URL').textContent())!.trim();
  expect(webhookUrl).toMatch(/\/api\/channels\/sms\/[0-9a-f-]{36}$/);
  const { violations } = await new AxeBuilder({ page }).include('#settings-channels').analyze();
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  await card.scrollIntoViewIfNeeded();
  await screenshot(page, 'channels-sms-connected', { fullPage: false });

  // A visitor texts the number; Twilio signs and posts it to the webhook URL.
  const visitor = `+4477009${String(Date.now()).slice(-5)}`;
  const delivered = await request.post(`${fakeTwilio()}/_fake/deliver`, {
    data: {
      url: webhookUrl,
      accountSid: E2E_TWILIO.accountSid,
      from: visitor,
      to: E2E_TWILIO.number,
      body: 'Is the museum open every day?',
    },
  });
  expect((await delivered.json()).status).toBe(200);
  await expect
    .poll(async () => {
      const sent = (await (await request.get(`${fakeTwilio()}/_fake/sent`)).json()) as SentSms[];
      return sent.filter((m) => m.to === visitor).map((m) => [m.from, m.body.includes('The museum opens at ten')]);
    })
    .toEqual([[E2E_TWILIO.number, true]]);

  // The owner sees the delivery, then the conversation in History with its channel.
  await page.reload();
  const smsCard = page.getByRole('region', { name: 'SMS' });
  await expect(smsCard.getByText('Answer to chat')).toBeVisible();
  await smsCard.scrollIntoViewIfNeeded();
  await screenshot(page, 'channels-sms-delivered', { fullPage: false });
  await page.getByRole('tab', { name: /History/ }).click();
  const conversations = page.getByRole('list', { name: 'Conversations' });
  await expect(conversations.getByText('SMS', { exact: true })).toBeVisible();
  await conversations.getByRole('button').first().click();
  await expect(page.getByText('Is the museum open every day?')).toBeVisible();
  await screenshot(page, 'channels-sms-history');
});
