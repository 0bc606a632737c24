/// <reference lib="dom" />
// Knowledge from a PDF and a web page, answered with citations on the public page, and the bot's
// voice (welcome message and suggested questions), against the whole running stack. The website is
// a real local server started here; the stack may fetch it because the e2e run sets
// KNOWLEDGE_URL_ALLOW_PRIVATE=1 (global-setup.ts).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { makePro, registerOwner } from './fixtures.ts';
import { screenshot } from './screenshots.ts';

async function warrantyPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.setTitle('Zephyr Warranty Guide');
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage();
  page.drawText('Zephyr kettles carry a warranty of seven years from the date of purchase.', { x: 40, y: 740, size: 12, font });
  page.drawText('To claim it, keep the receipt and contact the service desk.', { x: 40, y: 720, size: 12, font });
  return Buffer.from(await doc.save());
}

const SHIPPING_PAGE = `<!doctype html><html><head><title>Shipping policy</title></head><body>
<nav><a href="/">Home</a> <a href="/shipping">Shipping</a> Menu item nobody needs</nav>
<main><article><h1>Shipping policy</h1>
<p>Every Zephyr order ships from the Lyon warehouse within two working days.</p>
<p>Delivery to Belgium and Switzerland takes four days and costs nine euros.</p>
</article></main><footer>Copyright footer text</footer></body></html>`;

let site: Server;
let siteUrl: string;

test.beforeAll(async () => {
  site = createServer((req, res) => {
    if (req.url === '/shipping') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(SHIPPING_PAGE);
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise((resolve) => site.close(resolve));
});

test('an owner adds a PDF and a web page, sets the voice; a visitor asks, sees sources and uses a suggestion', async ({
  page,
  context,
}) => {
  page.on('dialog', (dialog) => void dialog.accept());
  const email = await registerOwner(page);
  await page.goto('/chatbots/create');
  await page.getByLabel('Name').fill('Zephyr Help');
  await page.getByRole('button', { name: 'Create Chatbot' }).click();
  await expect(page).toHaveURL(/\/chatbots\/[0-9a-f-]{36}$/);

  // A PDF, uploaded with its progress, then processed in the background.
  await page.getByRole('tab', { name: 'File', exact: true }).click();
  await page.locator('input[type="file"][accept*=".pdf"]').setInputFiles({
    name: 'zephyr-warranty.pdf',
    mimeType: 'application/pdf',
    buffer: await warrantyPdf(),
  });
  await expect(page.getByText('File uploaded — processing…')).toBeVisible();
  const pdfEntry = page.getByRole('listitem').filter({ hasText: 'zephyr-warranty.pdf' });
  await expect(pdfEntry.getByText('Ready')).toBeVisible({ timeout: 20_000 });

  // A web page: its main content, not its menu and footer.
  await page.getByRole('tab', { name: 'Website', exact: true }).click();
  await page.getByLabel('Website address').fill(`${siteUrl}/shipping`);
  await page.getByRole('button', { name: 'Add Website' }).click();
  await expect(page.getByText('Website added — processing…')).toBeVisible();
  const pageEntry = page.getByRole('listitem').filter({ hasText: 'Shipping policy' });
  await expect(pageEntry.getByText('Ready')).toBeVisible({ timeout: 20_000 });
  await expect(pageEntry.getByText('Lyon warehouse').first()).toBeVisible();
  await expect(pageEntry.getByText('Menu item nobody needs')).toHaveCount(0);
  await screenshot(page, 'knowledge-sources');

  // The bot's voice: a welcome message and a suggested question.
  await page.getByLabel('Welcome message').fill('Hello! Ask me about Zephyr kettles.');
  await page.getByRole('textbox', { name: 'Suggested question 1' }).fill('How long is the Zephyr warranty?');
  await page.getByRole('button', { name: 'Save Voice' }).click();
  await expect(page.getByText('Chatbot updated successfully')).toBeVisible();
  await screenshot(page, 'bot-voice');
  const uniqueId = (await page.getByRole('link', { name: 'Open Chat' }).getAttribute('href'))!.split('/').pop()!;

  // The visitor: the welcome bubble, a suggestion that sends itself, and the PDF cited.
  const visitor = await context.newPage();
  await visitor.goto(`/chat/${uniqueId}`);
  await expect(visitor.getByText('Hello! Ask me about Zephyr kettles.')).toBeVisible();
  await visitor.getByRole('button', { name: 'How long is the Zephyr warranty?' }).click();
  const answer = visitor.getByTestId('assistant-message').last();
  await expect(answer).toContainText('seven years', { timeout: 20_000 });
  const pdfSources = answer.getByRole('button', { name: /Sources \(1\)/ });
  await expect(pdfSources).toBeVisible();
  await pdfSources.click();
  await expect(answer.getByText('Zephyr Warranty Guide')).toBeVisible();
  await expect(visitor.getByRole('button', { name: 'How long is the Zephyr warranty?' })).toHaveCount(0);

  // A question answered from the web page cites it as a link.
  await visitor.getByPlaceholder('Type your message...').fill('Where do Zephyr orders ship from, which warehouse?');
  await visitor.keyboard.press('Enter');
  const second = visitor.getByTestId('assistant-message').last();
  await expect(second).toContainText('Lyon warehouse', { timeout: 20_000 });
  await second.getByRole('button', { name: /Sources \(1\)/ }).click();
  await expect(second.getByRole('link', { name: 'Shipping policy' })).toHaveAttribute('href', `${siteUrl}/shipping`);
  await screenshot(visitor, 'public-chat-sources');

  // The (pro) owner reads the conversation in History as the visitor saw it: badges and sources.
  await makePro(email);
  await page.reload();
  await page.getByRole('tab', { name: /History/ }).click();
  await page
    .getByText(/Session ID/)
    .first()
    .click();
  const messages = page.getByRole('list', { name: 'Messages' });
  const reviewed = messages.getByRole('listitem').last();
  await expect(reviewed).toContainText('Lyon warehouse');
  await expect(reviewed.locator('[data-citation="1"]')).toHaveAttribute('title', 'Shipping policy');
  await expect(reviewed).not.toContainText('[1]');
  await reviewed.getByRole('button', { name: 'Sources (1)' }).click();
  await expect(reviewed.getByRole('link', { name: 'Shipping policy' })).toHaveAttribute('href', `${siteUrl}/shipping`);
  await messages.getByRole('listitem').nth(1).getByRole('button', { name: 'Sources (1)' }).click();
  await expect(messages.getByText('Zephyr Warranty Guide')).toBeVisible();
  await screenshot(page, 'history-sources');
});
