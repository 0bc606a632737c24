/// <reference lib="dom" />
// Humans in the loop against the whole running stack (docs/adr/0034-humans-in-the-loop.md), in two
// browsers at once: a visitor in the widget on a stranger's site asks for a person; an Agent of a
// pro workspace sees the conversation arrive in the live inbox without reloading, summarizes it,
// replies, and the visitor reads the reply as it is sent; the agent hands back and the bot answers
// again; removed from the workspace, the agent's open inbox says so at once. And the wait that runs out: nobody answers, the visitor leaves an email, and the owner finds
// the lead on the Leads page.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type APIRequestContext, type FrameLocator, type Page } from '@playwright/test';
import pg from 'pg';
import { makePro, ownerToken, PASSWORD, registerOwner, uniqueEmail } from './fixtures.ts';
import { screenshot } from './screenshots.ts';

const TIMED_OUT = 'Nobody is free to answer right now. Leave your email and we will get back to you.';

/** A stranger's website whose only script is the widget's snippet, on 127.0.0.1 (another origin than Parley's localhost). */
async function startHostPage(parleyOrigin: string) {
  const pages = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    const html = pages.get(req.url ?? '');
    if (!html) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url(uniqueId: string) {
      const path = `/shop-${uniqueId}.html`;
      pages.set(
        path,
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme Shop</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<script src="${parleyOrigin}/widget.js" data-chatbot="${uniqueId}" defer></script></head>
<body><h1>Acme Shop</h1><p>Hand-made goods since 1999.</p></body></html>`,
      );
      return `${origin}${path}`;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let host: Awaited<ReturnType<typeof startHostPage>>;
test.beforeAll(async () => {
  host = await startHostPage(new URL(test.info().project.use.baseURL!).origin);
});
test.afterAll(async () => host?.close());

const chatFrame = (page: Page): FrameLocator => page.frameLocator('[data-parley-widget] iframe');

/** No serious or critical accessibility problem axe can find (colour contrast among them), in the page and its frames. */
async function expectAccessible(page: Page, what: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`);
  expect.soft(serious, `axe on ${what}`).toEqual([]);
}

/**
 * Moves a workspace to the pro plan with $5 of credit (a new workspace has none to answer with) in
 * billing's own data, once billing has opened its account (from a queue), with the credit's ledger entry.
 */
async function makeWorkspacePro(workspaceId: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.E2E_DATABASE_URL });
  await client.connect();
  try {
    await expect
      .poll(
        async () =>
          (
            await client.query(`UPDATE billing."Account" SET plan = 'pro', "creditBalance" = "creditBalance" + 5 WHERE "userId" = $1`, [
              workspaceId,
            ])
          ).rowCount,
        { timeout: 20_000 },
      )
      .toBe(1);
    await client.query(
      `INSERT INTO billing."CreditLedgerEntry" (id, "userId", amount, reason, reference) VALUES ($1, $2, 5, 'e2e_credit', $3)`,
      [randomUUID(), workspaceId, `e2e:${randomUUID()}`],
    );
  } finally {
    await client.end();
  }
}

/** The link of the newest mail to `email` in the local outbox (no SMTP server here) that matches `link`. */
async function mailedLink(page: Page, email: string, link: RegExp): Promise<string> {
  const mail = page.locator('article', { hasText: email }).first();
  await expect(async () => {
    await page.goto('/dev/mail');
    await expect(mail).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  const href = await mail.getByRole('link', { name: link }).first().getAttribute('href');
  expect(href).toBeTruthy();
  return href!;
}

/** A chatbot with one text entry and handoff on, through the API (in the workspace when one is named). */
async function handoffBot(request: APIRequestContext, token: string, opts: { workspaceId?: string; timeoutSeconds?: number } = {}) {
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    ...(opts.workspaceId ? { 'x-workspace-id': opts.workspaceId } : {}),
  };
  const created = await request.post('/api/chatbot', { headers, data: { name: 'Acme Helpdesk' } });
  expect(created.status()).toBe(201);
  const bot = (await created.json()) as { _id: string; uniqueId: string };
  const knowledge = 'Acme ships every order within two working days from the Leeds warehouse.';
  expect(
    (await request.post(`/api/chatbot/${bot._id}/knowledge-base/text`, { headers, data: { text: knowledge, append: true } })).status(),
  ).toBe(200);
  const updated = await request.post('/graphql', {
    headers: { ...headers, 'content-type': 'application/json' },
    data: {
      query:
        'mutation ($id: ID!, $input: UpdateChatbotInput!) { updateChatbot(id: $id, input: $input) { id handoff { enabled timeoutSeconds } } }',
      variables: { id: bot._id, input: { handoff: { enabled: true, timeoutSeconds: opts.timeoutSeconds ?? 300 } } },
    },
  });
  const body = (await updated.json()) as { data?: { updateChatbot: { handoff: { enabled: boolean } } }; errors?: unknown };
  expect(body.errors).toBeUndefined();
  expect(body.data?.updateChatbot.handoff.enabled).toBe(true);
  return bot;
}

test('a visitor in the widget asks for a person; an agent answers from the live inbox and hands back to the bot', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  // The owner: a pro workspace with a chatbot that offers a person, and an Agent invited by email.
  await registerOwner(page, uniqueEmail('handoff-owner'));
  const token = await ownerToken(page);
  const auth = { authorization: `Bearer ${token}` };
  const workspace = await page.request.post('/api/workspaces', { headers: auth, data: { name: 'Acme Desk' } });
  expect(workspace.status()).toBe(201);
  const workspaceId = ((await workspace.json()) as { id: string }).id;
  await makeWorkspacePro(workspaceId);
  const bot = await handoffBot(page.request, token, { workspaceId });
  const agentEmail = uniqueEmail('handoff-agent');
  const invited = await page.request.post('/api/workspace/invitations', {
    headers: { ...auth, 'x-workspace-id': workspaceId },
    data: { email: agentEmail, role: 'AGENT' },
  });
  expect(invited.status()).toBe(201);

  // The agent signs up, accepts from the mail's link, and opens the inbox in the workspace.
  const agent = await (await browser.newContext()).newPage();
  const registered = await agent.request.post('/api/auth/register', {
    data: { email: agentEmail, password: PASSWORD, password2: PASSWORD },
  });
  expect(registered.status()).toBe(201);
  const { token: agentToken, user: agentUser } = (await registered.json()) as { token: string; user: { id: string } };
  const link = await mailedLink(agent, agentEmail, /\/invitations\//);
  const invitation = new URL(link, 'http://localhost').pathname.split('/').pop()!;
  const accepted = await agent.request.post(`/api/invitations/${invitation}/accept`, {
    headers: { authorization: `Bearer ${agentToken}` },
  });
  expect(accepted.status()).toBe(200);
  await agent.evaluate(
    ([t, w]) => {
      localStorage.setItem('token', t);
      localStorage.setItem('workspace', w);
    },
    [agentToken, workspaceId],
  );
  await agent.goto('/inbox');
  await expect(agent.getByRole('heading', { level: 1, name: 'Inbox' })).toBeVisible();

  // The visitor, on the stranger's site, opens the widget and asks; then asks for a person.
  const visitor = await (await browser.newContext()).newPage();
  await visitor.goto(host.url(bot.uniqueId));
  await visitor.locator('[data-parley-widget] button.launcher').click();
  const chat = chatFrame(visitor);
  const input = chat.getByPlaceholder('Type your message...');
  await input.fill('Where is my parcel 1042?');
  await input.press('Enter');
  await expect(chat.getByTestId('assistant-message').last()).toBeVisible();
  await expect(input).toBeEnabled();
  await chat.getByRole('button', { name: 'Talk to a person' }).click();
  await expect(chat.getByText('Waiting for a person…')).toBeVisible();
  await expectAccessible(visitor, 'the widget while waiting for a person');

  // It appears in the agent's inbox without a reload; the agent opens it and asks for a summary.
  const row = agent.getByRole('region', { name: 'Waiting' }).getByRole('link');
  await expect(row).toHaveCount(1, { timeout: 15_000 });
  await row.click();
  await expect(agent).toHaveURL(/\/inbox\/[0-9a-f-]{36}$/);
  const conversation = agent.getByRole('region', { name: /^Conversation with / });
  // The visitor's own message (the bot's answer quotes the question too, in italics).
  await expect(conversation.getByRole('paragraph').filter({ hasText: /^Where is my parcel 1042\?$/ })).toBeVisible();
  await agent.getByRole('button', { name: 'Summarize' }).click();
  await expect(conversation.getByRole('region', { name: 'Summary' })).toContainText(/\w+/, { timeout: 15_000 });
  await screenshot(agent, 'handoff-inbox-agent');

  // The agent's reply reaches the visitor as it is sent, under the agent's name.
  await agent.getByLabel('Reply to the visitor').fill('Hello, I am looking at parcel 1042 now.');
  await agent.getByRole('button', { name: 'Send reply' }).click();
  const reply = chat.getByTestId('agent-message').filter({ hasText: 'Hello, I am looking at parcel 1042 now.' });
  await expect(reply).toBeVisible();
  await expect(chat.getByText(/ is answering$/)).toBeVisible();
  await expect(chat.getByText('Waiting for a person…')).toHaveCount(0);
  await screenshot(visitor, 'handoff-widget-visitor');
  await expectAccessible(visitor, "the widget with an agent's reply");

  // While the person answers, the bot stays silent: the visitor's message reaches the agent only.
  await input.fill('Thank you, it was due yesterday.');
  await input.press('Enter');
  await expect(conversation.getByText('Thank you, it was due yesterday.', { exact: true })).toBeVisible();
  await expect(chat.getByTestId('assistant-message')).toHaveCount(1);

  // Handed back: the banner goes, and the bot answers the next message.
  await agent.getByRole('button', { name: 'Hand back to bot' }).click();
  await expect(chat.getByText(/ is answering$/)).toHaveCount(0);
  await input.fill('Which warehouse ships every order?');
  await input.press('Enter');
  await expect(chat.getByTestId('assistant-message')).toHaveCount(2);
  await expect(chat.getByTestId('assistant-message').last()).toContainText('two working days');

  // The owner removes the agent while the inbox is open: the page says so at once and shows no conversation.
  const removed = await page.request.delete(`/api/workspace/members/${agentUser.id}`, {
    headers: { ...auth, 'x-workspace-id': workspaceId },
  });
  expect(removed.status()).toBe(200);
  await expect(agent.getByRole('heading', { name: 'You no longer have access to this workspace.' })).toBeVisible();
  await expect(conversation).toHaveCount(0);
  await expect(agent.getByRole('region', { name: 'Waiting' })).toHaveCount(0);
  await screenshot(agent, 'handoff-inbox-access-ended');
  await expectAccessible(agent, 'the inbox once access ended');
});

test('nobody answers in time: the visitor leaves an email, and the lead is on the Leads page', async ({ page, browser }) => {
  // The shortest wait an owner may set is 30 s.
  test.setTimeout(120_000);
  const ownerEmail = await registerOwner(page, uniqueEmail('handoff-timeout'));
  await makePro(ownerEmail);
  const token = await ownerToken(page);
  const bot = await handoffBot(page.request, token, { timeoutSeconds: 30 });

  const visitor = await (await browser.newContext()).newPage();
  await visitor.goto(`/chat/${bot.uniqueId}`);
  const input = visitor.getByPlaceholder('Type your message...');
  await input.fill('Can someone call me back?');
  await input.press('Enter');
  await expect(visitor.getByTestId('assistant-message').last()).toBeVisible();
  await expect(input).toBeEnabled();
  await visitor.getByRole('button', { name: 'Talk to a person' }).click();
  await expect(visitor.getByText('Waiting for a person…')).toBeVisible();

  await expect(visitor.getByText(TIMED_OUT)).toBeVisible({ timeout: 60_000 });
  await expect(visitor.getByText('Waiting for a person…')).toHaveCount(0);
  await expectAccessible(visitor, 'the chat page asking for an email');
  const visitorEmail = uniqueEmail('visitor');
  await visitor.getByLabel('Your email').fill(visitorEmail);
  await visitor.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(visitor.getByText(`Thanks! We will get back to you at ${visitorEmail}.`)).toBeVisible();
  await screenshot(visitor, 'handoff-timeout-visitor');

  await page.goto('/leads');
  await expect(page.getByRole('heading', { level: 1, name: 'Leads' })).toBeVisible();
  // One row (a table at this width), its email a mail link, its source the wait nobody answered.
  const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: visitorEmail }) });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('Nobody answered');
  await expect(row.getByRole('link', { name: 'Open conversation' })).toBeVisible();
});
