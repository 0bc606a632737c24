// Slack against the whole running stack (docs/adr/0057-slack-channel.md): the (pro) owner pastes a
// Slack app's bot token and signing secret in the chatbot's Channels section and reads the Request
// URL to give Slack; Slack's url_verification and then a direct message arrive through the fake
// (signed with the signing secret, as Slack does), the bot answers through the fake's
// chat.postMessage, and the owner reads the conversation in History with its channel. Added to Slack
// instead, the card asks for no Request URL: the operator's app posts to its one path, and
// disconnecting removes the app from the workspace (apps.uninstall, docs/adr/0076-registrations-at-the-provider.md).
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import {
  createBot,
  disconnectFromCard,
  E2E_SLACK_APP,
  E2E_SLACK_TOKEN,
  makePro,
  ownerToken,
  registerOwner,
  uniqueEmail,
} from './fixtures.ts';
import { screenshot } from './screenshots.ts';

const fakeSlack = () => process.env.E2E_FAKE_SLACK_URL!;
const SIGNING_SECRET = 'e2e0signing0secret0for0slack0000';

test('the owner connects Slack, a Slack user is answered, and History shows the conversation with its channel', async ({
  page,
  request,
}) => {
  const email = await registerOwner(page, uniqueEmail('slack'));
  await makePro(email);
  const token = await ownerToken(page);
  const bot = await createBot(request, token, 'Museum Bot', 'The museum opens at ten and closes at six, every day but Monday.');

  await page.goto(`/chatbots/${bot._id}#settings-channels`);
  const slack = page.getByRole('region', { name: 'Channels' }).getByRole('region', { name: 'Slack' });
  await slack.getByLabel('Slack bot token').fill(E2E_SLACK_TOKEN);
  await slack.getByLabel('Slack signing secret').fill(SIGNING_SECRET);
  await slack.getByRole('button', { name: 'Connect Slack' }).click();
  await expect(slack.getByText('parley_e2e_slackbot (Parley Test)')).toBeVisible();
  await expect(slack.getByText('Connected', { exact: true })).toBeVisible();
  await expect(slack.getByText('•••• Slk1')).toBeVisible();
  await expect(page.locator('body')).not.toContainText(E2E_SLACK_TOKEN);
  await expect(page.locator('body')).not.toContainText(SIGNING_SECRET);
  const requestUrl = (await slack.getByLabel('Slack Request URL').textContent())!.trim();
  expect(requestUrl).toMatch(/\/api\/channels\/slack\/[0-9a-f-]{36}$/);
  const { violations } = await new AxeBuilder({ page }).include('#settings-channels').analyze();
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  await screenshot(page, 'channels-slack-connected', { fullPage: false });

  // Slack checks the Request URL, then a Slack user writes to the bot: the fake signs and posts both.
  const deliver = async (payload: unknown) =>
    (await request.post(`${fakeSlack()}/_fake/deliver`, { data: { url: requestUrl, signingSecret: SIGNING_SECRET, payload } })).json();
  expect(await deliver({ token: 't', challenge: 'e2e-challenge', type: 'url_verification' })).toEqual({
    status: 200,
    body: JSON.stringify({ challenge: 'e2e-challenge' }),
  });
  const event = {
    type: 'event_callback',
    // The fake Slack's one workspace, as its auth.test names it: an event of another workspace is left.
    team_id: 'T0PARLEY',
    event_id: `Ev${Date.now()}`,
    authorizations: [{ user_id: 'U0BOT', is_bot: true }],
    event: {
      type: 'message',
      channel_type: 'im',
      channel: 'D0GRACE',
      user: 'U0GRACE',
      text: 'Is the museum open every day?',
      ts: '1764700000.000100',
    },
  };
  expect((await deliver(event)).status).toBe(200);
  await expect
    .poll(async () => {
      const sent = (await (await request.get(`${fakeSlack()}/_fake/sent`)).json()) as { channel: string; text: string }[];
      return sent.filter((s) => s.channel === 'D0GRACE').map((s) => s.text);
    })
    .toEqual([expect.stringContaining('The museum opens at ten')]);

  // The owner sees the delivery, then the conversation in History with its channel.
  await page.reload();
  await expect(page.getByRole('region', { name: 'Slack' }).getByText('Answer to chat')).toBeVisible();
  await page.getByRole('tab', { name: /History/ }).click();
  const conversations = page.getByRole('list', { name: 'Conversations' });
  await expect(conversations.getByText('Slack', { exact: true })).toBeVisible();
  await conversations.getByRole('button').first().click();
  await expect(page.getByText('Is the museum open every day?')).toBeVisible();
  await screenshot(page, 'channels-slack-history');
});

test('the owner adds Parley to Slack: Slack asks, the browser comes back connected, and the app signing secret checks its events', async ({
  page,
  request,
}) => {
  const email = await registerOwner(page, uniqueEmail('slack-oauth'));
  await makePro(email);
  const token = await ownerToken(page);
  const bot = await createBot(request, token, 'Install Bot', 'The museum opens at ten and closes at six, every day but Monday.');

  await page.goto(`/chatbots/${bot._id}#settings-channels`);
  const slack = page.getByRole('region', { name: 'Channels' }).getByRole('region', { name: 'Slack' });
  const add = slack.getByRole('button', { name: 'Add to Slack' });
  await expect(add).toBeVisible();
  // Pasting a token stays, beside the install.
  await expect(slack.getByLabel('Slack bot token')).toBeVisible();
  await slack.scrollIntoViewIfNeeded();
  await screenshot(page, 'channels-slack-add-to-slack', { fullPage: false });

  // The fake's authorize page stands for Slack's consent screen: it sends the browser straight back with a code.
  await add.click();
  await page.waitForURL(new RegExp(`/chatbots/${bot._id}\\?slack=connected`));
  await expect(slack.getByText('parley_e2e_app (Parley Test)')).toBeVisible();
  await expect(slack.getByText('Connected', { exact: true })).toBeVisible();
  await expect(slack.getByText('•••• OAu1')).toBeVisible();
  await expect(page.locator('body')).not.toContainText(E2E_SLACK_APP.botToken);
  await screenshot(page, 'channels-slack-installed', { fullPage: false });

  // Added to Slack, the owner sets no Request URL: the operator's app has one, which checks Slack's
  // events under the app's signing secret.
  await expect(slack.getByText('Added to Slack: mention the bot')).toBeVisible();
  await expect(slack.getByLabel('Slack Request URL')).toHaveCount(0);
  const requestUrl = new URL('/api/channels/slack/events', page.url()).toString();
  const deliver = async (signingSecret: string, payload: unknown = { token: 't', challenge: 'installed', type: 'url_verification' }) =>
    (await request.post(`${fakeSlack()}/_fake/deliver`, { data: { url: requestUrl, signingSecret, payload } })).json();
  expect(await deliver(E2E_SLACK_APP.signingSecret)).toEqual({ status: 200, body: JSON.stringify({ challenge: 'installed' }) });
  expect((await deliver(SIGNING_SECRET)).status).toBe(403);
  // A direct message in the workspace the app was added to reaches this chatbot through the app's one path.
  const dm = `D0ADDED${Date.now().toString(36).toUpperCase()}`;
  const message = {
    token: 't',
    team_id: 'T0PARLEY',
    api_app_id: 'A0PARLEY',
    type: 'event_callback',
    event_id: `Ev0${dm}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ team_id: 'T0PARLEY', user_id: 'U0BOT', is_bot: true }],
    event: {
      type: 'message',
      channel_type: 'im',
      channel: dm,
      user: 'U0ADA',
      text: 'When does the museum open?',
      ts: '1764700000.000200',
    },
  };
  expect((await deliver(E2E_SLACK_APP.signingSecret, message)).status).toBe(200);
  await expect
    .poll(async () => {
      const sent = (await (await request.get(`${fakeSlack()}/_fake/sent`)).json()) as { channel: string; text: string }[];
      return sent.filter((s) => s.channel === dm).map((s) => s.text);
    })
    .toEqual([expect.stringContaining('You asked: _When does the museum open?_')]);

  // Slack's redirect back replayed (the same code and state): refused, nothing changes.
  const replay = await request.get('/api/channels/slack/oauth/callback?code=1.2.replayed&state=forged', { maxRedirects: 0 });
  expect(replay.status()).toBe(400);

  // Disconnecting removes the operator's app from the workspace at Slack, which frees it for another install.
  await disconnectFromCard(page, bot._id, 'Slack', /Parley removes the app from this Slack workspace/, 'Add to Slack');
  expect(await (await request.get(`${fakeSlack()}/_fake/uninstalled`)).json()).toEqual(['T0PARLEY']);
});
