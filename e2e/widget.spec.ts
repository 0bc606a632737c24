/// <reference lib="dom" />
// The embeddable widget against the whole running stack (docs/product.md, The widget): a host page on another local
// origin (127.0.0.1 on a port of its own, while Parley is localhost) pastes the owner's snippet; the
// widget opens the chat in its panel with the bot's colours, refuses a site that is not allowed,
// stops visitors at the owner's daily limits with nothing billed, and works from the keyboard. The
// owner's side: the Embed tab, the Pro-only badge, and the identified visitor in History.
//
// The widget keeps its launcher in an open shadow root (isolated CSS all the same), which Playwright's
// locators pierce.
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type APIRequestContext, type FrameLocator, type Page } from '@playwright/test';
import { createBot, makePro, ownerToken, ownerUsage, registerOwner, topUpCredit, updateBot } from './fixtures.ts';
import { screenshot } from './screenshots.ts';

const NOT_AVAILABLE = 'This chatbot is not available on this website.';
const DAILY_LIMIT = "You've reached today's limit for this chat. Please come back tomorrow.";
const PRO_BADGE_REFUSAL = 'Hiding the Parley badge is a Pro feature.';

interface HostPage {
  /** The host page's origin, e.g. http://127.0.0.1:41234. */
  origin: string;
  /** The page that embeds `uniqueId`, with `head` added before the snippet (e.g. a ParleyQueue). */
  url(uniqueId: string, head?: string): string;
  close(): Promise<void>;
}

/**
 * A stranger's website: one static page whose only script is the snippet, served from 127.0.0.1 on a
 * random port (another origin, and another host name, than Parley's localhost). The page has no
 * focusable element before the launcher, so the first Tab reaches it.
 */
async function startHostPage(parleyOrigin: string): Promise<HostPage> {
  const pages = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    const html = pages.get(req.url ?? '');
    if (!html) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let next = 0;
  return {
    origin,
    url(uniqueId, head = '') {
      const path = `/shop-${++next}.html`;
      pages.set(
        path,
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme Shop</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px/1.5 Georgia,serif;margin:0;padding:48px;background:#fdf6e3;color:#333}button{background:lime!important}</style>
${head}
<script src="${parleyOrigin}/widget.js" data-chatbot="${uniqueId}" defer></script></head>
<body><h1>Acme Shop</h1><p>Hand-made goods since 1999. Our helpers answer in the corner.</p></body></html>`,
      );
      return `${origin}${path}`;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let host: HostPage;

test.beforeAll(async () => {
  host = await startHostPage(new URL(test.info().project.use.baseURL!).origin);
});
test.afterAll(async () => host?.close());

const launcherOf = (page: Page) => page.locator('[data-parley-widget] button.launcher');
const panelOf = (page: Page) => page.locator('[data-parley-widget] .panel');
const chatFrame = (page: Page): FrameLocator => page.frameLocator('[data-parley-widget] iframe');

/** "#rrggbb" as getComputedStyle spells it. */
function rgb(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return `rgb(${r}, ${g}, ${b})`;
}

async function backgroundOf(locator: ReturnType<Page['locator']>): Promise<string> {
  return locator.evaluate((el) => getComputedStyle(el).backgroundColor);
}

/** Sends one message in the widget's chat and waits for its answer or its refusal. */
async function ask(frame: FrameLocator, text: string): Promise<void> {
  const input = frame.getByPlaceholder('Type your message...');
  await expect(input).toBeEnabled();
  await input.fill(text);
  // The field must hold the text before Enter (a fill that did not arrive fails here, clearly).
  await expect(input).toHaveValue(text);
  await input.press('Enter');
}

/** Waits until the owner's billed requests reach `count`, then checks no more arrive for a moment. */
async function expectBilledRequests(request: APIRequestContext, token: string, count: number): Promise<void> {
  await expect.poll(async () => (await ownerUsage(request, token)).totalRequests, { timeout: 15_000 }).toBe(count);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect((await ownerUsage(request, token)).totalRequests).toBe(count);
}

test('a host page embeds the widget: the launcher opens the chat in the bot’s colours, it answers, and History names the visitor', async ({
  page,
  context,
  request,
}) => {
  const email = await registerOwner(page);
  const token = await ownerToken(page);
  const bot = await createBot(request, token, 'Acme Helper', 'Acme ships every order within two working days from our Leeds workshop.');
  const color = '#e11d48';
  const saved = await updateBot(request, token, bot._id, {
    appearance: { primaryColor: '#E11D48', position: 'left', launcherLabel: 'Ask Acme' },
    // The host page's own host name: listed, so it is allowed (and may frame the embed page).
    allowedDomains: ['127.0.0.1'],
  });
  expect(saved.status()).toBe(200);
  expect(await saved.json()).toMatchObject({
    appearance: { primaryColor: color, position: 'left', launcherLabel: 'Ask Acme', hideBranding: false },
    allowedDomains: ['127.0.0.1'],
  });

  const visitor = await context.newPage();
  // The host page knows its signed-in customer and tells the widget before it has loaded.
  await visitor.goto(host.url(bot.uniqueId, `<script>window.ParleyQueue=[['identify',{id:'42',name:'Jane Doe'}]]</script>`));
  const launcher = launcherOf(visitor);
  await expect(launcher).toHaveText('Ask Acme');
  expect(await backgroundOf(launcher)).toBe(rgb(color));
  // The host page's CSS (every button lime) does not reach the launcher.
  expect(await backgroundOf(launcher)).not.toBe('rgb(0, 255, 0)');
  const box = (await launcher.boundingBox())!;
  expect(box.x).toBeLessThan(100);

  await launcher.click();
  await expect(panelOf(visitor)).toBeVisible();
  const frame = chatFrame(visitor);
  await ask(frame, 'How fast do you ship?');
  await expect(frame.getByTestId('assistant-message').last()).toContainText(/two working days|You asked/);
  await expect(frame.getByPlaceholder('Type your message...')).toBeEnabled();
  await frame.getByPlaceholder('Type your message...').fill('x');
  // Polled: the button's colour changes with a transition once it is enabled.
  await expect.poll(() => backgroundOf(frame.getByRole('button', { name: 'Send message' }))).toBe(rgb(color));
  await frame.getByPlaceholder('Type your message...').fill('');
  await screenshot(visitor, 'widget-open');

  // The phone: the panel fills the screen.
  await visitor.setViewportSize({ width: 390, height: 760 });
  const phonePanel = (await panelOf(visitor).boundingBox())!;
  expect(phonePanel.width).toBeGreaterThanOrEqual(389);
  await screenshot(visitor, 'widget-phone');

  // The owner (pro, to read History) sees who the host page said the visitor is.
  await makePro(email);
  await page.goto(`/chatbots/${bot._id}`);
  await page.getByRole('tab', { name: 'History' }).click();
  await expect(page.getByText('Jane Doe · id 42')).toBeVisible();
});

test('identity verification: the owner makes the secret, a host page identifies its visitor with a hash, and History shows Verified', async ({
  page,
  context,
  request,
}) => {
  const email = await registerOwner(page);
  const token = await ownerToken(page);
  const bot = await createBot(request, token, 'Verified Helper', 'Orders ship within two working days.');
  expect((await updateBot(request, token, bot._id, { allowedDomains: ['127.0.0.1'] })).status()).toBe(200);
  await makePro(email);

  // The owner makes the chatbot's identity secret in the Embed tab: shown once, with the server's code.
  await page.goto(`/chatbots/${bot._id}`);
  await page.getByRole('tab', { name: 'Embed' }).click();
  const cardHeader = page.getByRole('heading', { name: 'Identity verification' }).locator('xpath=../..');
  await expect(cardHeader.getByText('Off', { exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'Create secret' }).click();
  const secret = (await page.getByLabel('Identity secret').textContent())!.trim();
  expect(secret).toMatch(/^[0-9a-f]{64}$/);
  await expect(page.getByRole('button', { name: 'Roll secret' })).toBeVisible();
  await expect(cardHeader.getByText(/^On since /)).toBeVisible();
  await page.getByRole('heading', { name: 'Identity verification' }).scrollIntoViewIfNeeded();
  await screenshot(page, 'identity-verification-card');

  // The owner's server signs its user's id; the host page hands it to the widget.
  const userHash = createHmac('sha256', secret).update('user-42').digest('hex');
  const identity = JSON.stringify({ userId: 'user-42', email: 'ada@example.com', name: 'Ada', userHash });
  const visitor = await context.newPage();
  await visitor.goto(host.url(bot.uniqueId, `<script>window.ParleyQueue=[['identify',${identity}]]</script>`));
  await launcherOf(visitor).click();
  const frame = chatFrame(visitor);
  await ask(frame, 'When will my order ship?');
  await expect(frame.getByTestId('assistant-message').last()).toContainText(/two working days|You asked/);

  // A forged hash on another visit: answered, but not verified.
  const forged = JSON.stringify({ userId: 'user-43', name: 'Mallory', userHash: 'ab'.repeat(32) });
  const intruder = await context.newPage();
  await intruder.goto(host.url(bot.uniqueId, `<script>window.ParleyQueue=[['identify',${forged}]]</script>`));
  await launcherOf(intruder).click();
  await ask(chatFrame(intruder), 'Where is my order?');
  await expect(chatFrame(intruder).getByTestId('assistant-message').last()).toContainText(/two working days|You asked/);

  await page.goto(`/chatbots/${bot._id}`);
  await page.getByRole('tab', { name: 'History' }).click();
  const conversations = page.getByRole('list', { name: 'Conversations' });
  await expect(conversations.getByRole('listitem')).toHaveCount(2);
  await expect(conversations.getByText('Verified', { exact: true })).toHaveCount(1);
  await expect(conversations.getByText('user-42 · ada@example.com')).toBeVisible();
  await screenshot(page, 'history-verified');
  await conversations.getByText('user-42 · ada@example.com').click();
  await expect(page.getByText('Identity')).toBeVisible();
  await expect(page.getByText('Verified', { exact: true })).toBeVisible();
});

test('a site that is not allowed: the widget shows the refusal and the chat API answers 403', async ({ page, context, request }) => {
  await registerOwner(page);
  const token = await ownerToken(page);
  const bot = await createBot(request, token, 'Private Helper', 'Only for shop.example.com visitors.');
  const saved = await updateBot(request, token, bot._id, { allowedDomains: ['Shop.Example.com'] });
  expect(saved.status()).toBe(200);
  expect((await saved.json()).allowedDomains).toEqual(['shop.example.com']);

  const visitor = await context.newPage();
  await visitor.goto(host.url(bot.uniqueId));
  await launcherOf(visitor).click();
  await expect(panelOf(visitor)).toContainText(NOT_AVAILABLE);
  await expect(visitor.locator('[data-parley-widget] iframe')).toHaveCount(0);
  await screenshot(visitor, 'widget-refused');

  // The chat API itself refuses this site, from the host page's own script...
  const fromPage = await visitor.evaluate(
    async (url) => {
      try {
        const r = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ message: 'hi' }),
        });
        return { status: r.status, body: (await r.json()) as { message?: string } };
      } catch (err) {
        return { status: 0, body: { message: String(err) } };
      }
    },
    new URL(`/api/chatbot/public/${bot.uniqueId}/chat`, page.url()).toString(),
  );
  expect(fromPage).toEqual({ status: 403, body: { message: NOT_AVAILABLE } });
  // ...and from anything else that says it comes from there.
  const direct = await request.post(`/api/chatbot/public/${bot.uniqueId}/chat`, {
    headers: { origin: host.origin },
    data: { message: 'hi' },
  });
  expect(direct.status()).toBe(403);
  expect(await direct.json()).toMatchObject({ message: NOT_AVAILABLE });
  // A listed host is served.
  const listed = await request.post(`/api/chatbot/public/${bot.uniqueId}/chat`, {
    headers: { origin: 'https://shop.example.com' },
    data: { message: 'Who is this for?' },
  });
  expect(listed.status()).toBe(200);

  // Parley's own standalone page stays on while the owner keeps it on, and goes once switched off.
  await visitor.goto(`${new URL(page.url()).origin}/chat/${bot.uniqueId}`);
  await expect(visitor.getByPlaceholder('Type your message...')).toBeVisible();
  expect((await updateBot(request, token, bot._id, { standalonePage: false })).status()).toBe(200);
  const standalone = await request.post(`/api/chatbot/public/${bot.uniqueId}/chat`, { data: { message: 'hi' } });
  expect(standalone.status()).toBe(403);
  expect(await standalone.json()).toMatchObject({ message: NOT_AVAILABLE });
});

test('a pro owner hides the badge; a free owner cannot, on the server or in the Embed tab', async ({ page, context, request }) => {
  // The free owner first.
  await registerOwner(page);
  const freeToken = await ownerToken(page);
  const freeBot = await createBot(request, freeToken, 'Free Helper', 'We sell hats.');
  const refused = await updateBot(request, freeToken, freeBot._id, { appearance: { hideBranding: true } });
  expect(refused.status()).toBe(403);
  expect(await refused.json()).toMatchObject({ message: PRO_BADGE_REFUSAL });
  await page.goto(`/chatbots/${freeBot._id}`);
  await page.getByRole('tab', { name: 'Embed' }).click();
  await expect(page.getByLabel('Embed snippet')).toHaveText(
    `<script src="${new URL(page.url()).origin}/widget.js" data-chatbot="${freeBot.uniqueId}" defer></script>`,
  );
  await expect(page.getByLabel('Hide Powered by Parley badge')).toBeDisabled();
  await expect(page.getByRole('link', { name: 'Upgrade to Pro' }).first()).toHaveAttribute('href', '/pricing');
  await expect(page.frameLocator('iframe[title="Chat preview"]').getByPlaceholder('Type your message...')).toBeVisible();
  await screenshot(page, 'embed-tab');

  // Then a pro owner, in the same browser once signed out.
  await page.evaluate(() => localStorage.clear());
  const email = await registerOwner(page);
  await makePro(email);
  const token = await ownerToken(page);
  const bot = await createBot(request, token, 'Pro Helper', 'We sell gloves.');
  const visitor = await context.newPage();
  await visitor.goto(`/chat/${bot.uniqueId}`);
  await expect(visitor.getByText('Powered by')).toBeVisible();

  // Through the Embed tab: preview the colour, tick the badge, save.
  await page.goto(`/chatbots/${bot._id}`);
  await page.getByRole('tab', { name: 'Embed' }).click();
  await page.getByLabel('Primary colour').fill('#0f766e');
  await expect(page.getByRole('img', { name: /Launcher preview/ })).toHaveCSS('background-color', rgb('#0f766e'));
  await page.getByLabel('Hide Powered by Parley badge').check();
  await page.getByRole('button', { name: 'Save Appearance' }).click();
  await expect(page.getByText('Chatbot updated successfully')).toBeVisible();
  await screenshot(page, 'embed-tab-pro');
  await page.setViewportSize({ width: 390, height: 800 });
  await screenshot(page, 'embed-tab-phone');
  await page.setViewportSize({ width: 1280, height: 800 });

  const lookup = await request.get(`/api/chatbot/public/${bot.uniqueId}`);
  expect(await lookup.json()).toMatchObject({ appearance: { hideBranding: true, primaryColor: '#0f766e' } });
  await visitor.reload();
  await expect(visitor.getByPlaceholder('Type your message...')).toBeVisible();
  await expect(visitor.getByText('Powered by')).toHaveCount(0);
});

test('past the visitor’s daily messages, or the chatbot’s daily spend, the widget says so and nothing is billed', async ({
  page,
  context,
  request,
}) => {
  await registerOwner(page);
  await topUpCredit(page);
  const token = await ownerToken(page);

  // Two messages a day for each visitor.
  const bot = await createBot(request, token, 'Limited Helper', 'Acme opens at nine in the morning.');
  expect((await updateBot(request, token, bot._id, { limits: { visitorMessagesPerDay: 2 } })).status()).toBe(200);
  const visitor = await context.newPage();
  await visitor.goto(host.url(bot.uniqueId));
  await launcherOf(visitor).click();
  const frame = chatFrame(visitor);
  await ask(frame, 'When does Acme open in the morning?');
  await expect(frame.getByTestId('assistant-message')).toHaveCount(1);
  await ask(frame, 'And on Sundays?');
  await expect(frame.getByTestId('assistant-message')).toHaveCount(2);
  await ask(frame, 'And on holidays?');
  await expect(frame.getByText(DAILY_LIMIT)).toBeVisible();
  await screenshot(visitor, 'widget-daily-limit');
  await expectBilledRequests(request, token, 2);

  // A daily spend cap of one cent for the whole chatbot, and answers whose largest cost (held before
  // the model is called) is close to it: long knowledge and instructions, in a script of three bytes a
  // character. Whether the first or a later message reaches the cap, the refused one costs nothing.
  expect((await updateBot(request, token, bot._id, { limits: { visitorMessagesPerDay: null, dailySpendLimit: '0.01' } })).status()).toBe(
    200,
  );
  expect((await updateBot(request, token, bot._id, { instructions: '丁寧に答えてください。'.repeat(350) })).status()).toBe(200);
  const knowledge = await request.post(`/api/chatbot/${bot._id}/knowledge-base/text`, {
    headers: { authorization: `Bearer ${token}` },
    data: { text: '営業時間は午前九時から午後六時までです。'.repeat(550), append: true },
  });
  expect(knowledge.status()).toBe(200);
  const billedBefore = (await ownerUsage(request, token)).totalRequests;

  // The same visitor on a new tab (the refused conversation is not brought back); the visitor limit
  // is lifted, so only the spend cap can refuse.
  const spender = await context.newPage();
  await spender.goto(host.url(bot.uniqueId));
  await launcherOf(spender).click();
  const spendFrame = chatFrame(spender);
  await expect(spendFrame.getByText('Ask me anything!')).toBeVisible();
  let answered = 0;
  for (let attempt = 0; attempt < 6; attempt += 1) {
    await ask(spendFrame, `質問${attempt}：${'配送について教えてください。'.repeat(250)}`);
    const answer = spendFrame.getByTestId('assistant-message').nth(answered);
    const limit = spendFrame.getByText(DAILY_LIMIT);
    await expect(answer.or(limit).first()).toBeVisible({ timeout: 20_000 });
    // An answer shows while it streams; it is over once the field is usable again, or the refusal
    // replaces the chat.
    await expect(limit.or(spendFrame.locator('textarea#chat-message:enabled'))).toBeVisible({ timeout: 20_000 });
    if (await limit.isVisible()) break;
    answered += 1;
  }
  await expect(spendFrame.getByText(DAILY_LIMIT)).toBeVisible();
  test.info().annotations.push({ type: 'answers before the spend cap', description: String(answered) });
  await expectBilledRequests(request, token, billedBefore + answered);
});

test('keyboard: Tab reaches the launcher, Enter opens the chat with the focus inside, Esc closes it and the focus returns', async ({
  page,
  context,
  request,
}) => {
  await registerOwner(page);
  const token = await ownerToken(page);
  const bot = await createBot(request, token, 'Keyboard Helper', 'We answer by keyboard.');

  const visitor = await context.newPage();
  await visitor.goto(host.url(bot.uniqueId));
  const launcher = launcherOf(visitor);
  await expect(launcher).toBeVisible();
  await expect(launcher).toHaveAttribute('aria-label', 'Chat with Keyboard Helper');

  await visitor.keyboard.press('Tab');
  await expect(launcher).toBeFocused();
  await visitor.keyboard.press('Enter');
  await expect(panelOf(visitor)).toBeVisible();
  await expect(launcher).toHaveAttribute('aria-expanded', 'true');
  // The focus is in the chat: the widget's iframe has it, and the chat's input is ready to type in.
  await expect(chatFrame(visitor).getByPlaceholder('Type your message...')).toBeVisible();
  await expect
    .poll(() => visitor.evaluate(() => document.querySelector('[data-parley-widget]')?.shadowRoot?.activeElement?.tagName ?? null))
    .toBe('IFRAME');
  // Inside the frame the field takes the focus once the chat is on screen (the embed page's "ready").
  await expect(chatFrame(visitor).getByPlaceholder('Type your message...')).toBeFocused();
  // What is typed now goes into that field, in the cross-origin frame.
  await visitor.keyboard.type('Hello');
  await expect(chatFrame(visitor).getByPlaceholder('Type your message...')).toHaveValue('Hello');

  await visitor.keyboard.press('Escape');
  await expect(panelOf(visitor)).toBeHidden();
  await expect(launcher).toHaveAttribute('aria-expanded', 'false');
  await expect(launcher).toBeFocused();
});
