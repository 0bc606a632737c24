// MCP tools against the whole running stack (docs/product.md, MCP tools): the owner connects a remote
// MCP server (built with the official SDK's server, run by this spec on 127.0.0.1, which the
// end-to-end stack's KNOWLEDGE_URL_ALLOW_PRIVATE lets the chatbot service reach) in the chatbot's
// Tools section, picks a tool, and a visitor's question is answered from it on the public chat page;
// a tool marked "Visitor confirms first" shows the visitor's card and runs once, on Confirm (ADR 60).
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { startFakeMcpServer } from '../services/common/src/testing/fake-mcp-server.ts';
import { createBot, ownerToken, registerOwner, topUpCredit, uniqueEmail } from './fixtures.ts';
import { screenshot } from './screenshots.ts';

test('the owner connects an MCP server, picks a tool, and a visitor is answered from it', async ({ page, request }) => {
  const mcp = await startFakeMcpServer();
  try {
    await registerOwner(page, uniqueEmail('mcp'));
    await topUpCredit(page);
    const token = await ownerToken(page);
    const bot = await createBot(request, token, 'Shop Bot', 'Orders ship within two days of payment.');

    await page.goto(`/chatbots/${bot._id}#settings-tools`);
    const card = page.getByRole('region', { name: 'Tools' });
    await card.getByLabel('Name').fill('shop');
    await card.getByLabel('Server URL').fill(mcp.url);
    await card.getByLabel('Secret (optional)').fill('mcp_token_0123456789abcdef');
    await card.getByRole('button', { name: 'Connect server' }).click();
    const server = card.getByRole('region', { name: 'MCP server shop' });
    await expect(server.getByText('order_status')).toBeVisible();
    await expect(server.getByText('••••cdef')).toBeVisible();
    await expect(page.locator('body')).not.toContainText('mcp_token_0123456789abcdef');

    await server.getByRole('checkbox', { name: /order_status/ }).check();
    await expect(server.getByRole('checkbox', { name: 'Visitor confirms first' })).not.toBeChecked();
    await server.getByLabel('Fields the bot may read from order_status').fill('order.status');
    await server.getByRole('button', { name: 'Save tools' }).click();
    await expect(server.getByText('1 tool in use')).toBeVisible();
    await expect(server.getByText('Saved.')).toBeVisible();
    const { violations } = await new AxeBuilder({ page }).include('#settings-tools').analyze();
    expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
    await page.locator('#settings-tools').scrollIntoViewIfNeeded();
    await screenshot(page, 'mcp-servers-card', { fullPage: false });

    await page.goto(`/chat/${bot.uniqueId}`);
    await page.getByRole('textbox').fill('Where is my order #1042?');
    await page.keyboard.press('Enter');
    await expect(page.getByText(/"order.status":"shipped"/)).toBeVisible({ timeout: 20_000 });
    await expect(page.locator('body')).not.toContainText('staff only');
    expect(mcp.calls).toEqual([{ name: 'order_status', args: { order_id: '1042' } }]);
    await screenshot(page, 'mcp-tools-answer');

    // A write tool: the owner keeps "Visitor confirms first" (on, as the server does not mark it read-only).
    await page.goto(`/chatbots/${bot._id}#settings-tools`);
    await server.getByRole('checkbox', { name: /cancel_order/ }).check();
    const confirmFirst = server.getByRole('checkbox', { name: 'Visitor confirms first' });
    await expect(confirmFirst).toHaveCount(2);
    await expect(confirmFirst.nth(1)).toBeChecked();
    await expect(server.getByText(/runs only after the visitor presses Confirm/)).toBeVisible();
    await server.getByRole('button', { name: 'Save tools' }).click();
    await expect(server.getByText('2 tools in use')).toBeVisible();

    await page.goto(`/chat/${bot.uniqueId}`);
    await page.getByRole('textbox').fill('Please cancel my shop order #77');
    await page.keyboard.press('Enter');
    const confirmation = page.getByRole('group', { name: 'Confirm this action' });
    await expect(confirmation).toBeVisible({ timeout: 20_000 });
    await expect(page.getByText('Cancel order (order id: 77)?')).toBeVisible();
    expect(mcp.calls.map((c) => c.name)).toEqual(['order_status']);
    await screenshot(page, 'mcp-tool-confirmation-card');
    await confirmation.getByRole('button', { name: 'Confirm' }).click();
    await expect(page.getByText(/Here is what I found: Order 77 cancelled/)).toBeVisible();
    await expect(confirmation).toHaveCount(0);
    expect(mcp.calls).toEqual([
      { name: 'order_status', args: { order_id: '1042' } },
      { name: 'cancel_order', args: { order_id: '77' } },
    ]);
  } finally {
    await mcp.close();
  }
});
