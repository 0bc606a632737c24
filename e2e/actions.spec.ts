/// <reference lib="dom" />
// HTTP actions against the whole running stack: the owner declares a write action over REST against
// a local target API started here, a visitor asks the chatbot to cancel their order, the answer ends
// on a confirmation card (kept across a reload), nothing runs until Confirm, then the target is
// called once and the answer quotes it; the owner reads the call in the log.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { createBot, ownerToken, registerOwner, topUpCredit } from './fixtures.ts';
import { screenshot } from './screenshots.ts';

let target: Server;
let origin: string;
const cancelled: string[] = [];

test.beforeAll(async () => {
  target = createServer((req, res) => {
    const match = /^\/orders\/([^/]+)\/cancel$/.exec(req.url ?? '');
    res.setHeader('content-type', 'application/json');
    if (req.method === 'POST' && match) {
      cancelled.push(match[1]);
      res.end(JSON.stringify({ order: { id: match[1], status: 'cancelled' } }));
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
  const created = await request.post(`/api/chatbot/${bot._id}/actions`, {
    headers,
    data: {
      definition: {
        name: 'cancel_order',
        whenToUse: 'When the visitor wants to cancel an order',
        inputs: [{ name: 'order_id', type: 'string', required: true }],
        method: 'POST',
        url: `${origin}/orders/{order_id}/cancel`,
        headers: [{ name: 'X-Api-Key', value: '{secret.API_KEY}' }],
        secrets: [{ name: 'API_KEY', value: 'sk_e2e_orders_secret_9876' }],
        responseFields: ['order.status'],
      },
    },
  });
  expect(created.status()).toBe(201);

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
});
