// WhatsApp against the whole running stack (docs/product.md, Channels): the (pro) owner enters the
// phone-number id, the business account id, the token and the app secret in the chatbot's Channels
// section; Parley subscribes the business account to the app's webhooks in the fake Graph API
// (docs/adr/0076-registrations-at-the-provider.md) and shows the callback URL and verify token, the
// app's own setting, for Meta's console; Meta's handshake passes
// with that token; a WhatsApp user's message arrives through the fake Graph API (signed under the app
// secret, as Meta does), the bot answers through the fake, and the owner reads the conversation in
// History with its WhatsApp badge.
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { createBot, E2E_WHATSAPP, makePro, ownerToken, registerOwner, uniqueEmail } from './fixtures.ts';
import { screenshot } from './screenshots.ts';

const fakeMeta = () => process.env.E2E_FAKE_META_URL!;

test('the owner connects WhatsApp, a WhatsApp user is answered, and History shows the conversation with its channel', async ({
  page,
  request,
}) => {
  // The whole stack answers a message here, on a shared machine: a generous bound.
  test.setTimeout(180_000);
  const email = await registerOwner(page, uniqueEmail('whatsapp'));
  await makePro(email);
  const token = await ownerToken(page);
  const bot = await createBot(request, token, 'Museum Bot', 'The museum opens at ten and closes at six, every day but Monday.');

  await page.goto(`/chatbots/${bot._id}#settings-channels`);
  const whatsapp = page.getByRole('region', { name: 'WhatsApp' });
  await whatsapp.getByLabel('Phone number id').fill(E2E_WHATSAPP.phoneNumberId);
  await whatsapp.getByLabel('WhatsApp Business account id').fill(E2E_WHATSAPP.businessAccountId);
  await whatsapp.getByLabel('System user access token').fill(E2E_WHATSAPP.token);
  await whatsapp.getByLabel('WhatsApp app secret').fill(E2E_WHATSAPP.appSecret);
  await whatsapp.getByRole('button', { name: 'Connect WhatsApp' }).click();
  await expect(whatsapp.getByText('+1 555-010-0100')).toBeVisible();
  await expect(whatsapp.getByText('Connected', { exact: true })).toBeVisible();
  const setup = whatsapp.getByRole('status');
  const callbackUrl = (await setup.locator('dd').nth(0).textContent())!;
  const verifyToken = (await setup.locator('dd').nth(1).textContent())!;
  expect(callbackUrl).toMatch(/\/api\/channels\/whatsapp\/[0-9a-f-]{36}$/);
  expect(verifyToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
  await expect(setup.getByText(/^Parley subscribed this account to your app's webhooks\./)).toBeVisible();
  const subscriptions = (await (await request.get(`${fakeMeta()}/_fake/subscriptions`)).json()) as Record<string, string[]>;
  expect(subscriptions[E2E_WHATSAPP.businessAccountId]).toEqual([]);
  await expect(page.locator('body')).not.toContainText(E2E_WHATSAPP.token);
  await expect(page.locator('body')).not.toContainText(E2E_WHATSAPP.appSecret);
  const { violations } = await new AxeBuilder({ page }).include('#settings-channels').analyze();
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  await whatsapp.scrollIntoViewIfNeeded();
  await screenshot(page, 'channels-whatsapp-connected', { fullPage: false });

  // Meta's console checks the callback URL with the verify token.
  const challenge = await request.get(callbackUrl, {
    params: { 'hub.mode': 'subscribe', 'hub.verify_token': verifyToken, 'hub.challenge': '1158201444' },
  });
  expect([challenge.status(), await challenge.text()]).toEqual([200, '1158201444']);
  const wrong = await request.get(callbackUrl, { params: { 'hub.mode': 'subscribe', 'hub.verify_token': 'nope', 'hub.challenge': '1' } });
  expect(wrong.status()).toBe(403);

  // A WhatsApp user writes: the fake posts the signed event to Parley's webhook.
  const event = {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: E2E_WHATSAPP.businessAccountId,
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550100100', phone_number_id: E2E_WHATSAPP.phoneNumberId },
              contacts: [{ profile: { name: 'Grace' }, wa_id: '15557654321' }],
              messages: [
                {
                  from: '15557654321',
                  id: `wamid.e2e${Date.now()}`,
                  timestamp: String(Math.floor(Date.now() / 1000)),
                  type: 'text',
                  text: { body: 'Is the museum open every day?' },
                },
              ],
            },
          },
        ],
      },
    ],
  };
  const delivered = await request.post(`${fakeMeta()}/_fake/deliver`, {
    data: { url: callbackUrl, appSecret: E2E_WHATSAPP.appSecret, event },
  });
  expect(await delivered.json()).toEqual({ status: 200 });
  await expect
    .poll(async () => {
      const sent = (await (await request.get(`${fakeMeta()}/_fake/sent`)).json()) as { to: string; text: string }[];
      return sent.filter((s) => s.to === '15557654321').map((s) => s.text);
    })
    .toEqual([expect.stringContaining('The museum opens at ten')]);

  await page.reload();
  await expect(page.getByRole('region', { name: 'WhatsApp' }).getByText('Answer to chat')).toBeVisible();
  await page.getByRole('tab', { name: /History/ }).click();
  const conversations = page.getByRole('list', { name: 'Conversations' });
  await expect(conversations.getByText('WhatsApp', { exact: true })).toBeVisible();
  await expect(conversations.getByText('Grace')).toBeVisible();
  await conversations.getByRole('button').first().click();
  await expect(page.getByText('Is the museum open every day?')).toBeVisible();
  await screenshot(page, 'channels-whatsapp-history');
});
