/// <reference lib="dom" />
// A team in the browser (docs/adr/0030-workspaces.md): an owner creates a workspace and invites a
// member by email as Agent; the invitee signs up through the mail's link, accepts and switches to
// the workspace, where they read its chatbot but are shown no settings; the owner makes them an
// Editor, then removes them, and their access ends.
import { expect, test, type APIRequestContext, type Browser, type Page } from '@playwright/test';
import pg from 'pg';
import { makePro, ownerToken, PASSWORD, registerOwner, topUpCredit, uniqueEmail } from './fixtures.ts';
import { screenshot } from './screenshots.ts';

/** Moves a workspace to the pro plan (5 seats) in billing's own data once billing has opened its account. */
async function makeWorkspacePro(workspaceId: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.E2E_DATABASE_URL });
  await client.connect();
  try {
    // Billing opens the account from the WorkspaceCreated event, through a queue.
    await expect
      .poll(async () => (await client.query(`UPDATE billing."Account" SET plan = 'pro' WHERE "userId" = $1`, [workspaceId])).rowCount, {
        timeout: 20_000,
      })
      .toBe(1);
  } finally {
    await client.end();
  }
}

/** A chatbot of the workspace, through the REST API with the workspace's header. */
async function createWorkspaceBot(request: APIRequestContext, token: string, workspaceId: string, name: string) {
  const created = await request.post('/api/chatbot', {
    headers: { authorization: `Bearer ${token}`, 'x-workspace-id': workspaceId },
    data: { name },
  });
  expect(created.status()).toBe(201);
  return (await created.json()) as { _id: string; uniqueId: string };
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

async function newPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext();
  return context.newPage();
}

test('an owner invites an agent by email, who signs up, joins and reads; the owner makes them an editor, then removes them', async ({
  page,
  browser,
}) => {
  test.setTimeout(180_000);
  const ownerEmail = await registerOwner(page, uniqueEmail('team-owner'));

  // The owner creates the workspace in the header's switcher, and the app acts in it.
  await page.getByRole('button', { name: /^Workspace:/ }).click();
  await page.getByRole('button', { name: 'Create workspace' }).click();
  const create = page.getByRole('dialog', { name: 'Create workspace' });
  await create.getByLabel('Workspace name').fill('Acme Team');
  await create.getByRole('button', { name: 'Create workspace' }).click();
  await expect(page.getByRole('button', { name: /^Workspace:/ })).toContainText('Acme Team');
  await expect(page.getByTestId('workspace-name')).toHaveText('Acme Team');
  const workspaceId = await page.evaluate(() => localStorage.getItem('workspace'));
  expect(workspaceId).toBeTruthy();
  await makeWorkspacePro(workspaceId!);
  const token = await ownerToken(page);
  const bot = await createWorkspaceBot(page.request, token, workspaceId!, 'Acme Helpdesk');

  // Invited as Agent: the invitation is pending and takes a seat.
  const inviteeEmail = uniqueEmail('team-agent');
  await page.goto('/workspace/members');
  await expect(page.getByRole('heading', { level: 1, name: 'Members' })).toBeVisible();
  const invite = page.getByRole('region', { name: 'Invite a member' });
  await invite.getByLabel('Email').fill(inviteeEmail);
  await invite.getByLabel('Role').selectOption('AGENT');
  await invite.getByRole('button', { name: 'Send invitation' }).click();
  await expect(invite.getByText(`Invitation sent to ${inviteeEmail}.`)).toBeVisible();
  const pending = page.getByRole('region', { name: 'Pending invitations' });
  await expect(pending.getByText(inviteeEmail)).toBeVisible();
  await expect(page.getByText('2 of 5 seats used').first()).toBeVisible();
  await screenshot(page, 'teams-members-owner');

  // The invitee reads the mail, opens the link signed out, signs up from it and comes back to accept.
  const invitee = await newPage(browser);
  const link = await mailedLink(invitee, inviteeEmail, /\/invitations\//);
  await invitee.goto(link);
  await expect(invitee.getByRole('heading', { level: 1, name: 'Join Acme Team' })).toBeVisible();
  await expect(invitee.getByText('Agent', { exact: true })).toBeVisible();
  await expect(invitee.getByText(ownerEmail).first()).toBeVisible();
  await screenshot(invitee, 'teams-invitation-signed-out');
  await invitee.getByRole('main').getByRole('link', { name: 'Sign up' }).click();
  await expect(invitee).toHaveURL(/\/register\?next=/);
  await invitee.locator('input[name="email"]').fill(inviteeEmail);
  await invitee.locator('input[name="password"]').fill(PASSWORD);
  await invitee.locator('input[name="password2"]').fill(PASSWORD);
  await invitee.locator('form button[type="submit"]').click();
  await expect(invitee).toHaveURL(/\/invitations\//);
  await invitee.getByRole('button', { name: 'Accept invitation' }).click();

  // Joined and switched: the workspace's chatbot, read only.
  await expect(invitee).toHaveURL(/\/dashboard$/);
  await expect(invitee.getByRole('button', { name: /^Workspace:/ })).toContainText('Acme Team');
  await expect(invitee.getByTestId('workspace-name')).toHaveText('Acme Team');
  await invitee.goto('/chatbots');
  await expect(invitee.getByText('Acme Helpdesk').first()).toBeVisible();
  await expect(invitee.getByRole('button', { name: 'Delete Acme Helpdesk' })).toHaveCount(0);
  await invitee.goto(`/chatbots/${bot._id}`);
  await expect(invitee.getByRole('heading', { level: 1, name: 'Acme Helpdesk' })).toBeVisible();
  await expect(invitee.getByText(/As an Agent, you can read this chatbot/)).toBeVisible();
  await expect(invitee.getByLabel('Chatbot Name')).toHaveCount(0);
  await expect(invitee.getByRole('button', { name: 'Save Picture' })).toHaveCount(0);
  await screenshot(invitee, 'teams-chatbot-agent');
  // No settings controls for an agent on the members page either.
  await invitee.goto('/workspace/members');
  await expect(invitee.getByRole('region', { name: 'Members' }).getByText(ownerEmail)).toBeVisible();
  await expect(invitee.getByRole('region', { name: 'Invite a member' })).toHaveCount(0);
  await expect(invitee.getByRole('region', { name: 'Workspace settings' })).toHaveCount(0);
  await expect(invitee.getByRole('combobox')).toHaveCount(0);

  // The owner sees the member, and makes them an Editor: the forms appear for them.
  await page.reload();
  await page.getByLabel(/^Role of /).selectOption('EDITOR');
  await expect(page.getByLabel(/^Role of /)).toHaveValue('EDITOR');
  await invitee.goto(`/chatbots/${bot._id}`);
  await expect(invitee.getByLabel('Chatbot Name')).toBeVisible();
  await expect(invitee.getByText(/you can read this chatbot/)).toHaveCount(0);

  // The owner removes the member after a confirm; the member's next request has no access.
  await page.getByRole('listitem').filter({ hasText: inviteeEmail }).getByRole('button', { name: 'Remove' }).click();
  const confirm = page.getByRole('dialog', { name: 'Remove member' });
  await confirm.getByRole('button', { name: 'Remove' }).click();
  await expect(confirm).toHaveCount(0);
  await expect(page.getByRole('listitem').filter({ hasText: inviteeEmail })).toHaveCount(0);

  const inviteeToken = await ownerToken(invitee);
  const refused = await invitee.request.get(`/api/chatbot/${bot._id}`, {
    headers: { authorization: `Bearer ${inviteeToken}`, 'x-workspace-id': workspaceId! },
  });
  expect(refused.status()).toBe(404);
  // In the browser the app falls back to the member's personal workspace.
  await invitee.goto('/chatbots');
  await expect(invitee.getByRole('button', { name: /^Workspace:/ })).not.toContainText('Acme Team');
  await expect.poll(() => invitee.evaluate(() => localStorage.getItem('workspace'))).toBeNull();
  await expect(invitee.getByText('Acme Helpdesk')).toHaveCount(0);
  await invitee.getByRole('button', { name: /^Workspace:/ }).click();
  await expect(invitee.getByRole('button', { name: /^Acme Team/ })).toHaveCount(0);
  await invitee.context().close();
});

test('an owner gives their topped-up pro workspace away and leaves it: they belong to no workspace, see nothing of it, and start again in one of their own', async ({
  page,
  browser,
}) => {
  test.setTimeout(180_000);
  const giverEmail = await registerOwner(page, uniqueEmail('team-giver'));
  const workspaceName = `${giverEmail.split('@')[0]}'s workspace`;
  await makePro(giverEmail);
  await topUpCredit(page);
  await page.goto('/dashboard');
  await expect(page.getByText('pro Plan').first()).toBeVisible();

  // The heir is invited as Admin, signs up from the mail's link and accepts.
  const heirEmail = uniqueEmail('team-heir');
  await page.goto('/workspace/members');
  const invite = page.getByRole('region', { name: 'Invite a member' });
  await invite.getByLabel('Email').fill(heirEmail);
  await invite.getByLabel('Role').selectOption('ADMIN');
  await invite.getByRole('button', { name: 'Send invitation' }).click();
  await expect(invite.getByText(`Invitation sent to ${heirEmail}.`)).toBeVisible();
  const heir = await newPage(browser);
  await heir.goto(await mailedLink(heir, heirEmail, /\/invitations\//));
  await heir.getByRole('main').getByRole('link', { name: 'Sign up' }).click();
  await heir.locator('input[name="email"]').fill(heirEmail);
  await heir.locator('input[name="password"]').fill(PASSWORD);
  await heir.locator('input[name="password2"]').fill(PASSWORD);
  await heir.locator('form button[type="submit"]').click();
  await heir.getByRole('button', { name: 'Accept invitation' }).click();
  await expect(heir.getByTestId('workspace-name')).toHaveText(workspaceName);

  // The giver makes the heir owner, then leaves.
  await page.reload();
  const heirRow = page.getByRole('listitem').filter({ hasText: heirEmail });
  await heirRow.getByRole('button', { name: 'Make owner' }).click();
  await page.getByRole('dialog', { name: 'Transfer ownership' }).getByRole('button', { name: 'Transfer ownership' }).click();
  await expect(heirRow.getByText('Owner', { exact: true })).toBeVisible();
  await page.getByRole('listitem').filter({ hasText: giverEmail }).getByRole('button', { name: 'Leave' }).click();
  await page.getByRole('dialog', { name: 'Leave workspace' }).getByRole('button', { name: 'Leave' }).click();

  // The dashboard says so, and shows nothing of the workspace given away: no name, plan or credit.
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole('heading', { level: 1, name: 'You are not a member of any workspace' })).toBeVisible();
  await expect(page.getByText('You have left the workspace.')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Join with an invitation' })).toBeVisible();
  await expect(page.getByRole('button', { name: /^Workspace:/ })).toHaveText(/No workspace/);
  const shown = async () => page.locator('body').innerText();
  for (const text of [workspaceName, 'pro Plan', '5.01', 'Account Overview']) expect(await shown()).not.toContain(text);
  const token = await ownerToken(page);
  const current = await page.request.get('/api/auth/current', { headers: { authorization: `Bearer ${token}` } });
  expect(await current.json()).toMatchObject({ subscription: 'free', usage: { creditBalance: 0, lastCreditRefill: null } });
  for (const [width, height, suffix] of [
    [1280, 800, 'desktop'],
    [375, 812, 'phone'],
  ] as const) {
    await page.setViewportSize({ width, height });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    await screenshot(page, `teams-no-workspace-${suffix}`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByRole('button', { name: /^Workspace:/ }).click();
  await expect(page.getByText('You are not a member of any workspace.')).toBeVisible();
  await screenshot(page, 'teams-no-workspace-switcher');
  await page.keyboard.press('Escape');

  // Pages about a workspace's things lead back to the dashboard; the account stays the person's.
  for (const path of ['/chatbots', '/usage', '/workspace/members']) {
    await page.goto(path);
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole('heading', { level: 1, name: 'You are not a member of any workspace' })).toBeVisible();
  }
  await page.goto('/account');
  await expect(page.getByRole('heading', { level: 1, name: 'Account' })).toBeVisible();
  await expect(page.getByLabel('Loading account')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Manage subscription' })).toHaveCount(0);
  expect(await shown()).not.toContain(workspaceName);
  await screenshot(page, 'teams-no-workspace-account');

  // The heir still has it, with its plan and credit.
  const heirToken = await ownerToken(heir);
  const heirs = await heir.request.get('/api/auth/current', {
    headers: { authorization: `Bearer ${heirToken}`, 'x-workspace-id': (await current.json()).id },
  });
  expect(await heirs.json()).toMatchObject({ subscription: 'pro', usage: { creditBalance: 5.01 } });
  await heir.context().close();

  // A workspace of their own, created from that state, opens a working dashboard.
  await page.goto('/dashboard');
  await page.getByRole('main').getByRole('button', { name: 'Create workspace' }).click();
  const create = page.getByRole('dialog', { name: 'Create workspace' });
  await create.getByLabel('Workspace name').fill('Fresh start');
  await create.getByRole('button', { name: 'Create workspace' }).click();
  await expect(page.getByRole('heading', { level: 1, name: /^Welcome back/ })).toBeVisible();
  await expect(page.getByTestId('workspace-name')).toHaveText('Fresh start');
  await expect(page.getByRole('button', { name: /^Workspace:/ })).toContainText('Fresh start');
  await expect(page.getByText('free Plan')).toBeVisible();
  await expect(page.getByText('No chatbots yet')).toBeVisible();
  await screenshot(page, 'teams-no-workspace-fresh-start');
  await page.goto('/chatbots/create');
  await expect(page.getByRole('heading', { level: 1, name: 'New chatbot' })).toBeVisible();
  await expect(page.getByRole('button', { name: /^Workspace:/ })).toContainText('Fresh start');
});
