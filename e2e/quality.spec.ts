// The quality loop end to end (docs/adr/0050-quality-loop.md), in Chromium against the whole product:
// the owner adds a case from an answer in History, runs the tests (after its cost estimate), then
// changes the knowledge, and the automatic run shows the case as a regression first; and compares a
// draft of other settings side by side, then applies it (docs/adr/0058-side-by-side-runs.md); and adds
// an unanswered question from Analytics to the tests; and generates cases from the knowledge, accepts
// one and runs it with the judge on (docs/adr/0061-the-judge-generated-cases-and-the-regression-mail.md).
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { createBot, makePro, ownerToken, registerOwner, uniqueEmail } from './fixtures.ts';
import { screenshot } from './screenshots.ts';

/** Axe's serious and critical findings on the page as it is (the screens spec's rule). */
async function seriousViolations(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ rule: v.id, nodes: v.nodes.map((n) => n.target.join(' ')) }));
}

test('the owner adds a case from History, runs the tests, changes the knowledge and sees the regression', async ({
  page,
  context,
  request,
}) => {
  test.setTimeout(180_000);
  const email = await registerOwner(page, uniqueEmail('quality'));
  const token = await ownerToken(page);
  const bot = await createBot(request, token, 'Acme Support', 'Acme opens at nine in the morning and closes at six in the evening.');
  await makePro(email);

  // A visitor's question, answered from the knowledge.
  const visitor = await context.newPage();
  await visitor.goto(`/chat/${bot.uniqueId}`);
  const input = visitor.getByPlaceholder('Type your message...');
  await input.fill('When does Acme open in the morning?');
  await input.press('Enter');
  await expect(visitor.getByTestId('assistant-message').last()).toContainText('nine in the morning');
  await visitor.close();

  // History: "Add to tests" on the answer, with the fact it must contain and the source it cites preset.
  await page.goto(`/chatbots/${bot._id}`);
  await page.getByRole('tab', { name: 'History' }).click();
  await page
    .getByText(/Session ID/)
    .first()
    .click();
  await page.getByRole('button', { name: 'Add to tests' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add to tests' });
  await expect(dialog.getByLabel('Question')).toHaveValue('When does Acme open in the morning?');
  await dialog.getByLabel('Must contain').fill('nine in the morning | 9 am');
  await screenshot(page, 'quality-add-to-tests');
  await dialog.getByRole('button', { name: 'Add to tests' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Added to tests' })).toBeVisible();

  // Settings › Tests: the case, then a run after its estimate.
  await page.getByRole('tab', { name: 'Settings' }).click();
  await page.goto(`/chatbots/${bot._id}#settings-tests`);
  const tests = page.getByRole('region', { name: 'Tests' });
  await expect(tests.getByText('When does Acme open in the morning?')).toBeVisible();
  await expect(tests.getByText('Contains: nine in the morning / 9 am')).toBeVisible();
  await tests.getByRole('button', { name: 'Run tests' }).click();
  const run = page.getByRole('dialog', { name: 'Run tests' });
  await expect(run).toContainText('1 case answered with gpt-4o-mini: about $0.0005 of credit');
  await run.getByRole('button', { name: 'Run tests' }).click();
  await expect(tests.getByText('Latest run: Completed')).toBeVisible({ timeout: 30_000 });
  const results = tests.getByRole('list', { name: 'Results' });
  await expect(results.getByText('Passed', { exact: true })).toBeVisible();
  await screenshot(page, 'quality-tests-passed');

  // The knowledge changes: the entry the answer came from is deleted, and the automatic run follows.
  page.once('dialog', (d) => void d.accept());
  await page.getByRole('region', { name: 'Entries' }).getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText('No knowledge base entries yet.')).toBeVisible();
  await expect
    .poll(
      async () => {
        await page.reload();
        return (await tests.getByText('Latest run:').textContent({ timeout: 10_000 })) ?? '';
      },
      { timeout: 60_000, intervals: [1000] },
    )
    .toMatch(/Completed\s*after a change/);
  await expect(results.locator('li').first().getByText('Regression', { exact: true })).toBeVisible();
  await expect(tests.getByText('1 case passed before and fails now.')).toBeVisible();
  await expect(results.getByText('Missing: nine in the morning / 9 am')).toBeVisible();
  await expect(tests.getByRole('region', { name: 'Pass rate over time' }).locator('.recharts-surface')).toBeVisible();
  await screenshot(page, 'quality-regression');
});

test('the owner compares a draft side by side and applies it', async ({ page, request }) => {
  test.setTimeout(180_000);
  await registerOwner(page, uniqueEmail('quality-draft'));
  const token = await ownerToken(page);
  const bot = await createBot(request, token, 'Acme Support', 'Acme opens at nine in the morning and closes at six in the evening.');
  const saved = await request.post('/graphql', {
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    data: {
      query: 'mutation($c: ID!, $i: TestCaseInput!) { saveTestCase(chatbotId: $c, input: $i) { id } }',
      variables: { c: bot._id, i: { question: 'When does Acme open in the morning?', checks: [{ kind: 'contains', phrases: ['nine'] }] } },
    },
  });
  expect(((await saved.json()) as { errors?: unknown }).errors).toBeUndefined();

  await page.goto(`/chatbots/${bot._id}#settings-tests`);
  const tests = page.getByRole('region', { name: 'Tests' });
  await expect(tests.getByText('When does Acme open in the morning?')).toBeVisible();
  await tests.getByRole('button', { name: 'Compare a draft' }).click();
  const dialog = page.getByRole('dialog', { name: 'Compare a draft' });
  await expect(dialog).toContainText('answered twice');
  await dialog.getByLabel('Model').selectOption('gpt-4.1-mini');
  await dialog.getByLabel('Instructions').fill('Answer in one friendly sentence.');
  await dialog.getByLabel('Temperature').fill('0.4');
  await screenshot(page, 'quality-compare-draft', { fullPage: false });
  expect(await seriousViolations(page)).toEqual([]);
  await dialog.getByRole('button', { name: 'Compare' }).click();

  await expect(tests.getByText('Latest run: Completed')).toBeVisible({ timeout: 30_000 });
  const sideBySide = tests.getByRole('list', { name: 'Results side by side' });
  const item = sideBySide.locator('li').first();
  await expect(item.getByText('Current', { exact: true })).toBeVisible();
  await expect(item.getByText('Draft', { exact: true })).toBeVisible();
  await expect(item.getByText('Passed', { exact: true })).toHaveCount(2);
  const totals = tests.getByRole('table', { name: 'Totals' });
  await expect(totals.getByRole('row', { name: /Pass rate/ })).toContainText('100 %');
  await expect(totals.getByRole('row', { name: /Cost per answer/ })).toContainText('$');
  await expect(tests).toContainText('Draft: gpt-4.1-mini, temperature 0.4');
  await screenshot(page, 'quality-side-by-side');
  await tests.screenshot({ path: 'test-results/screenshots/quality-side-by-side-section.png' });
  expect(await seriousViolations(page)).toEqual([]);

  await tests.getByRole('button', { name: 'Apply draft' }).click();
  const confirm = page.getByRole('dialog', { name: 'Apply draft' });
  await confirm.getByRole('button', { name: 'Apply draft' }).click();
  await expect(tests.getByText("The draft's settings are the chatbot's now.")).toBeVisible();

  // The chatbot's settings are the draft's, after a reload too.
  await page.reload();
  await expect(page.locator('select[name="model"]')).toHaveValue('gpt-4.1-mini');
  await expect(page.getByLabel('Instructions', { exact: true }).first()).toHaveValue('Answer in one friendly sentence.');
});

test('the owner adds an unanswered question from Analytics to the tests', async ({ page, context, request }) => {
  test.setTimeout(180_000);
  const email = await registerOwner(page, uniqueEmail('quality-analytics'));
  await makePro(email);
  const token = await ownerToken(page);
  const bot = await createBot(request, token, 'Acme Support', 'Acme opens at nine in the morning and closes at six in the evening.');
  const visitor = await context.newPage();
  await visitor.goto(`/chat/${bot.uniqueId}`);
  const input = visitor.getByPlaceholder('Type your message...');
  await input.fill('Do you sell gift cards?');
  await input.press('Enter');
  await expect(visitor.getByTestId('assistant-message').last()).toContainText('You asked');
  await visitor.close();

  await page.goto(`/chatbots/${bot._id}`);
  const group = page.getByRole('listitem', { name: 'Do you sell gift cards?' });
  await expect(async () => {
    await page.reload();
    await page.getByRole('tab', { name: 'Analytics' }).click();
    await expect(group).toBeVisible({ timeout: 2000 });
  }).toPass({ timeout: 90_000 });
  await group.getByRole('button', { name: 'Add to tests' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add to tests' });
  await expect(dialog.getByLabel('Question')).toHaveValue('Do you sell gift cards?');
  await dialog.getByLabel('Must contain').fill('gift card');
  await dialog.getByRole('button', { name: 'Add to tests' }).click();
  await expect(group.getByRole('status')).toHaveText('Added to tests');
  await group.screenshot({ path: 'test-results/screenshots/quality-unanswered-added.png' });

  await page.getByRole('tab', { name: 'Settings' }).click();
  await page.goto(`/chatbots/${bot._id}#settings-tests`);
  await expect(page.getByRole('region', { name: 'Tests' }).getByText('Contains: gift card')).toBeVisible();
});

test('the owner generates cases, accepts one, and runs it with the judge on', async ({ page, request }) => {
  test.setTimeout(180_000);
  await registerOwner(page, uniqueEmail('quality-judge'));
  const token = await ownerToken(page);
  const bot = await createBot(request, token, 'Acme Support', 'Acme opens at nine in the morning and closes at six in the evening.');

  await page.goto(`/chatbots/${bot._id}#settings-tests`);
  const tests = page.getByRole('region', { name: 'Tests' });
  await expect(tests.getByText('No test cases yet.')).toBeVisible();

  // The judge on, with the default model and the product's rubric, and the regression mail.
  const settings = tests.getByRole('form', { name: 'Judge and regression mail' });
  await settings.getByRole('switch', { name: /Grade answers with a judge/ }).click();
  await expect(settings.getByLabel('Rubric')).toHaveValue(/Faithful: everything the answer states/);
  await settings.getByRole('switch', { name: /Email me when a run has regressions/ }).click();
  await settings.getByRole('button', { name: 'Save quality settings' }).click();
  await expect(settings.getByText('Quality settings saved')).toBeVisible();

  // Generate cases: the proposals wait; one is accepted.
  await tests.getByRole('button', { name: 'Generate cases' }).click();
  const dialog = page.getByRole('dialog', { name: 'Generate cases' });
  await dialog.getByLabel('Number of cases').fill('3');
  await screenshot(page, 'quality-generate-cases', { fullPage: false });
  expect(await seriousViolations(page)).toEqual([]);
  await dialog.getByRole('button', { name: 'Generate' }).click();
  const proposed = tests.getByRole('region', { name: 'Proposed cases' });
  const question = 'Tell me: acme opens at nine in the?';
  await expect(proposed.getByText(question)).toBeVisible();
  await expect(proposed.getByText('Contains: Acme opens at nine in the morning and closes at six in the evening.')).toBeVisible();
  await screenshot(page, 'quality-proposed-cases');
  expect(await seriousViolations(page)).toEqual([]);
  await proposed.getByRole('button', { name: `Accept: ${question}` }).click();
  await expect(proposed).toBeHidden();
  await expect(tests.getByText('Test cases (1)')).toBeVisible();

  // A run, judged: the case passes its check, and the judge's verdict shows beside it.
  await tests.getByRole('button', { name: 'Run tests' }).click();
  await page.getByRole('dialog', { name: 'Run tests' }).getByRole('button', { name: 'Run tests' }).click();
  await expect(tests.getByText('Latest run: Completed')).toBeVisible({ timeout: 30_000 });
  const results = tests.getByRole('list', { name: 'Results' });
  await expect(results.getByText('Passed', { exact: true })).toBeVisible();
  const verdict = results.getByRole('group', { name: "Judge's verdict" });
  await expect(verdict).toContainText('Judge: 3 of 3 criteria met');
  await expect(verdict).toContainText('The cited passages support the answer.');
  await expect(tests).toContainText('Judged by gpt-4o-mini');
  await screenshot(page, 'quality-judged-run');
  await tests.screenshot({ path: 'test-results/screenshots/quality-judged-section.png' });
  expect(await seriousViolations(page)).toEqual([]);
});
