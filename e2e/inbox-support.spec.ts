/// <reference lib="dom" />
// The inbox as a support team sees it (docs/product.md, Inbox and Leads), against the whole running
// stack: a visitor who left the lead form and then asked for a person is named by their lead in the
// Waiting row and the conversation's header, the row previews what the visitor last wrote (not the
// bot's answer), the bot's cited answer shows numbered source badges as the visitor saw them (each on
// the line of the word it cites), the conversation has its own browser title and the header marks the
// page the member is on; on a phone the way back to the list is at the top of the conversation; at
// 1280 px the Leads table fits.
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { createBot, makePro, ownerToken, registerOwner, uniqueEmail } from './fixtures.ts';
import { screenshot } from './screenshots.ts';

/** No serious or critical accessibility problem axe can find on the page as it stands. */
async function expectAccessible(page: Page, what: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`);
  expect.soft(serious, `axe on ${what}`).toEqual([]);
}

const QUESTION = 'When does the Acme Bistro kitchen open?';
const LAST_WORDS = 'Can I book a table for six tonight?';

test('a visitor who left their details and asked for a person is named by their lead, with their own last words and the cited answer', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  const ownerEmail = await registerOwner(page, uniqueEmail('inbox-support'));
  await makePro(ownerEmail);
  const token = await ownerToken(page);
  const bot = await createBot(
    page.request,
    token,
    'Acme Bistro',
    'The Acme Bistro kitchen opens at noon and closes at eleven at night. Tables are booked by phone.',
  );
  const updated = await page.request.post('/graphql', {
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    data: {
      query:
        'mutation ($id: ID!, $input: UpdateChatbotInput!) { updateChatbot(id: $id, input: $input) { id handoff { enabled } leadForm { trigger } } }',
      variables: {
        id: bot._id,
        input: {
          handoff: { enabled: true, timeoutSeconds: 300 },
          leadForm: { name: 'optional', email: 'required', trigger: 'after_messages', afterMessages: 1 },
        },
      },
    },
  });
  const body = (await updated.json()) as { data?: { updateChatbot: { handoff: { enabled: boolean } } }; errors?: unknown };
  expect(body.errors).toBeUndefined();
  expect(body.data?.updateChatbot.handoff.enabled).toBe(true);

  // The visitor: a question the knowledge answers (cited), the lead form, a last question, then a person.
  const visitor = await (await browser.newContext()).newPage();
  await visitor.goto(`/chat/${bot.uniqueId}`);
  const input = visitor.getByPlaceholder('Type your message...');
  await input.fill(QUESTION);
  await input.press('Enter');
  const answer = visitor.getByTestId('assistant-message').last();
  await expect(answer.locator('[data-citation="1"]')).toBeVisible();
  const form = visitor.getByRole('form', { name: 'Leave your details and we will get back to you.' });
  await expect(form).toBeVisible();
  const visitorEmail = uniqueEmail('grace');
  await form.getByLabel('Name (optional)').fill('Grace Hopper');
  await form.getByLabel('Email').fill(visitorEmail);
  await form.getByRole('button', { name: 'Send' }).click();
  await expect(visitor.getByText('Thanks! Your details were sent.')).toBeVisible();
  await expect(input).toBeEnabled();
  await input.fill(LAST_WORDS);
  await input.press('Enter');
  await expect(visitor.getByTestId('assistant-message')).toHaveCount(2);
  await expect(input).toBeEnabled();
  await visitor.getByRole('button', { name: 'Talk to a person' }).click();
  await expect(visitor.getByText('Waiting for a person…')).toBeVisible();

  // The owner's inbox: the row names the lead and previews the visitor's own last words.
  await page.goto('/inbox');
  await expect(page.getByRole('heading', { level: 1, name: 'Inbox' })).toBeVisible();
  const header = page.getByRole('banner');
  await expect(header.getByRole('link', { name: /^Inbox/ })).toHaveAttribute('aria-current', 'page');
  await expect(header.getByRole('link', { name: 'Dashboard' })).not.toHaveAttribute('aria-current', 'page');
  const row = page.getByRole('region', { name: 'Waiting' }).getByRole('link');
  await expect(row).toHaveCount(1, { timeout: 15_000 });
  await expect(row).toContainText('Grace Hopper');
  await expect(row).toContainText(LAST_WORDS);
  await expect(row).not.toContainText('Visitor');
  await expect(row).not.toContainText('noon');
  await screenshot(page, 'inbox-waiting-lead');

  // The conversation: its own title, the lead's name in its header, the answer's sources as badges.
  await row.click();
  await expect(page).toHaveURL(/\/inbox\/[0-9a-f-]{36}$/);
  const conversation = page.getByRole('region', { name: 'Conversation with Grace Hopper' });
  await expect(conversation.getByRole('heading', { level: 2, name: 'Grace Hopper' })).toBeVisible();
  await expect(page).toHaveTitle('Grace Hopper — Inbox — Parley');
  await expect(header.getByRole('link', { name: /^Inbox/ })).toHaveAttribute('aria-current', 'page');
  const messages = conversation.getByRole('list', { name: 'Messages' });
  await expect(messages.getByText(QUESTION, { exact: true })).toBeVisible();
  const cited = messages.locator('[data-citation="1"]');
  await expect(cited).toHaveCount(1);
  await expect(cited).toBeVisible();
  // The badge stays on the line of the word it cites: never alone at the start of a line.
  await expect(cited.locator('..')).toHaveText('night. source 1');
  await expect(cited.locator('..')).toHaveCSS('white-space', 'nowrap');
  await expect(messages).not.toContainText('[1]');
  await expect(conversation.getByRole('button', { name: 'Sources (1)' })).toBeVisible();
  await screenshot(page, 'inbox-conversation-lead');
  await expectAccessible(page, 'a conversation of the inbox');

  // On a phone the list gives way to the conversation, and the way back is the first thing above it.
  await page.setViewportSize({ width: 375, height: 740 });
  await page.evaluate(() => window.scrollTo(0, 0));
  const back = page.getByRole('link', { name: '← All conversations' });
  await expect(back).toBeVisible();
  await expect(page.getByRole('region', { name: 'Waiting' })).toBeHidden();
  const backBox = (await back.boundingBox())!;
  const panelBox = (await conversation.boundingBox())!;
  expect(backBox.y + backBox.height).toBeLessThanOrEqual(panelBox.y);
  expect(backBox.y).toBeLessThan(740);
  await screenshot(page, 'inbox-conversation-phone', { fullPage: false });
  await back.click();
  await expect(page).toHaveURL(/\/inbox$/);
  await expect(page.getByRole('region', { name: 'Waiting' }).getByRole('link')).toContainText('Grace Hopper');
  await page.setViewportSize({ width: 1280, height: 800 });

  // The Leads page at 1280 px: marked in the header, and its table whole, without a sideways scroll.
  await header.getByRole('link', { name: 'Leads', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Leads' })).toBeVisible();
  await expect(header.getByRole('link', { name: 'Leads', exact: true })).toHaveAttribute('aria-current', 'page');
  await expect(header.getByRole('link', { name: /^Inbox/ })).not.toHaveAttribute('aria-current', 'page');
  await expect(page.getByRole('row').filter({ hasText: visitorEmail })).toBeVisible();
  const table = page.getByRole('region', { name: 'Leads table' });
  const fits = await table.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth, right: el.getBoundingClientRect().right }));
  expect(fits.scroll).toBeLessThanOrEqual(fits.client + 1);
  expect(fits.right).toBeLessThanOrEqual(1280);
  await expect(page.getByText('Scroll sideways to see every column.')).toHaveCount(0);
  await screenshot(page, 'leads-page-1280');
});
