// SMS against the whole running stack (docs/adr/0070-sms-channel.md): the (pro) owner enters the
// Twilio Account SID, Auth Token and number in the chatbot's Channels section, and Parley sets the
// number's "A message comes in" webhook in the fake Twilio itself (the card shows the URL for
// reference; docs/adr/0076-registrations-at-the-provider.md); a text to the number arrives through
// the fake Twilio (signed X-Twilio-Signature as Twilio does, over that URL), the bot answers through
// the fake's Messages API, the owner reads the conversation in History with the SMS badge, and
// disconnecting clears the number's webhook.
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { createBot, disconnectFromCard, E2E_TWILIO, makePro, ownerToken, registerOwner, uniqueEmail } from './fixtures.ts';
import { screenshot } from './screenshots.ts';

const fakeTwilio = () => process.env.E2E_FAKE_TWILIO_URL!;

interface TwilioNumber {
  phoneNumber: string;
  smsUrl: string;
  smsMethod: string;
}

interface SentSms {
  from: string;
  to: string;
  body: string;
}

test("the owner connects SMS (Parley sets the number's webhook), a text is answered by SMS, History shows it, and disconnecting clears the webhook", async ({
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
  await expect(card.getByText(/Parley set the number's “A message comes in” webhook in Twilio to this URL/)).toBeVisible();
  const numberWebhook = async () => {
    const numbers = (await (await request.get(`${fakeTwilio()}/_fake/numbers`)).json()) as TwilioNumber[];
    const number = numbers.find((n) => n.phoneNumber === E2E_TWILIO.number);
    return number ? [number.smsUrl, number.smsMethod] : null;
  };
  expect(await numberWebhook()).toEqual([webhookUrl, 'POST']);
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

  // Disconnecting clears the number's webhook in Twilio, which still was this connection's URL.
  await disconnectFromCard(page, bot._id, 'SMS', /Parley clears the number's “A message comes in” webhook in Twilio/, 'Connect SMS');
  expect(await numberWebhook()).toEqual(['', 'POST']);
});
