/// <reference lib="dom" />
// HTTP actions against the whole running stack: the owner declares a write action in the chatbot's
// Actions section against a local target API started here, a visitor asks the chatbot to cancel
// their order, the answer ends on a confirmation card (kept across a reload), nothing runs until
// Confirm, then the target is called once and the answer quotes it; the owner tests the action
// from the section (the request shown with its secret masked) and reads both calls in its log. In the
// widget on a host page, an identified visitor (Parley.identify with the server's userHash) asks
// for their order through an identified-only action whose user id is bound to the verified visitor,
// confirms on the card, and is answered from the local API; the owner reads the call in History, and
// once the visitor asks for a person, under the same answer in the inbox.
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { createBot, makePro, ownerToken, registerOwner, topUpCredit, updateBot } from './fixtures.ts';
import { screenshot } from './screenshots.ts';

/** The section's own screenshots (the whole settings page is too long to read). */
const SCREENSHOTS = new URL('../test-results/screenshots/', import.meta.url).pathname;

/** The Actions section holds no serious or critical accessibility violation. */
async function expectAccessible(page: Page) {
  const { violations } = await new AxeBuilder({ page }).include('#settings-actions').analyze();
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
}

let target: Server;
let origin: string;
const cancelled: string[] = [];
/** The identified visitors' order requests the target API received: user id, order id, the API key header. */
const userOrders: { userId: string; orderId: string; apiKey: string }[] = [];
/** Host pages (another origin than Parley's) embedding the widget, served by the same local server. */
const hostPages = new Map<string, string>();

test.beforeAll(async () => {
  target = createServer((req, res) => {
    const page = hostPages.get(req.url ?? '');
    if (page) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
      return;
    }
    const match = /^\/orders\/([^/]+)\/cancel$/.exec(req.url ?? '');
    const mine = /^\/users\/([^/]+)\/orders\/([^/]+)\/cancel$/.exec(req.url ?? '');
    res.setHeader('content-type', 'application/json');
    if (req.method === 'POST' && match) {
      cancelled.push(match[1]);
      res.end(JSON.stringify({ order: { id: match[1], status: 'cancelled' } }));
    } else if (req.method === 'POST' && mine) {
      userOrders.push({ userId: decodeURIComponent(mine[1]), orderId: mine[2], apiKey: String(req.headers['x-api-key']) });
      res.end(JSON.stringify({ order: { id: mine[2], status: 'cancelled', refund: 'to the card ending 4242' }, internal: 'staff only' }));
    } else res.writeHead(404).end('{}');
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
});
test.afterAll(async () => {
  target.closeAllConnections();
  await new Promise((r) => target.close(r));
});

test('a visitor confirms a write action on its card; it runs once and the owner sees it in the log', async ({ page, context, request }) => {
  await registerOwner(page);
  // The loop's hold (sized for six model calls) is more than a new account's credit.
  await topUpCredit(page);
  const token = await ownerToken(page);
  const headers = { authorization: `Bearer ${token}` };
  const bot = await createBot(request, token, 'Acme Orders', 'Acme ships orders within two days.');
  await page.goto(`/chatbots/${bot._id}#settings-actions`);
  const section = page.getByRole('region', { name: 'Actions', exact: true });
  await expect(section.getByText('No actions yet.')).toBeVisible();
  await section.getByRole('button', { name: 'Add action' }).click();
  const form = section.getByRole('form', { name: 'Add an action' });
  await form.getByLabel('Name', { exact: true }).fill('cancel_order');
  await form.getByLabel('When to use').fill('When the visitor wants to cancel an order');
  await form.getByRole('button', { name: 'Add input' }).click();
  await form.getByLabel('Input 1 name').fill('order_id');
  await form.getByLabel('Required').check();
  await form.getByLabel('Method').selectOption('POST');
  await form.getByLabel('URL').fill(`${origin}/orders/{order_id}/cancel`);
  await form.getByRole('button', { name: 'Add header' }).click();
  await form.getByLabel('Headers 1 name').fill('X-Api-Key');
  await form.getByLabel('Headers 1 value').fill('{secret.API_KEY}');
  await form.getByRole('button', { name: 'Add secret' }).click();
  await form.getByLabel('Secret 1 name').fill('API_KEY');
  await form.getByLabel('Secret 1 value').fill('sk_e2e_orders_secret_9876');
  await form.getByLabel('Fields the bot may read').fill('order.status');
  // A POST: the visitor confirms first unless the owner says otherwise.
  await expect(form.getByLabel('Visitor confirms first')).toBeChecked();
  await expectAccessible(page);
  await form.screenshot({ path: `${SCREENSHOTS}actions-form.png` });
  await form.getByRole('button', { name: 'Add action' }).click();
  const item = section.getByRole('region', { name: 'Action cancel_order' });
  await expect(item).toBeVisible();
  await expect(item.getByText('Visitor confirms')).toBeVisible();
  await expect(item.getByText(`${origin}/orders/{order_id}/cancel`)).toBeVisible();
  await section.screenshot({ path: `${SCREENSHOTS}actions-list.png` });

  const visitor = await context.newPage();
  await visitor.goto(`/chat/${bot.uniqueId}`);
  const input = visitor.getByPlaceholder('Type your message...');
  await input.fill('Please cancel my order #1042');
  await input.press('Enter');
  const card = visitor.getByRole('group', { name: 'Confirm this action' });
  await expect(visitor.getByText('Cancel order (order id: 1042)?')).toBeVisible();
  await expect(card).toBeVisible();
  await expect(card.getByText('Nothing happens until you confirm.')).toBeVisible();
  expect(cancelled).toEqual([]);
  await screenshot(visitor, 'action-confirmation-card');

  // A reload shows the same card again: still nothing has run.
  await visitor.reload();
  await expect(visitor.getByText('Cancel order (order id: 1042)?')).toBeVisible();
  await expect(card).toBeVisible();
  expect(cancelled).toEqual([]);

  await card.getByRole('button', { name: 'Confirm' }).click();
  await expect(visitor.getByText(/Here is what I found: .*cancelled/)).toBeVisible();
  await expect(card).toHaveCount(0);
  expect(cancelled).toEqual(['1042']);
  await screenshot(visitor, 'action-confirmed');

  const log = await request.get(`/api/chatbot/${bot._id}/actions/calls`, { headers });
  expect(log.status()).toBe(200);
  const text = await log.text();
  expect(text).not.toContain('sk_e2e_orders_secret_9876');
  const calls = JSON.parse(text) as { actionName: string; status: string; inputs: unknown }[];
  expect(calls.map((c) => [c.actionName, c.status, c.inputs])).toEqual([['cancel_order', 'ok', { order_id: '1042' }]]);

  // The owner's Test from the section: the request as sent, its secret masked, and what the bot reads.
  await page.reload();
  await item.getByRole('button', { name: 'Test' }).click();
  const test = item.getByRole('form', { name: 'Test cancel_order' });
  await test.getByLabel('order_id').fill('2001');
  await test.getByRole('button', { name: 'Run test' }).click();
  const result = test.getByRole('group', { name: 'Test result' });
  await expect(result.getByText(`POST ${origin}/orders/2001/cancel`)).toBeVisible();
  await expect(result).toContainText('x-api-key: ••••');
  await expect(result).not.toContainText('sk_e2e_orders_secret_9876');
  await expect(result).toContainText('"order.status": "cancelled"');
  expect(cancelled).toEqual(['1042', '2001']);
  await expectAccessible(page);
  await item.screenshot({ path: `${SCREENSHOTS}actions-test-result.png` });

  // Its log: the visitor's call and the test, newest first.
  await item.getByRole('button', { name: 'Recent calls' }).click();
  const rows = item.getByRole('table', { name: 'Latest calls' }).getByRole('row');
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(1)).toContainText('(test)');
  await expect(rows.nth(1)).toContainText('{"order_id":"2001"}');
  await expect(rows.nth(2)).toContainText('{"order_id":"1042"}');
  await expect(rows.nth(2)).toContainText('order.status');
  await expectAccessible(page);
  await item.screenshot({ path: `${SCREENSHOTS}actions-call-log.png` });
});

test('in the widget, an identified visitor confirms an identified-only action bound to their user id; the owner reads the call in History', async ({
  page,
  context,
  request,
}) => {
  // The widget, History and the inbox: longer than one page's journey.
  test.slow();
  const email = await registerOwner(page);
  await topUpCredit(page);
  await makePro(email);
  const token = await ownerToken(page);
  const headers = { authorization: `Bearer ${token}` };
  const bot = await createBot(request, token, 'Acme Accounts', 'Acme ships orders within two days.');
  // The host page's host name is allowed, so it may frame the chat.
  expect((await updateBot(request, token, bot._id, { allowedDomains: ['127.0.0.1'] })).status()).toBe(200);
  // Visitors may ask for a person: the conversation reaches the inbox with its calls.
  const handoff = await request.post('/graphql', {
    headers: { ...headers, 'content-type': 'application/json' },
    data: {
      query: 'mutation ($id: ID!, $input: UpdateChatbotInput!) { updateChatbot(id: $id, input: $input) { id handoff { enabled } } }',
      variables: { id: bot._id, input: { handoff: { enabled: true, timeoutSeconds: 300 } } },
    },
  });
  expect(
    ((await handoff.json()) as { data?: { updateChatbot: { handoff: { enabled: boolean } } } }).data?.updateChatbot.handoff.enabled,
  ).toBe(true);
  const created = await request.post(`/api/chatbot/${bot._id}/actions`, {
    headers,
    data: {
      definition: {
        name: 'cancel_order',
        whenToUse: 'When the visitor wants to cancel one of their orders',
        inputs: [
          { name: 'order_id', type: 'string', required: true },
          { name: 'user_id', type: 'string', source: 'userId', description: "The signed-in customer's id" },
        ],
        method: 'POST',
        url: `${origin}/users/{user_id}/orders/{order_id}/cancel`,
        headers: [{ name: 'X-Api-Key', value: '{secret.API_KEY}' }],
        secrets: [{ name: 'API_KEY', value: 'sk_e2e_widget_secret_5555' }],
        responseFields: ['order.status', 'order.refund'],
        confirm: true,
        identifiedOnly: true,
      },
    },
  });
  expect(created.status()).toBe(201);
  const made = await request.post('/graphql', {
    headers: { ...headers, 'content-type': 'application/json' },
    data: { query: 'mutation ($id: ID!) { createIdentitySecret(chatbotId: $id) { secret } }', variables: { id: bot._id } },
  });
  const secret = ((await made.json()) as { data: { createIdentitySecret: { secret: string } } }).data.createIdentitySecret.secret;

  // The shop's server signs its customer's id; the host page hands it to the widget with Parley.identify.
  const userHash = createHmac('sha256', secret).update('user-42').digest('hex');
  const identity = JSON.stringify({ userId: 'user-42', email: 'ada@example.com', userHash });
  const parley = new URL(test.info().project.use.baseURL!).origin;
  hostPages.set(
    '/account.html',
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme account</title>
<script src="${parley}/widget.js" data-chatbot="${bot.uniqueId}" defer></script>
<script>window.addEventListener('load', () => window.Parley.identify(${identity}));</script></head>
<body style="font:16px/1.5 Georgia,serif;margin:0;padding:48px;background:#fdf6e3"><h1>Your account</h1><p>Orders and returns.</p></body></html>`,
  );
  const visitor = await context.newPage();
  await visitor.goto(`${origin}/account.html`);
  await visitor.locator('[data-parley-widget] button.launcher').click();
  const frame = visitor.frameLocator('[data-parley-widget] iframe');
  const input = frame.getByPlaceholder('Type your message...');
  await expect(input).toBeEnabled();
  await input.fill('Please cancel my order #1042');
  await expect(input).toHaveValue('Please cancel my order #1042');
  await input.press('Enter');
  const card = frame.getByRole('group', { name: 'Confirm this action' });
  await expect(card).toBeVisible();
  await expect(frame.getByText('Cancel order (order id: 1042)?')).toBeVisible();
  expect(userOrders).toEqual([]);
  await screenshot(visitor, 'widget-action-confirmation-card');

  await card.getByRole('button', { name: 'Confirm' }).click();
  await expect(frame.getByText(/Here is what I found: .*cancelled/)).toBeVisible();
  await expect(frame.getByText(/to the card ending 4242/)).toBeVisible();
  await expect(card).toHaveCount(0);
  // The user id is the verified visitor's, never the model's; the secret reached the API only.
  expect(userOrders).toEqual([{ userId: 'user-42', orderId: '1042', apiKey: 'sk_e2e_widget_secret_5555' }]);
  await expect(frame.getByText('staff only')).toHaveCount(0);
  await screenshot(visitor, 'widget-action-confirmed');

  // The owner's History: the call under the answer it gave, its secret never shown.
  await page.goto(`/chatbots/${bot._id}`);
  await page.getByRole('tab', { name: 'History' }).click();
  await page.getByRole('list', { name: 'Conversations' }).getByRole('button').first().click();
  const calls = page.getByRole('list', { name: 'Calls the bot made' });
  await expect(calls).toHaveCount(1);
  await expect(calls).toContainText('cancel_order');
  await expect(calls).toContainText('ok · HTTP 200');
  await expect(calls).toContainText('"order_id":"1042"');
  // The log keeps the model's inputs; the user id came from the verified visitor the conversation names.
  await expect(calls).not.toContainText('user_id');
  await expect(calls).toContainText('order.status, order.refund');
  await expect(page.getByRole('main')).not.toContainText('sk_e2e_widget_secret_5555');
  const answer = page.getByRole('list', { name: 'Messages' }).getByRole('listitem').filter({ has: calls });
  await expect(answer).toContainText('Here is what I found');
  await calls.scrollIntoViewIfNeeded();
  await screenshot(page, 'history-tool-calls');

  // The visitor asks for a person: the agent reads the same call under the same answer in the inbox.
  await frame.getByRole('button', { name: 'Talk to a person' }).click();
  await expect(frame.getByText('Waiting for a person…')).toBeVisible();
  await page.goto('/inbox');
  const row = page.getByRole('region', { name: 'Waiting' }).getByRole('link');
  await expect(row).toHaveCount(1, { timeout: 15_000 });
  await row.click();
  const conversation = page.getByRole('region', { name: /^Conversation with / });
  const inboxCalls = conversation.getByRole('list', { name: 'Calls the bot made' });
  await expect(inboxCalls).toHaveCount(1);
  await expect(inboxCalls).toContainText('cancel_order');
  await expect(inboxCalls).toContainText('Action');
  await expect(inboxCalls).toContainText('ok · HTTP 200');
  await expect(inboxCalls).toContainText('"order_id":"1042"');
  await expect(inboxCalls).toContainText('order.status, order.refund');
  await expect(
    conversation
      .getByRole('list', { name: 'Messages' })
      .getByRole('listitem')
      .filter({ has: page.getByRole('list', { name: 'Calls the bot made' }) }),
  ).toContainText('Here is what I found');
  await expect(page.getByRole('main')).not.toContainText('sk_e2e_widget_secret_5555');
  await inboxCalls.scrollIntoViewIfNeeded();
  await screenshot(page, 'inbox-tool-calls');
});
