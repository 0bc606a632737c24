/// <reference lib="dom" />
// A team in the browser (docs/adr/0030-workspaces.md): an owner creates a workspace and invites a
// member by email as Agent; the invitee signs up through the mail's link, accepts and switches to
// the workspace, where they read its chatbot but are shown no settings; the owner makes them an
// Editor, then removes them, and their access ends.
import { expect, test, type APIRequestContext, type Browser, type Page } from '@playwright/test';
import pg from 'pg';
import { ownerToken, PASSWORD, registerOwner, uniqueEmail } from './fixtures.ts';
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
