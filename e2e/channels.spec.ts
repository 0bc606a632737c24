// Telegram against the whole running stack (docs/product.md, Channels): the (pro) owner pastes the
// BotFather token in the chatbot's Channels section, Parley registers its webhook with the fake Bot
// API, an update arrives through the fake (posted to the webhook with the secret, as Telegram does),
// the bot answers through the fake, and the owner reads the conversation in History with its channel.
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { createBot, E2E_TELEGRAM_TOKEN, makePro, ownerToken, registerOwner, uniqueEmail } from './fixtures.ts';
import { screenshot } from './screenshots.ts';

const fakeTelegram = () => process.env.E2E_FAKE_TELEGRAM_URL!;

test('the owner connects Telegram, a Telegram user is answered, and History shows the conversation with its channel', async ({
  page,
  request,
}) => {
  const email = await registerOwner(page, uniqueEmail('telegram'));
  await makePro(email);
  const token = await ownerToken(page);
  const bot = await createBot(request, token, 'Museum Bot', 'The museum opens at ten and closes at six, every day but Monday.');

  await page.goto(`/chatbots/${bot._id}#settings-channels`);
  const channels = page.getByRole('region', { name: 'Channels' });
  await channels.getByLabel('Telegram bot token').fill(E2E_TELEGRAM_TOKEN);
  await channels.getByRole('button', { name: 'Connect Telegram' }).click();
  await expect(channels.getByText('@parley_e2e_bot')).toBeVisible();
  await expect(channels.getByText('Connected', { exact: true })).toBeVisible();
  await expect(channels.getByText('•••• sts1')).toBeVisible();
  await expect(page.locator('body')).not.toContainText(E2E_TELEGRAM_TOKEN);
  const { violations } = await new AxeBuilder({ page }).include('#settings-channels').analyze();
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  await screenshot(page, 'channels-telegram-connected', { fullPage: false });

  // A Telegram user writes to the bot: the fake posts the update to Parley's webhook with the secret.
  const update = {
    update_id: Date.now(),
    message: {
      message_id: 1,
      date: Math.floor(Date.now() / 1000),
      chat: { id: 31337, type: 'private', first_name: 'Grace' },
      from: { id: 31337, is_bot: false, first_name: 'Grace' },
      text: 'Is the museum open every day?',
    },
  };
  const delivered = await request.post(`${fakeTelegram()}/_fake/deliver`, { data: { token: E2E_TELEGRAM_TOKEN, update } });
  expect(await delivered.json()).toEqual({ status: 200 });
  await expect
    .poll(async () => {
      const sent = (await (await request.get(`${fakeTelegram()}/_fake/sent`)).json()) as { chat_id: string; text: string }[];
      return sent.filter((s) => s.chat_id === '31337').map((s) => s.text);
    })
    .toEqual([expect.stringContaining('The museum opens at ten')]);

  // The owner sees the delivery, then the conversation in History with its channel.
  await page.reload();
  await expect(page.getByRole('region', { name: 'Channels' }).getByText('Answer to chat')).toBeVisible();
  await page.getByRole('tab', { name: /History/ }).click();
  const conversations = page.getByRole('list', { name: 'Conversations' });
  await expect(conversations.getByText('Telegram', { exact: true })).toBeVisible();
  await expect(conversations.getByText('Grace')).toBeVisible();
  await conversations.getByRole('button').first().click();
  await expect(page.getByText('Is the museum open every day?')).toBeVisible();
  await screenshot(page, 'channels-telegram-history');
});

test('a Telegram user waits for a person: the inbox shows the channel, the reply and the timeout reach Telegram, the email becomes a lead', async ({
  page,
  request,
}) => {
  // The shortest wait an owner may set is 30 s.
  test.setTimeout(180_000);
  const email = await registerOwner(page, uniqueEmail('telegram-team'));
  await makePro(email);
  const token = await ownerToken(page);
  const bot = await createBot(request, token, 'Museum Bot', 'The museum opens at ten and closes at six, every day but Monday.');
  const updated = await request.post('/graphql', {
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    data: {
      query: 'mutation ($id: ID!, $input: UpdateChatbotInput!) { updateChatbot(id: $id, input: $input) { id } }',
      variables: { id: bot._id, input: { handoff: { enabled: true, timeoutSeconds: 30 } } },
    },
  });
  expect(((await updated.json()) as { errors?: unknown }).errors).toBeUndefined();

  await page.goto(`/chatbots/${bot._id}#settings-channels`);
  const channels = page.getByRole('region', { name: 'Channels' });
  await channels.getByLabel('Telegram bot token').fill(E2E_TELEGRAM_TOKEN);
  await channels.getByRole('button', { name: 'Connect Telegram' }).click();
  await expect(channels.getByText('Connected', { exact: true })).toBeVisible();

  const chatId = 31338;
  let updateId = Date.now();
  const write = async (text: string) => {
    updateId += 1;
    const update = {
      update_id: updateId,
      message: {
        message_id: updateId,
        date: Math.floor(Date.now() / 1000),
        chat: { id: chatId, type: 'private', first_name: 'Linus' },
        from: { id: chatId, is_bot: false, first_name: 'Linus' },
        text,
      },
    };
    const delivered = await request.post(`${fakeTelegram()}/_fake/deliver`, { data: { token: E2E_TELEGRAM_TOKEN, update } });
    expect(await delivered.json()).toEqual({ status: 200 });
  };
  const sentToLinus = async () =>
    ((await (await request.get(`${fakeTelegram()}/_fake/sent`)).json()) as { chat_id: string; text: string }[])
      .filter((s) => s.chat_id === String(chatId))
      .map((s) => s.text);

  await write('I want to talk to a person');
  await expect.poll(sentToLinus).toEqual([expect.stringContaining('A person from our team will answer you here.')]);

  // The inbox: the row and the conversation's header say Telegram.
  await page.goto('/inbox');
  const waiting = page.getByRole('region', { name: 'Waiting' });
  const row = waiting.getByRole('link', { name: /Linus/ });
  await expect(row).toBeVisible();
  await expect(row.getByText('Telegram', { exact: true })).toBeVisible();
  await row.click();
  const conversation = page.getByRole('region', { name: 'Conversation with Linus' });
  await expect(conversation.getByText('Telegram', { exact: true })).toBeVisible();
  await conversation.getByRole('button', { name: 'Claim' }).click();
  await conversation.getByRole('textbox', { name: 'Reply to the visitor' }).fill('Hello Linus, Ada from the museum here.');
  await conversation.getByRole('button', { name: 'Send reply' }).click();
  await expect.poll(sentToLinus).toContain('Hello Linus, Ada from the museum here.');
  await expect(conversation.getByRole('list', { name: 'Messages' }).getByText('Hello Linus, Ada from the museum here.')).toBeVisible();
  await expect(conversation.getByRole('textbox', { name: 'Reply to the visitor' })).toHaveValue('');
  await screenshot(page, 'channels-telegram-inbox');
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  await conversation.getByRole('button', { name: 'Hand back to bot' }).click();
  await expect(conversation.getByRole('button', { name: 'Hand back to bot' })).toHaveCount(0);

  // Asked again, nobody answers in time: Telegram is told, and the email written back is the lead.
  await write('I want to talk to a person, please');
  await expect
    .poll(sentToLinus, { timeout: 90_000, intervals: [1000] })
    .toContain('Nobody is free to answer right now. Leave your email and we will get back to you.');
  await write('linus@example.com');
  await expect.poll(sentToLinus).toContain('Thank you. We will write to you at linus@example.com.');
  // The reply went out once.
  expect((await sentToLinus()).filter((t) => t === 'Hello Linus, Ada from the museum here.')).toHaveLength(1);

  await page.goto('/leads');
  const lead = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'linus@example.com' }) });
  await expect(lead).toHaveCount(1);
  await expect(lead).toContainText('Telegram');
  await expect(lead).toContainText(String(chatId));
  await expect(lead).toContainText('Nobody answered');
  await screenshot(page, 'channels-telegram-lead');
});
