/// <reference lib="dom" />
// Every screen, as a person and a screen reader meet it: its own browser-tab title ("… — Parley")
// and no serious or critical accessibility problem that axe can find (colour contrast among them),
// signed out, as a free owner with a chatbot that has knowledge and usage, and as a pro owner; and
// two-factor sign-in's set-up, recovery codes and code step.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { Secret, TOTP } from 'otpauth';
import pg from 'pg';
import { createBot, makePro, ownerToken, ownerUsage, PASSWORD, registerOwner, uniqueEmail, updateBot } from './fixtures.ts';
import { screenshot } from './screenshots.ts';

/** Asserts the screen's title, then that axe reports nothing serious or critical on it. */
async function expectScreen(page: Page, title: string): Promise<void> {
  await expect(page).toHaveTitle(title);
  // Transitions settle first, so contrast is measured on the colours a person ends up seeing (endless
  // ones, a spinner's, never finish).
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((animation) => animation.effect?.getComputedTiming().endTime !== Infinity)
        .map((animation) => animation.finished.catch(() => undefined)),
    ),
  );
  const { violations } = await new AxeBuilder({ page }).analyze();
  const serious = violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({
      rule: violation.id,
      help: violation.help,
      nodes: violation.nodes.map((node) => `${node.target.join(' ')}: ${node.failureSummary ?? ''}`),
    }));
  expect.soft(serious, `axe on ${title}`).toEqual([]);
}

test('signed-out screens: landing, pricing, sign in and up, password reset, legal pages and 404', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1, name: 'Create AI Chatbots with Your Knowledge' })).toBeVisible();
  await expectScreen(page, 'AI Chatbots with Your Knowledge — Parley');
  await screenshot(page, 'screens-landing');

  const screens: Array<[path: string, heading: string, title: string]> = [
    ['/pricing', 'Simple plans that grow with you', 'Pricing — Parley'],
    ['/login', 'Welcome back', 'Sign in — Parley'],
    ['/register', 'Create an account', 'Sign up — Parley'],
    ['/forgot-password', 'Reset your password', 'Forgot password — Parley'],
    ['/reset-password?token=not-a-real-token', 'Choose a new password', 'Reset password — Parley'],
    ['/terms', 'Terms and Conditions', 'Terms and Conditions — Parley'],
    ['/privacy', 'Privacy Policy', 'Privacy Policy — Parley'],
    ['/no-such-page', 'Page not found', 'Page not found — Parley'],
  ];
  for (const [path, heading, title] of screens) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
    await expectScreen(page, title);
  }

  // The public chat page of a chatbot that does not exist: the page's own title, its error and Try Again.
  await page.goto('/chat/no-such-chatbot');
  await expect(page.getByText('Chatbot not found or inactive')).toBeVisible();
  await expectScreen(page, 'Chat — Parley');
});

test('an owner’s screens, the chatbot’s tabs and its public page, free and then pro', async ({ page, context, request }) => {
  // Some twenty screens, each read whole by axe, and the Tests section.
  test.setTimeout(300_000);
  const email = await registerOwner(page, uniqueEmail('screens'));
  const token = await ownerToken(page);
  const bot = await createBot(request, token, 'Acme Support', 'Acme opens at nine in the morning and closes at six in the evening.');
  const qa = await request.post(`/api/chatbot/${bot._id}/knowledge-base/qa`, {
    headers: { authorization: `Bearer ${token}` },
    data: { question: 'Do you sell gift cards?', answer: 'Yes, from $10 at the front desk.' },
  });
  expect(qa.status()).toBe(201);

  // The public page, with a conversation on it (the usage and analytics screens then have figures).
  const visitor = await context.newPage();
  await visitor.goto(`/chat/${bot.uniqueId}`);
  await expect(visitor.getByRole('heading', { name: 'Acme Support' })).toBeVisible();
  await expectScreen(visitor, 'Acme Support — Parley');
  const input = visitor.getByPlaceholder('Type your message...');
  await input.fill('When does Acme open in the morning?');
  await input.press('Enter');
  await expect(visitor.getByTestId('assistant-message').last()).toContainText('nine in the morning');
  await expect(input).toBeEnabled();
  await expectScreen(visitor, 'Acme Support — Parley');
  await screenshot(visitor, 'screens-public-chat');
  await visitor.close();
  await expect.poll(async () => (await ownerUsage(request, token)).totalRequests, { timeout: 20_000 }).toBeGreaterThan(0);

  await page.goto('/dashboard');
  await expect(page.getByRole('heading', { level: 1, name: /Welcome back/ })).toBeVisible();
  await expect(page.getByText('Acme Support').first()).toBeVisible();
  await expectScreen(page, 'Dashboard — Parley');

  await page.goto('/account');
  await expect(page.getByRole('heading', { level: 1, name: 'Account' })).toBeVisible();
  await expect(page.getByLabel('Loading account')).toHaveCount(0);
  await expectScreen(page, 'Account — Parley');

  await page.goto('/usage');
  await expect(page.getByRole('heading', { level: 1, name: 'Usage Details' })).toBeVisible();
  await expect(page.getByRole('cell', { name: 'Acme Support' }).first()).toBeVisible();
  await expect(page.locator('.recharts-surface').first()).toBeVisible();
  await expectScreen(page, 'Usage — Parley');
  await screenshot(page, 'screens-usage');

  await page.goto('/chatbots');
  await expect(page.getByRole('heading', { level: 1, name: 'My Chatbots' })).toBeVisible();
  await expect(page.getByText('Acme Support').first()).toBeVisible();
  await expectScreen(page, 'My Chatbots — Parley');

  await page.goto('/chatbots/create');
  await expect(page.getByRole('heading', { level: 1, name: 'New chatbot' })).toBeVisible();
  await expectScreen(page, 'New chatbot — Parley');

  // The workspace's leads: none yet, then the filters narrowed.
  await page.goto('/leads');
  await expect(page.getByRole('heading', { level: 1, name: 'Leads' })).toBeVisible();
  await expect(page.getByText('No leads yet.')).toBeVisible();
  await expectScreen(page, 'Leads — Parley');
  await page.getByLabel('Chatbot').selectOption({ label: 'Acme Support' });
  await expect(page.getByText('No leads match the filter.')).toBeVisible();
  await expectScreen(page, 'Leads — Parley');
  await screenshot(page, 'screens-leads-empty');

  // The chatbot's tabs on the free plan: its knowledge sources, Embed (appearance, placement, limits),
  // Analytics with its upgrade prompt, and History locked.
  await page.goto(`/chatbots/${bot._id}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Acme Support' })).toBeVisible();
  await expect(page.getByText('Do you sell gift cards?').first()).toBeVisible();
  await expectScreen(page, 'Settings · Acme Support — Parley');
  for (const source of ['File', 'Website', 'Q&A', 'Text']) {
    await page.getByRole('tab', { name: source, exact: true }).click();
    await expect(page.getByRole('tab', { name: source, exact: true })).toHaveAttribute('aria-selected', 'true');
    await expectScreen(page, 'Settings · Acme Support — Parley');
  }
  await page.getByRole('tab', { name: 'Embed' }).click();
  await expect(page.getByRole('heading', { name: 'Appearance' })).toBeVisible();
  await expectScreen(page, 'Embed · Acme Support — Parley');
  await page.getByRole('tab', { name: 'Analytics' }).click();
  await expect(page.getByRole('region', { name: 'Conversations', exact: true })).toBeVisible();
  await expectScreen(page, 'Analytics · Acme Support — Parley');

  // Pro: the full analytics and the History tab with the visitor's conversation.
  await makePro(email);
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Acme Support' })).toBeVisible();
  await page.getByRole('tab', { name: 'Analytics' }).click();
  await expect(page.locator('#chatbot-panel-analytics .recharts-surface').first()).toBeVisible();
  await expectScreen(page, 'Analytics · Acme Support — Parley');
  await screenshot(page, 'screens-analytics');
  await page.getByRole('tab', { name: 'History' }).click();
  await page
    .getByText(/Session ID/)
    .first()
    .click();
  await expect(page.locator('#chatbot-panel-history').getByText('When does Acme open in the morning?').first()).toBeVisible();
  await expectScreen(page, 'History · Acme Support — Parley');
  await screenshot(page, 'screens-history');

  // The Tests section of the settings (docs/adr/0050-quality-loop.md), with its case-writing dialog.
  await page.getByRole('tab', { name: 'Settings' }).click();
  await page.goto(`/chatbots/${bot._id}#settings-tests`);
  const tests = page.getByRole('region', { name: 'Tests' });
  await expect(tests.getByText('No test cases yet.', { exact: false })).toBeVisible();
  await expectScreen(page, 'Settings · Acme Support — Parley');
  await tests.getByRole('button', { name: 'Add test case' }).click();
  await expect(page.getByRole('dialog', { name: 'Add test case' })).toBeVisible();
  await expectScreen(page, 'Settings · Acme Support — Parley');
  await screenshot(page, 'screens-tests');
});

test('the workspace screens: switcher, members, audit log and an invitation, on a desktop and a phone', async ({ page, browser }) => {
  test.setTimeout(180_000);
  await registerOwner(page, uniqueEmail('screens-team'));
  const token = await ownerToken(page);
  const graphql = async (query: string, variables: Record<string, unknown> = {}, workspaceId?: string) => {
    const res = await page.request.post('/graphql', {
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        ...(workspaceId ? { 'x-workspace-id': workspaceId } : {}),
      },
      data: { query, variables },
    });
    const body = (await res.json()) as { data?: Record<string, { id?: string }>; errors?: unknown };
    expect(body.errors).toBeUndefined();
    return body.data!;
  };
  const { createWorkspace } = await graphql('mutation ($name: String!) { createWorkspace(name: $name) { id } }', {
    name: 'Acme Support Team',
  });
  const workspaceId = createWorkspace.id!;
  await page.evaluate((id) => localStorage.setItem('workspace', id), workspaceId);
  // The workspace's one free seat is its owner's; a second needs pro, which billing opens asynchronously.
  const db = new pg.Client({ connectionString: process.env.E2E_DATABASE_URL });
  await db.connect();
  try {
    await expect
      .poll(async () => (await db.query(`UPDATE billing."Account" SET plan = 'pro' WHERE "userId" = $1`, [workspaceId])).rowCount, {
        timeout: 20_000,
      })
      .toBe(1);
  } finally {
    await db.end();
  }
  const inviteeEmail = uniqueEmail('screens-invitee');
  await graphql('mutation ($email: String!) { inviteMember(email: $email, role: EDITOR) { id } }', { email: inviteeEmail }, workspaceId);

  for (const [width, height, suffix] of [
    [1280, 800, 'desktop'],
    [375, 812, 'phone'],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.goto('/workspace/members');
    await expect(page.getByRole('heading', { level: 1, name: 'Members' })).toBeVisible();
    await expect(page.getByRole('region', { name: 'Pending invitations' }).getByText(inviteeEmail)).toBeVisible();
    await expectScreen(page, 'Members — Parley');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    await screenshot(page, `screens-members-${suffix}`);

    await page.getByRole('button', { name: /^Workspace:/ }).click();
    await expect(page.getByRole('button', { name: 'Create workspace' })).toBeVisible();
    await expectScreen(page, 'Members — Parley');
    await screenshot(page, `screens-switcher-${suffix}`);
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await expect(page.getByRole('dialog', { name: 'Create workspace' })).toBeVisible();
    await expectScreen(page, 'Members — Parley');
    await screenshot(page, `screens-create-workspace-${suffix}`);
    await page.keyboard.press('Escape');

    await page.getByRole('listitem').filter({ hasText: inviteeEmail }).getByRole('button', { name: 'Revoke' }).waitFor();
    await page.goto('/workspace/audit-log');
    await expect(page.getByRole('heading', { level: 1, name: 'Audit log' })).toBeVisible();
    await expect(page.getByRole('table')).toBeVisible();
    await expectScreen(page, 'Audit log — Parley');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    await screenshot(page, `screens-audit-log-${suffix}`);

    await page.goto('/dashboard');
    await expect(page.getByTestId('workspace-name')).toHaveText('Acme Support Team');
    await expectScreen(page, 'Dashboard — Parley');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    await screenshot(page, `screens-dashboard-workspace-${suffix}`);
  }

  // The invitation, as the invitee meets it signed out, and a link that is not (or no longer) valid.
  const visitor = await (await browser.newContext()).newPage();
  const mail = visitor.locator('article', { hasText: inviteeEmail }).first();
  await expect(async () => {
    await visitor.goto('/dev/mail');
    await expect(mail).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  const link = await mail
    .getByRole('link', { name: /\/invitations\// })
    .first()
    .getAttribute('href');
  for (const [width, height, suffix] of [
    [1280, 800, 'desktop'],
    [375, 812, 'phone'],
  ] as const) {
    await visitor.setViewportSize({ width, height });
    await visitor.goto(link!);
    await expect(visitor.getByRole('heading', { level: 1, name: 'Join Acme Support Team' })).toBeVisible();
    await expectScreen(visitor, 'Invitation — Parley');
    expect(await visitor.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    await screenshot(visitor, `screens-invitation-${suffix}`);
    await visitor.goto('/invitations/not-a-real-token');
    await expect(visitor.getByRole('heading', { level: 1, name: 'This invitation cannot be used' })).toBeVisible();
    await expectScreen(visitor, 'Invitation — Parley');
    await screenshot(visitor, `screens-invitation-invalid-${suffix}`);
  }
  await visitor.context().close();
});

test('the dashboard of a person in no workspace, on a desktop and a phone', async ({ page, request }) => {
  test.setTimeout(120_000);
  // They transferred their personal workspace to a member and left it (through the API here; teams.spec.ts does it in the page).
  const email = await registerOwner(page, uniqueEmail('screens-nobody'));
  const token = await ownerToken(page);
  await makePro(email);
  const heirEmail = uniqueEmail('screens-heir');
  const registered = await request.post('/api/auth/register', { data: { email: heirEmail, password: PASSWORD, password2: PASSWORD } });
  expect(registered.status()).toBe(201);
  const heir = (await registered.json()) as { token: string; user: { id: string } };
  const as = (bearer: string) => ({ authorization: `Bearer ${bearer}` });
  expect(
    (await request.post('/api/workspace/invitations', { headers: as(token), data: { email: heirEmail, role: 'admin' } })).status(),
  ).toBe(201);
  const mail = page.locator('article', { hasText: heirEmail }).first();
  await expect(async () => {
    await page.goto('/dev/mail');
    await expect(mail).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  const link = await mail
    .getByRole('link', { name: /\/invitations\// })
    .first()
    .getAttribute('href');
  const accepted = await request.post(`/api/invitations/${new URL(link!).pathname.split('/').pop()}/accept`, { headers: as(heir.token) });
  expect(accepted.status()).toBe(200);
  expect((await request.post('/api/workspace/transfer', { headers: as(token), data: { userId: heir.user.id } })).status()).toBe(200);
  expect((await request.post('/api/workspace/leave', { headers: as(token) })).status()).toBe(200);

  for (const [width, height, suffix] of [
    [1280, 800, 'desktop'],
    [375, 812, 'phone'],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.goto('/dashboard');
    await expect(page.getByRole('heading', { level: 1, name: 'You are not a member of any workspace' })).toBeVisible();
    await expectScreen(page, 'No workspace — Parley');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    await screenshot(page, `screens-no-workspace-${suffix}`);
    await page.getByRole('button', { name: /^Workspace:/ }).click();
    await expect(page.getByText('You are not a member of any workspace.')).toBeVisible();
    await expectScreen(page, 'No workspace — Parley');
    await screenshot(page, `screens-no-workspace-switcher-${suffix}`);
    await page.keyboard.press('Escape');
    await page.getByRole('main').getByRole('button', { name: 'Create workspace' }).click();
    await expect(page.getByRole('dialog', { name: 'Create workspace' })).toBeVisible();
    await expectScreen(page, 'No workspace — Parley');
    await page.keyboard.press('Escape');
  }
});

test('the inbox: the upgrade prompt, then a waiting conversation arriving live, claimed and answered, on a desktop and a phone', async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const email = await registerOwner(page, uniqueEmail('screens-inbox'));
  const token = await ownerToken(page);
  await page.goto('/inbox');
  await expect(page.getByRole('region', { name: 'Live inbox' })).toBeVisible();
  await expectScreen(page, 'Inbox — Parley');
  await screenshot(page, 'screens-inbox-free');

  await makePro(email);
  const bot = await createBot(request, token, 'Acme Support', 'Acme opens at nine in the morning.');
  expect((await updateBot(request, token, bot._id, { handoff: { enabled: true } })).status()).toBe(200);
  const db = new pg.Client({ connectionString: process.env.E2E_DATABASE_URL });
  await db.connect();
  let conversationId: string;
  try {
    const sent = await request.post(`/api/chatbot/public/${bot.uniqueId}/chat`, { data: { message: 'Where is my parcel?' } });
    expect(sent.status()).toBe(200);
    const { sessionId } = (await sent.json()) as { sessionId: string };
    // The inbox is open before the visitor asks: the conversation must arrive live, with the badge.
    await page.goto('/inbox');
    await expect(page.getByText('Nobody is waiting for a person.')).toBeVisible();
    await expect(page.getByRole('status', { name: /waiting/ })).toHaveCount(0);
    // The visitor asks for a person, as the chat page's "Talk to a person" does.
    const asked = await request.post(`/api/chatbot/public/${bot.uniqueId}/handoff`, { data: { sessionId } });
    expect(asked.status()).toBe(200);
    expect(((await asked.json()) as { status: string }).status).toBe('waiting');
    const { rows } = await db.query(`SELECT id FROM chat."Conversation" WHERE "sessionId" = $1`, [sessionId]);
    conversationId = rows[0].id;
    await expect(page.getByRole('region', { name: 'Waiting' }).getByRole('link', { name: /Visitor/ })).toBeVisible();
    await expect(page.getByRole('status', { name: '1 waiting' })).toBeVisible();
  } finally {
    await db.end();
  }

  for (const [width, height, suffix] of [
    [1280, 800, 'desktop'],
    [375, 812, 'phone'],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.goto('/inbox');
    await expect(page.getByRole('heading', { level: 1, name: 'Inbox' })).toBeVisible();
    const row = page.getByRole('link', { name: /Visitor/ });
    await expect(row).toBeVisible();
    await expect(page.getByRole('switch', { name: 'Email me when a visitor is waiting' })).toBeVisible();
    await expectScreen(page, 'Inbox — Parley');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    await screenshot(page, `screens-inbox-${suffix}`);

    await row.click();
    await expect(page).toHaveURL(new RegExp(`/inbox/${conversationId}$`));
    const panel = page.getByRole('region', { name: 'Conversation with Visitor' });
    // The visitor's own words (the bot's Markdown answer quotes them too).
    await expect(panel.getByRole('paragraph').filter({ hasText: /^Where is my parcel\?$/ })).toBeVisible();
    if (suffix === 'desktop') {
      await expect(page.getByRole('status', { name: '1 waiting' })).toBeVisible();
      await panel.getByRole('button', { name: 'Claim' }).click();
      await expect(panel.getByText('You are answering')).toBeVisible();
      await panel.getByRole('textbox', { name: 'Reply to the visitor' }).fill('Hello, I am looking into it.');
      await panel.getByRole('button', { name: 'Send reply' }).click();
      // In the messages (the reply box holds the words until the send is answered).
      await expect(panel.getByRole('list', { name: 'Messages' }).getByText('Hello, I am looking into it.')).toBeVisible();
      await expect(panel.getByRole('textbox', { name: 'Reply to the visitor' })).toHaveValue('');
      await panel.getByRole('textbox', { name: 'Internal note' }).fill('Parcel left the depot on Monday.');
      await panel.getByRole('button', { name: 'Add note' }).click();
      await expect(panel.getByRole('listitem', { name: 'Internal note' })).toContainText('Parcel left the depot on Monday.');
      await expect(page.getByRole('status', { name: /waiting/ })).toHaveCount(0);
    }
    // A conversation's tab names its visitor, so several open tabs tell apart.
    await expectScreen(page, 'Visitor — Inbox — Parley');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    await screenshot(page, `screens-inbox-conversation-${suffix}`);
  }

  // The chatbot's History shows the same conversation: the reply under its author "(team)", the note as in the inbox.
  for (const [width, height, suffix] of [
    [1280, 800, 'desktop'],
    [375, 812, 'phone'],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.goto(`/chatbots/${bot._id}?conversation=${conversationId}`);
    const messages = page.locator('#chatbot-panel-history').getByRole('list', { name: 'Messages' });
    const reply = messages.getByRole('listitem').filter({ hasText: 'Hello, I am looking into it.' });
    await expect(reply.getByText(/ \(team\)$/)).toBeVisible();
    await expect(messages.getByRole('listitem', { name: 'Internal note' })).toContainText('Parcel left the depot on Monday.');
    await expect(messages).not.toContainText('System Message');
    await expectScreen(page, 'History · Acme Support — Parley');
    // The page and its messages fit the screen, the tab row included.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    expect(await messages.evaluate((list) => list.scrollWidth <= list.clientWidth)).toBe(true);
    const box = (await messages.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(width);
    await messages.scrollIntoViewIfNeeded();
    await screenshot(page, `screens-history-team-${suffix}`);
  }
});

test('the webhooks screens: endpoints, adding one, a secret and the delivery log, on a desktop and a phone', async ({ page }) => {
  test.setTimeout(180_000);
  // A receiver on 127.0.0.1 (the end-to-end stack lets the service call it): one answer succeeds, the other fails.
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url?.endsWith('/down')) res.writeHead(503, { 'content-type': 'text/plain' }).end('Service unavailable: back in a minute');
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  try {
    await registerOwner(page, uniqueEmail('screens-webhooks'));
    const token = await ownerToken(page);
    await page.goto('/workspace/webhooks');
    await expect(page.getByRole('heading', { name: 'No endpoints yet' })).toBeVisible();
    await expectScreen(page, 'Webhooks — Parley');
    await screenshot(page, 'screens-webhooks-empty');

    const graphql = async (query: string, variables: Record<string, unknown>) => {
      const res = await page.request.post('/graphql', {
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        data: { query, variables },
      });
      const body = (await res.json()) as { data?: Record<string, { endpoint?: { id: string } }>; errors?: unknown };
      expect(body.errors).toBeUndefined();
      return body.data!;
    };
    const create = 'mutation ($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } } }';
    const send = 'mutation ($id: ID!, $type: String) { sendTestWebhook(endpointId: $id, eventType: $type) { id } }';
    const up = (
      await graphql(create, { input: { url: `${base}/parley`, events: ['conversation.started', 'message.created', 'feedback.created'] } })
    ).createWebhookEndpoint.endpoint!.id;
    const down = (await graphql(create, { input: { url: `${base}/down`, events: ['credit.low'], enabled: false } })).createWebhookEndpoint
      .endpoint!.id;
    await graphql(send, { id: up, type: 'message.created' });
    await graphql(send, { id: up, type: 'feedback.created' });
    await graphql(send, { id: down, type: 'credit.low' });

    for (const [width, height, suffix] of [
      [1280, 800, 'desktop'],
      [375, 812, 'phone'],
    ] as const) {
      await page.setViewportSize({ width, height });
      await page.goto('/workspace/webhooks');
      const card = page.getByRole('region', { name: `${base}/parley` });
      await expect(card.getByText('Succeeded')).toBeVisible({ timeout: 20_000 });
      await expect(page.getByRole('region', { name: `${base}/down` }).getByText('503')).toBeVisible({ timeout: 20_000 });
      await expectScreen(page, 'Webhooks — Parley');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await screenshot(page, `screens-webhooks-${suffix}`);

      // A table on a desktop, a list on a phone: either way one entry per delivery, each with Redeliver.
      const deliveries = (region: Locator) =>
        (suffix === 'phone' ? region.getByRole('listitem') : region.getByRole('row')).filter({
          has: page.getByRole('button', { name: 'Redeliver' }),
        });
      await card.getByRole('button', { name: 'Delivery log' }).click();
      await expect(deliveries(card)).toHaveCount(2);
      await deliveries(card).first().getByRole('button', { name: 'Response' }).click();
      await expect(card.getByText('{"received":true}').filter({ visible: true })).toBeVisible();
      const failing = page.getByRole('region', { name: `${base}/down` });
      await failing.getByRole('button', { name: 'Delivery log' }).click();
      await deliveries(failing).first().getByRole('button', { name: 'Response' }).click();
      await expect(failing.getByText('Service unavailable: back in a minute').filter({ visible: true })).toBeVisible();
      await expectScreen(page, 'Webhooks — Parley');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await screenshot(page, `screens-webhooks-log-${suffix}`);

      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await expect(page.getByRole('dialog', { name: 'Add endpoint' })).toBeVisible();
      await expectScreen(page, 'Webhooks — Parley');
      await screenshot(page, `screens-webhooks-add-${suffix}`);
      await page.keyboard.press('Escape');

      await card.getByRole('button', { name: 'Send test event' }).click();
      await expect(page.getByRole('dialog', { name: 'Send test event' })).toBeVisible();
      await expectScreen(page, 'Webhooks — Parley');
      await screenshot(page, `screens-webhooks-test-${suffix}`);
      await page.keyboard.press('Escape');

      await card.getByRole('button', { name: 'Roll secret' }).click();
      await page.getByRole('dialog', { name: 'Roll the signing secret?' }).getByRole('button', { name: 'Roll secret' }).click();
      await expect(page.getByRole('dialog', { name: 'New signing secret' }).getByLabel('Signing secret')).toHaveText(/^whsec_/);
      await expectScreen(page, 'Webhooks — Parley');
      await screenshot(page, `screens-webhooks-secret-${suffix}`);
      await page.getByRole('button', { name: 'Done' }).click();
    }
  } finally {
    await new Promise((resolve) => receiver.close(resolve));
  }
});

test('the Developers page, its dialogs and the API reference, wide and on a phone', async ({ page, request }) => {
  test.setTimeout(120_000);
  await registerOwner(page, uniqueEmail('screens-developers'));
  const token = await ownerToken(page);
  await createBot(request, token, 'Acme Support', 'Acme opens at nine in the morning.');

  await page.goto('/workspace/developers');
  await expect(page.getByRole('heading', { level: 1, name: 'Developers' })).toBeVisible();
  await expect(page.getByText('No API keys yet.', { exact: false })).toBeVisible();
  await expectScreen(page, 'Developers — Parley');

  await page.getByRole('button', { name: 'Create key' }).click();
  const create = page.getByRole('dialog', { name: 'Create API key' });
  await create.getByLabel('Name').fill('CI deploys');
  await create.getByRole('checkbox', { name: /chatbots:read/ }).check();
  await create.getByRole('radio', { name: 'Only some chatbots' }).check();
  await create.getByRole('checkbox', { name: 'Acme Support' }).check();
  await expectScreen(page, 'Developers — Parley');
  await screenshot(page, 'screens-developers-create');
  await create.getByRole('button', { name: 'Create key' }).click();
  const reveal = page.getByRole('dialog', { name: 'Your new API key' });
  await expect(reveal.getByRole('textbox', { name: 'Secret' })).toHaveValue(/^parley_sk_/);
  await expectScreen(page, 'Developers — Parley');
  await screenshot(page, 'screens-developers-secret');
  await reveal.getByRole('checkbox').check();
  await reveal.getByRole('button', { name: 'Done' }).click();

  await page.getByRole('button', { name: 'Roll CI deploys' }).click();
  await expect(page.getByRole('dialog', { name: 'Roll “CI deploys”' })).toBeVisible();
  await expectScreen(page, 'Developers — Parley');
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Revoke CI deploys' }).click();
  await expect(page.getByRole('dialog', { name: 'Revoke “CI deploys”?' })).toBeVisible();
  await expectScreen(page, 'Developers — Parley');
  await page.keyboard.press('Escape');
  await expect(page.getByRole('list', { name: 'API keys' }).getByText('Acme Support')).toBeVisible();
  await screenshot(page, 'screens-developers');

  await page.setViewportSize({ width: 375, height: 740 });
  const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(await overflow(), 'horizontal overflow on /workspace/developers').toBeLessThanOrEqual(0);
  await screenshot(page, 'screens-developers-phone');
  // The small-screen menu holds the Developers link beside Dashboard, Account and Logout.
  await page.getByRole('button', { name: 'Open menu' }).click();
  await expect(page.locator('#mobile-menu').getByRole('link', { name: 'Developers' })).toBeVisible();
  expect(await overflow(), 'horizontal overflow of the open menu').toBeLessThanOrEqual(0);
  await screenshot(page, 'screens-developers-menu-phone');
  await page.getByRole('button', { name: 'Close menu' }).click();
  await page.getByRole('button', { name: 'Create key' }).click();
  await expect(page.getByRole('dialog', { name: 'Create API key' })).toBeVisible();
  expect(await overflow(), 'horizontal overflow of the create dialog').toBeLessThanOrEqual(0);
  await screenshot(page, 'screens-developers-create-phone');
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Roll CI deploys' }).click();
  await expect(page.getByRole('dialog', { name: 'Roll “CI deploys”' })).toBeVisible();
  expect(await overflow(), 'horizontal overflow of the roll dialog').toBeLessThanOrEqual(0);
  await screenshot(page, 'screens-developers-roll-phone', { fullPage: false });

  // The reference renders the API's OpenAPI document, or says plainly that it is not there.
  await page.goto('/developers/api');
  await expect(page.getByRole('heading', { level: 1, name: 'API reference' })).toBeVisible();
  await expect(page.getByText('Loading the API reference…')).toHaveCount(0, { timeout: 30_000 });
  await expectScreen(page, 'API reference — Parley');
  expect(await overflow(), 'horizontal overflow on /developers/api').toBeLessThanOrEqual(0);
  // The rendered reference is many screens long: its first screen is kept.
  await screenshot(page, 'screens-api-reference-phone', { fullPage: false });
  await page.setViewportSize({ width: 1280, height: 800 });
  await screenshot(page, 'screens-api-reference', { fullPage: false });
  await page.mouse.wheel(0, 1400);
  await screenshot(page, 'screens-api-reference-operation', { fullPage: false });
});

test('two-factor sign-in: setting it up, the recovery codes and the code step', async ({ page }) => {
  const email = await registerOwner(page, uniqueEmail('screens-2fa'));
  await page.goto('/account');
  const card = page.getByRole('region', { name: 'Two-factor sign-in' });
  await card.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
  await expect(card.getByRole('img', { name: 'QR code for your authenticator app' })).toBeVisible();
  await expectScreen(page, 'Account — Parley');
  const key = (await card.getByLabel('Key').textContent())!.replace(/\s/g, '');
  const totp = new TOTP({ issuer: 'Parley', algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(key) });
  await card.getByLabel('Code from the app').fill(totp.generate());
  await card.getByRole('button', { name: 'Turn on' }).click();
  await expect(card.getByRole('list', { name: 'Recovery codes' })).toBeVisible();
  await expectScreen(page, 'Account — Parley');
  await card.getByRole('button', { name: 'I have saved them' }).click();
  await expect(card.getByText('10 recovery codes left.', { exact: false })).toBeVisible();
  await expectScreen(page, 'Account — Parley');

  await page.getByRole('button', { name: 'Logout' }).click();
  await page.goto('/login');
  await page.locator('input[name="email"]').fill(email);
  await page.locator('input[name="password"]').fill(PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Two-factor sign-in' })).toBeVisible();
  await expectScreen(page, 'Sign in — Parley');
  await screenshot(page, 'screens-two-factor-code-step');
});

test('single sign-on screens: the Security page and the sign-in return page', async ({ page }) => {
  await registerOwner(page, uniqueEmail('screens-security'));
  await page.goto('/workspace/security');
  await expect(page.getByRole('heading', { level: 1, name: 'Security' })).toBeVisible();
  await expect(page.getByLabel('Identity provider')).toBeVisible();
  await expectScreen(page, 'Security — Parley');
  await page.getByRole('button', { name: 'Logout' }).click();
  await page.goto('/login/sso');
  await expect(page.getByRole('heading', { level: 1, name: 'Signing in' })).toBeVisible();
  await expect(page.getByRole('alert')).toContainText('This single sign-on link is incomplete');
  await expectScreen(page, 'Signing in — Parley');
});
