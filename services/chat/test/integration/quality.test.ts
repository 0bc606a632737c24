// The quality loop (docs/adr/0050-quality-loop.md) through the real chat service, chatbot service,
// billing, PostgreSQL, Redis and BullMQ queues, with the fake OpenAI server answering from the
// prompt's passages: a run answers every case in the background and stores its checks' results; a
// knowledge change makes a regression the next (automatic) run shows first; 20 quick edits make one
// automatic run; a run on a small balance stops without overdrawing and is billed exactly; a run
// cancelled midway is billed for what ran; a run touches no visitor's conversation nor analytics.
import { Queue } from 'bullmq';
import { Code } from '@connectrpc/connect';
import { Prisma } from '@parley/billing/generated/prisma/client.ts';
import { QUEUES } from '@parley/common/queues.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { groundedReply } from '@parley/common/testing/fake-openai.ts';
import { rpcError, startChatStack, type ChatStack } from './harness.ts';

const HOURS = 'The museum is open from ten until six, every day but Monday.';
const SHOP = 'The museum shop sells postcards, books and umbrellas near the exit.';
const QUESTION = 'When does the museum open?';
/** How long after a chatbot's last change its automatic run starts, here. */
const AUTO_DELAY_MS = 1500;

let stack: ChatStack;
beforeAll(async () => {
  stack = await startChatStack({ TEST_AUTO_RUN_DELAY_MS: String(AUTO_DELAY_MS), TEST_RUN_CONCURRENCY: '4' });
});
afterAll(async () => {
  await stack?.stop();
});
beforeEach(() => stack.fake.reset());

const db = () => stack.parts.prisma;
const contains = (...phrases: string[]) => ({ kind: 'contains', phrases, entryId: '' });

async function newBot(knowledge = [HOURS, SHOP], credit = '100') {
  const bot = await stack.newChatbot({ knowledge });
  await stack.setCredit(bot.ownerId, credit);
  return bot;
}

async function addCase(bot: { ownerId: string; id: string }, question = QUESTION, checks = [contains('open from ten', 'open from 10')]) {
  const { case: saved } = await stack.client.saveTestCase({ ownerId: bot.ownerId, chatbotId: bot.id, question, checks, source: 'manual' });
  return saved!;
}

/** Waits until the chatbot has `count` runs and none is under way, and the run queue is idle. */
async function runsSettled(bot: { id: string }, count: number, timeoutMs = 60_000) {
  const queue = new Queue(QUEUES.testRun, { connection: stack.redis, prefix: stack.prefix });
  try {
    for (const deadline = Date.now() + timeoutMs; ;) {
      const runs = await db().testRun.findMany({ where: { chatbotId: bot.id }, orderBy: { createdAt: 'asc' } });
      const counts = await queue.getJobCounts('active', 'waiting');
      if (runs.length >= count && runs.every((r) => r.finishedAt) && counts.active === 0 && counts.waiting === 0) return runs;
      if (Date.now() > deadline) throw new Error(`runs not settled: ${JSON.stringify(runs.map((r) => r.status))}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await queue.close();
  }
}

const account = (ownerId: string) => stack.billing.prisma.account.findUniqueOrThrow({ where: { ownerId } });
const usageRecords = (ownerId: string) => stack.billing.prisma.usageRecord.findMany({ where: { ownerId } });
const sum = (values: (string | Prisma.Decimal)[]) => values.reduce<Prisma.Decimal>((s, v) => s.add(v), new Prisma.Decimal(0));

describe('test cases', () => {
  it('are saved, listed, edited and deleted by their owner only, with clear errors', async () => {
    const bot = await newBot();
    const saved = await addCase(bot);
    expect(saved).toMatchObject({
      question: QUESTION,
      source: 'manual',
      checks: [{ kind: 'contains', phrases: ['open from ten', 'open from 10'] }],
    });
    const edited = await stack.client.saveTestCase({
      ownerId: bot.ownerId,
      chatbotId: bot.id,
      caseId: saved.id,
      question: 'And when does it close?',
      checks: [contains('until six'), { kind: 'not_contains', phrases: ['monday'], entryId: '' }],
    });
    expect(edited.case).toMatchObject({ id: saved.id, question: 'And when does it close?' });
    expect((await stack.client.listTestCases({ ownerId: bot.ownerId, chatbotId: bot.id })).cases.map((c) => c.id)).toEqual([saved.id]);

    const other = await newBot();
    expect((await rpcError(stack.client.listTestCases({ ownerId: other.ownerId, chatbotId: bot.id }))).code).toBe(Code.NotFound);
    const bad = await rpcError(
      stack.client.saveTestCase({
        ownerId: bot.ownerId,
        chatbotId: bot.id,
        question: 'Hi?',
        checks: [{ kind: 'nice', phrases: [], entryId: '' }],
      }),
    );
    expect(bad.code).toBe(Code.InvalidArgument);
    expect(bad.rawMessage).toBe('Check 1: Unknown check "nice" (use contains, not_contains, cites, no_answer, offers_person, language).');

    const imported = await rpcError(
      stack.client.importTestCases({
        ownerId: bot.ownerId,
        chatbotId: bot.id,
        cases: [
          { line: 2, question: 'Is there a shop?', checks: [contains('shop')] },
          { line: 3, question: '', checks: [contains('x')] },
          { line: 4, question: 'Parking?', checks: [] },
        ],
      }),
    );
    expect(imported.code).toBe(Code.InvalidArgument);
    expect(imported.rawMessage).toBe('Line 3: A test case needs a question.\nLine 4: A test case needs at least one check.');
    expect((await stack.client.listTestCases({ ownerId: bot.ownerId, chatbotId: bot.id })).cases).toHaveLength(1);

    // A case added from the inbox or from an unanswered question in Analytics keeps where it came from; an unknown source is manual.
    for (const source of ['inbox', 'analytics', 'elsewhere']) {
      const { case: from } = await stack.client.saveTestCase({
        ownerId: bot.ownerId,
        chatbotId: bot.id,
        question: 'Parking?',
        checks: [contains('parking')],
        source,
      });
      expect(from!.source).toBe(source === 'elsewhere' ? 'manual' : source);
      await stack.client.deleteTestCase({ ownerId: bot.ownerId, chatbotId: bot.id, caseId: from!.id });
    }
    await stack.client.deleteTestCase({ ownerId: bot.ownerId, chatbotId: bot.id, caseId: saved.id });
    expect((await stack.client.listTestCases({ ownerId: bot.ownerId, chatbotId: bot.id })).cases).toEqual([]);
    expect((await rpcError(stack.client.deleteTestCase({ ownerId: bot.ownerId, chatbotId: bot.id, caseId: saved.id }))).code).toBe(
      Code.NotFound,
    );
    expect((await rpcError(stack.client.startTestRun({ ownerId: bot.ownerId, chatbotId: bot.id }))).rawMessage).toBe(
      'Add a test case first.',
    );
  });
});

describe('a run', () => {
  it('answers each case in the background with its checks, billed, touching no visitor’s conversation or analytics', async () => {
    const bot = await newBot();
    const { knowledgeBase } = await stack.chatbots
      .getChatbot({ ownerId: bot.ownerId, chatbotId: bot.id })
      .then((r) => ({ knowledgeBase: r.chatbot!.knowledgeBase! }));
    const hours = knowledgeBase.textEntries.find((e) => e.content === HOURS)!;
    const cited = await addCase(bot, QUESTION, [contains('open from ten'), { kind: 'cites', phrases: [], entryId: hours.id }]);
    const unknown = await addCase(bot, 'Can I bring my dog?', [{ kind: 'no_answer', phrases: [], entryId: '' }]);
    const failing = await addCase(bot, 'What does the museum shop sell?', [contains('ice cream')]);

    const { run } = await stack.client.startTestRun({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect(run).toMatchObject({ status: 'queued', trigger: 'manual', totalCases: 3 });
    expect((await rpcError(stack.client.startTestRun({ ownerId: bot.ownerId, chatbotId: bot.id }))).code).toBe(Code.FailedPrecondition);
    await runsSettled(bot, 1);

    const got = await stack.client.getTestRun({ ownerId: bot.ownerId, chatbotId: bot.id, runId: run!.id });
    expect(got.run).toMatchObject({ status: 'completed', passed: 2, failed: 1, notRun: 0, regressions: 0, model: 'gpt-4o-mini' });
    const byCase = new Map(got.results.map((r) => [r.caseId, r]));
    expect(byCase.get(cited.id)).toMatchObject({ passed: true, sources: [{ entryId: hours.id }] });
    expect(byCase.get(cited.id)!.answer).toMatch(/open from ten/);
    expect(byCase.get(cited.id)!.promptTokens).toBeGreaterThan(0);
    expect(byCase.get(unknown.id)).toMatchObject({ passed: true, sources: [] });
    expect(byCase.get(failing.id)).toMatchObject({ passed: false, checks: [{ passed: false, detail: 'Missing: ice cream' }] });
    // The failure comes before the passes.
    expect(got.results[0].caseId).toBe(failing.id);

    // Billed like answers: one usage record per model answer, at the cost the run shows.
    await stack.applyUsage();
    const records = await usageRecords(bot.ownerId);
    expect(records.map((r) => r.requestId).sort()).toEqual(got.results.map((r) => r.requestId).sort());
    for (const r of got.results)
      expect(records.find((u) => u.requestId === r.requestId)!.totalCost.toFixed()).toBe(new Prisma.Decimal(r.cost).toFixed());
    expect(got.run!.cost).toBe(sum(records.map((r) => r.totalCost)).toFixed());

    // No visitor's conversation, analytics or kept turns.
    expect(await db().conversation.count({ where: { chatbotId: bot.id } })).toBe(0);
    expect((await stack.interactionJobs()).filter((i) => i.chatbotId === bot.id)).toEqual([]);
    expect(await stack.redis.keys(`${stack.prefix}:*${bot.uniqueId}*`)).toEqual([]);
  });

  it('after a knowledge change, runs on its own and shows the newly failing case first as a regression', async () => {
    const bot = await newBot();
    const entries = (await stack.chatbots.getChatbot({ ownerId: bot.ownerId, chatbotId: bot.id })).chatbot!.knowledgeBase!.textEntries;
    const hoursCase = await addCase(bot);
    await addCase(bot, 'What does the museum shop sell?', [contains('postcards')]);
    await stack.client.startTestRun({ ownerId: bot.ownerId, chatbotId: bot.id });
    const [first] = await runsSettled(bot, 1);

    await stack.chatbots.deleteTextEntry({
      ownerId: bot.ownerId,
      chatbotId: bot.id,
      entryId: entries.find((e) => e.content === HOURS)!.id,
    });
    const runs = await runsSettled(bot, 2, 30_000);
    expect(runs.map((r) => r.trigger)).toEqual(['manual', 'automatic']);

    const listed = await stack.client.listTestRuns({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect(listed.runs.map((r) => [r.id, r.passed, r.failed, r.regressions])).toEqual([
      [runs[1].id, 1, 1, 1],
      [first.id, 2, 0, 0],
    ]);
    const got = await stack.client.getTestRun({ ownerId: bot.ownerId, chatbotId: bot.id, runId: runs[1].id });
    expect(got.results[0]).toMatchObject({ caseId: hoursCase.id, regression: true, passed: false });
    expect(got.results[1]).toMatchObject({ regression: false, passed: true });
  });

  it('20 quick edits of a chatbot with tests make one automatic run', async () => {
    const bot = await newBot();
    await addCase(bot);
    for (let i = 0; i < 20; i++)
      await stack.chatbots.updateChatbot({ ownerId: bot.ownerId, chatbotId: bot.id, voice: { instructions: `Be brief, take ${i}.` } });
    const runs = await runsSettled(bot, 1, 30_000);
    // Past another whole delay, still one.
    await new Promise((r) => setTimeout(r, AUTO_DELAY_MS * 2));
    expect(await db().testRun.count({ where: { chatbotId: bot.id } })).toBe(1);
    expect(runs[0]).toMatchObject({ trigger: 'automatic', status: 'completed' });
    // It answered with the last instructions.
    expect(stack.fake.requests).toHaveLength(1);
    expect(stack.fake.requests[0].messages[0].content).toContain('Be brief, take 19.');
  });

  it('of 200 cases on a small balance stops before overdrawing it, and is billed exactly', async () => {
    const bot = await newBot([HOURS], '100');
    const many = Array.from({ length: 200 }, (_, i) => ({ line: i + 2, question: QUESTION, checks: [contains('open from ten')] }));
    expect((await stack.client.importTestCases({ ownerId: bot.ownerId, chatbotId: bot.id, cases: many })).imported).toBe(200);
    // The hold of one case (all 200 prompts are the same): a first run of one case on another chatbot tells it.
    const probe = await newBot([HOURS], '100');
    await addCase(probe);
    await stack.client.startTestRun({ ownerId: probe.ownerId, chatbotId: probe.id });
    await runsSettled(probe, 1);
    const hold = (await stack.billing.prisma.creditReservation.findFirstOrThrow({ where: { ownerId: probe.ownerId } })).amount;

    const k = 7;
    const start = hold.mul(k).add(hold.div(2).toDecimalPlaces(10, Prisma.Decimal.ROUND_DOWN));
    await stack.setCredit(bot.ownerId, start.toFixed());
    stack.fake.reset();
    await stack.client.startTestRun({ ownerId: bot.ownerId, chatbotId: bot.id });
    const [run] = await runsSettled(bot, 1);
    // Nothing settles meanwhile (billing's usage worker is not running): exactly k holds fit.
    expect(run).toMatchObject({ status: 'stopped', stopReason: 'Stopped: not enough credit for the next answer.' });
    const results = await db().testResult.findMany({ where: { runId: run.id } });
    expect(results).toHaveLength(k);
    expect(stack.fake.requests).toHaveLength(k);
    const summary = (await stack.client.getTestRun({ ownerId: bot.ownerId, chatbotId: bot.id, runId: run.id })).run!;
    expect(summary).toMatchObject({ passed: k, failed: 0, notRun: 200 - k });

    await stack.applyUsage();
    const records = await usageRecords(bot.ownerId);
    expect(records.map((r) => r.requestId).sort()).toEqual(results.map((r) => r.requestId).sort());
    const spent = sum(records.map((r) => r.totalCost));
    expect(spent.toFixed()).toBe(sum(results.map((r) => r.cost)).toFixed());
    expect(summary.cost).toBe(spent.toFixed());
    const { creditBalance, reservedCredit } = await account(bot.ownerId);
    expect(creditBalance.toFixed()).toBe(start.sub(spent).toFixed());
    expect(creditBalance.gte(0)).toBe(true);
    expect(reservedCredit.toFixed()).toBe('0');
  });

  it('cancelled midway asks nothing more and is billed for the answers it got', async () => {
    const bot = await newBot([HOURS], '100');
    const cases = Array.from({ length: 40 }, (_, i) => ({ line: i + 1, question: QUESTION, checks: [contains('open from ten')] }));
    await stack.client.importTestCases({ ownerId: bot.ownerId, chatbotId: bot.id, cases });
    stack.fake.setBehaviour({ delayMs: 150 });
    const { run } = await stack.client.startTestRun({ ownerId: bot.ownerId, chatbotId: bot.id });
    for (;;) {
      if ((await db().testResult.count({ where: { runId: run!.id } })) >= 4) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const cancelled = await stack.client.cancelTestRun({ ownerId: bot.ownerId, chatbotId: bot.id, runId: run!.id });
    expect(cancelled.run!.status).toBe('cancelled');
    const [settled] = await runsSettled(bot, 1);
    expect(settled.status).toBe('cancelled');
    const results = await db().testResult.findMany({ where: { runId: run!.id } });
    expect(results.length).toBeGreaterThanOrEqual(4);
    expect(results.length).toBeLessThan(40);
    // Only the answers already asked for were given (at most the lanes in flight when it was cancelled).
    expect(stack.fake.requests).toHaveLength(results.length);

    await stack.applyUsage();
    const records = await usageRecords(bot.ownerId);
    expect(records).toHaveLength(results.length);
    const spent = sum(records.map((r) => r.totalCost));
    expect(spent.toFixed()).toBe(sum(results.map((r) => r.cost)).toFixed());
    const { creditBalance, reservedCredit } = await account(bot.ownerId);
    expect(creditBalance.toFixed()).toBe(new Prisma.Decimal(100).sub(spent).toFixed());
    expect(reservedCredit.toFixed()).toBe('0');
    // Cancelling again changes nothing.
    expect((await stack.client.cancelTestRun({ ownerId: bot.ownerId, chatbotId: bot.id, runId: run!.id })).run!.status).toBe('cancelled');
  });
});

describe('a side by side', () => {
  const SIGN_OFF = 'End every answer with: Enjoy your visit.';

  it('answers each case with the configuration and the draft, billed both, with each side’s totals', async () => {
    const bot = await newBot();
    // A model that follows the draft's instructions when it reads them.
    stack.fake.setBehaviour({
      reply: (body) => groundedReply(body) + (body.messages[0].content.includes(SIGN_OFF) ? ' Enjoy your visit.' : ''),
    });
    const hours = await addCase(bot, QUESTION, [contains('open from ten'), contains('enjoy your visit')]);
    const shop = await addCase(bot, 'What does the museum shop sell?', [contains('postcards')]);

    const bad = await rpcError(
      stack.client.startTestRun({ ownerId: bot.ownerId, chatbotId: bot.id, draft: { modelId: 'gpt-9', instructions: '' } }),
    );
    expect(bad.code).toBe(Code.InvalidArgument);
    expect(bad.rawMessage).toBe('Choose one of the offered models for the draft.');
    const hot = await rpcError(
      stack.client.startTestRun({
        ownerId: bot.ownerId,
        chatbotId: bot.id,
        draft: { modelId: 'gpt-4.1-mini', instructions: '', temperature: 3 },
      }),
    );
    expect(hot.rawMessage).toBe("The draft's temperature is between 0 and 1.5.");

    const draft = { modelId: 'gpt-4.1-mini', instructions: SIGN_OFF, temperature: 0.2 };
    const { run } = await stack.client.startTestRun({ ownerId: bot.ownerId, chatbotId: bot.id, draft });
    expect(run!.draft).toMatchObject(draft);
    await runsSettled(bot, 1);

    // Each case asked twice: once as the chatbot is, once as the draft would make it.
    expect(stack.fake.requests).toHaveLength(4);
    const asDraft = stack.fake.requests.filter((r) => r.model === 'gpt-4.1-mini');
    expect(asDraft).toHaveLength(2);
    for (const r of asDraft) {
      expect(r.temperature).toBe(0.2);
      expect(r.messages[0].content).toContain(SIGN_OFF);
    }
    for (const r of stack.fake.requests.filter((r) => r.model !== 'gpt-4.1-mini')) {
      expect(r.model).toBe('gpt-4o-mini');
      expect(r.messages[0].content).not.toContain(SIGN_OFF);
    }

    const got = await stack.client.getTestRun({ ownerId: bot.ownerId, chatbotId: bot.id, runId: run!.id });
    // The run's counts (and the pass rate over time) are the configuration's.
    expect(got.run).toMatchObject({ status: 'completed', passed: 1, failed: 1, notRun: 0, model: 'gpt-4o-mini' });
    expect(got.results.map((r) => [r.caseId, r.passed])).toEqual([
      [hours.id, false],
      [shop.id, true],
    ]);
    expect(got.draftResults.map((r) => [r.caseId, r.passed])).toEqual([
      [hours.id, true],
      [shop.id, true],
    ]);
    expect(got.draftResults[0].answer).toMatch(/Enjoy your visit\.$/);
    expect(got.totals).toMatchObject({ answered: 2, passed: 1 });
    expect(got.draftTotals).toMatchObject({ answered: 2, passed: 2 });
    const perAnswer = (results: { cost: string }[]) =>
      sum(results.map((r) => r.cost))
        .div(results.length)
        .toDecimalPlaces(10)
        .toFixed();
    expect(got.totals!.costPerAnswer).toBe(perAnswer(got.results));
    expect(got.draftTotals!.costPerAnswer).toBe(perAnswer(got.draftResults));
    // gpt-4.1-mini is dearer than gpt-4o-mini per token: the draft's answers cost more.
    expect(new Prisma.Decimal(got.draftTotals!.costPerAnswer).gt(got.totals!.costPerAnswer)).toBe(true);

    // Billed like answers: four usage records, each at its result's cost; the run's cost is both sides'.
    await stack.applyUsage();
    const records = await usageRecords(bot.ownerId);
    const all = [...got.results, ...got.draftResults];
    expect(records.map((r) => r.requestId).sort()).toEqual(all.map((r) => r.requestId).sort());
    for (const r of all)
      expect(records.find((u) => u.requestId === r.requestId)!.totalCost.toFixed()).toBe(new Prisma.Decimal(r.cost).toFixed());
    expect(got.run!.cost).toBe(sum(records.map((r) => r.totalCost)).toFixed());

    // The next plain run counts its regressions against the configuration's side only.
    stack.fake.reset();
    const { run: plain } = await stack.client.startTestRun({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect(plain!.draft).toBeUndefined();
    await runsSettled(bot, 2);
    expect(stack.fake.requests).toHaveLength(2);
    const again = await stack.client.getTestRun({ ownerId: bot.ownerId, chatbotId: bot.id, runId: plain!.id });
    expect(again.run).toMatchObject({ passed: 1, failed: 1, regressions: 0 });
    expect(again.draftResults).toEqual([]);
    expect(again.draftTotals).toBeUndefined();
  });
});
