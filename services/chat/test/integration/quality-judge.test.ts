// The judge, generated cases and the regression mail
// (docs/adr/0061-the-judge-generated-cases-and-the-regression-mail.md) through the real chat
// service, chatbot service, billing, PostgreSQL, Redis and BullMQ queues, with the fake OpenAI
// server grading (parley_judge) and writing cases (parley_test_cases) deterministically: a run with
// the judge off asks no judge; with it on, each answer gets a verdict per criterion beside its
// checks, billed exactly; a malformed judge reply is a judge error, never a pass; generated cases
// wait as proposals, duplicates dropped, billed; a run with regressions queues one mail, once.
import { Queue } from 'bullmq';
import { Code } from '@connectrpc/connect';
import { Prisma } from '@parley/billing/generated/prisma/client.ts';
import { QUEUES, createProducer } from '@parley/common/queues.ts';
import { TestRunDueSchema, TestRunRegressedSchema } from '@parley/proto/parley/events/v1/quality_pb.js';
import { fromJson, type JsonValue } from '@bufbuild/protobuf';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { groundedReply, structuredReply, type FakeOpenAIRequest } from '@parley/common/testing/fake-openai.ts';
import { rpcError, startChatStack, type ChatStack } from './harness.ts';

const HOURS = 'The museum is open from ten until six, every day but Monday.';
const SHOP = 'The museum shop sells postcards, books and umbrellas near the exit.';
const QUESTION = 'When does the museum open?';
const AUTO_DELAY_MS = 1500;

let stack: ChatStack;
beforeAll(async () => {
  stack = await startChatStack({ TEST_AUTO_RUN_DELAY_MS: String(AUTO_DELAY_MS), TEST_RUN_CONCURRENCY: '2' });
});
afterAll(async () => {
  await stack?.stop();
});
beforeEach(() => stack.fake.reset());

const db = () => stack.parts.prisma;
const contains = (...phrases: string[]) => ({ kind: 'contains', phrases, entryId: '' });
const judgeCalls = () =>
  stack.fake.requests.filter(
    (r) => (r.response_format as { json_schema?: { name?: string } } | undefined)?.json_schema?.name === 'parley_judge',
  );
const usageRecords = (ownerId: string) => stack.billing.prisma.usageRecord.findMany({ where: { ownerId } });
const account = (ownerId: string) => stack.billing.prisma.account.findUniqueOrThrow({ where: { ownerId } });
const sum = (values: (string | Prisma.Decimal)[]) => values.reduce<Prisma.Decimal>((s, v) => s.add(v), new Prisma.Decimal(0));

async function newBot(knowledge = [HOURS, SHOP], credit = '100') {
  const bot = await stack.newChatbot({ knowledge });
  await stack.setCredit(bot.ownerId, credit);
  return bot;
}

async function addCase(bot: { ownerId: string; id: string }, question = QUESTION, checks = [contains('open from ten')]) {
  const { case: saved } = await stack.client.saveTestCase({ ownerId: bot.ownerId, chatbotId: bot.id, question, checks, source: 'manual' });
  return saved!;
}

async function runsSettled(bot: { id: string }, count: number, timeoutMs = 60_000) {
  const queue = new Queue(QUEUES.testRun, { connection: stack.redis, prefix: stack.prefix });
  try {
    for (const deadline = Date.now() + timeoutMs; ;) {
      const runs = await db().testRun.findMany({ where: { chatbotId: bot.id }, orderBy: { createdAt: 'asc' } });
      const counts = await queue.getJobCounts('active', 'waiting', 'delayed');
      if (runs.length >= count && runs.every((r) => r.finishedAt) && counts.active === 0 && counts.waiting === 0) return runs;
      if (Date.now() > deadline) throw new Error(`runs not settled: ${JSON.stringify(runs.map((r) => r.status))}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await queue.close();
  }
}

async function run(bot: { ownerId: string; id: string }, count = 1) {
  const { run: started } = await stack.client.startTestRun({ ownerId: bot.ownerId, chatbotId: bot.id });
  await runsSettled(bot, count);
  return stack.client.getTestRun({ ownerId: bot.ownerId, chatbotId: bot.id, runId: started!.id });
}

const judgeOn = (bot: { ownerId: string; id: string }, rubric: string[] = [], extra: { emailOnRegression?: boolean } = {}) =>
  stack.client.saveQualitySettings({
    ownerId: bot.ownerId,
    chatbotId: bot.id,
    settings: { judgeEnabled: true, judgeModelId: 'gpt-4o-mini', rubric, emailOnRegression: extra.emailOnRegression ?? false },
  });

describe('the judge', () => {
  it('is off by default: a run asks no judge and its results carry no verdict', async () => {
    const bot = await newBot();
    const settings = (await stack.client.getQualitySettings({ ownerId: bot.ownerId, chatbotId: bot.id })).settings!;
    expect(settings).toMatchObject({ judgeEnabled: false, judgeModelId: '', emailOnRegression: false });
    expect(settings.rubric).toHaveLength(3);
    await addCase(bot);
    const got = await run(bot);
    expect(got.run!.judgeModel).toBe('');
    expect(judgeCalls()).toEqual([]);
    expect(stack.fake.requests).toHaveLength(1);
    expect(got.results[0]).toMatchObject({ passed: true, judgeVerdicts: [], judgeError: '', judgeCost: '0' });
  });

  it('grades each answer per criterion beside its checks, which alone decide the pass, billed exactly', async () => {
    const bot = await newBot();
    const saved = await judgeOn(bot, ['Faithful to the cited passages.', '  ', 'A friendly tone.']);
    expect(saved.settings!.rubric).toEqual(['Faithful to the cited passages.', 'A friendly tone.']);
    const grounded = await addCase(bot);
    // The chatbot does not know: the check passes, yet nothing cited supports the answer.
    const unknown = await addCase(bot, 'Can I bring my dog?', [{ kind: 'no_answer', phrases: [], entryId: '' }]);

    const start = new Prisma.Decimal(100);
    const got = await run(bot);
    expect(got.run).toMatchObject({ judgeModel: 'gpt-4o-mini', passed: 2, failed: 0 });
    expect(judgeCalls()).toHaveLength(2);
    expect(judgeCalls()[0].messages[0].content).toContain('1. Faithful to the cited passages.\n2. A friendly tone.');
    const byCase = new Map(got.results.map((r) => [r.caseId, r]));
    expect(byCase.get(grounded.id)!.judgeVerdicts).toEqual([
      expect.objectContaining({
        criterion: 'Faithful to the cited passages.',
        passed: true,
        reason: 'The cited passages support the answer.',
      }),
      expect.objectContaining({ criterion: 'A friendly tone.', passed: true }),
    ]);
    // The judge's fail does not fail the case: its checks passed.
    expect(byCase.get(unknown.id)).toMatchObject({ passed: true, judgeError: '' });
    expect(byCase.get(unknown.id)!.judgeVerdicts[0]).toMatchObject({ passed: false, reason: 'No cited passage supports the answer.' });

    // Billed: one usage record per answer and per judge call, each at the cost the run shows.
    await stack.applyUsage();
    const records = await usageRecords(bot.ownerId);
    expect(records).toHaveLength(4);
    const judged = await db().testResult.findMany({ where: { runId: got.run!.id } });
    for (const r of judged) {
      expect(r.judgeRequestId).not.toBe('');
      expect(records.find((u) => u.requestId === r.judgeRequestId)!.totalCost.toFixed()).toBe(r.judgeCost.toFixed());
      expect(records.find((u) => u.requestId === r.requestId)!.totalCost.toFixed()).toBe(r.cost.toFixed());
      expect(r.judgeCost.gt(0)).toBe(true);
    }
    const spent = sum(records.map((r) => r.totalCost));
    expect(got.run!.cost).toBe(spent.toFixed());
    const { creditBalance, reservedCredit } = await account(bot.ownerId);
    expect(creditBalance.toFixed()).toBe(start.sub(spent).toFixed());
    expect(reservedCredit.toFixed()).toBe('0');
  });

  it('gives a judge error, never a pass, for a malformed reply, and the case keeps its checks’ result', async () => {
    const bot = await newBot();
    await judgeOn(bot);
    await addCase(bot);
    await addCase(bot, 'What does the museum shop sell?', [contains('ice cream')]);
    const replies = ['Looks good to me!', JSON.stringify({ verdicts: [{ criterion: 1, passed: true, reason: 'Fine.' }] })];
    stack.fake.setBehaviour({
      reply: (body: FakeOpenAIRequest) => (structuredReply(body) === null ? groundedReply(body) : (replies.shift() ?? 'nothing')),
    });
    const got = await run(bot);
    expect(judgeCalls()).toHaveLength(2);
    expect(got.run).toMatchObject({ passed: 1, failed: 1 });
    const errors = got.results.map((r) => r.judgeError).sort();
    expect(errors[0]).toMatch(
      /^Judge error: the judge's reply could not be read \((1 verdicts for 3 criteria|the reply is not the verdicts asked for)\)\.$/,
    );
    expect(errors[1]).toMatch(/^Judge error: the judge's reply could not be read/);
    for (const r of got.results) expect(r.judgeVerdicts).toEqual([]);
    // The call was made: it is billed all the same.
    await stack.applyUsage();
    expect(await usageRecords(bot.ownerId)).toHaveLength(4);
  });

  it('on a small balance stops the run when a judge call cannot be held, never overdrawing it, billed exactly', async () => {
    // The holds of one answer and of one judge call (every case the same): a probe run tells them.
    const probe = await newBot([HOURS]);
    await judgeOn(probe);
    await addCase(probe);
    const probed = await run(probe);
    const holds = await stack.billing.prisma.creditReservation.findMany({ where: { ownerId: probe.ownerId } });
    const judgeRequest = (await db().testResult.findFirstOrThrow({ where: { runId: probed.run!.id } })).judgeRequestId;
    const judgeHold = holds.find((h) => h.requestId === judgeRequest)!.amount;
    const answerHold = holds.find((h) => h.requestId !== judgeRequest)!.amount;

    const bot = await newBot([HOURS]);
    await judgeOn(bot);
    for (let i = 0; i < 3; i++) await addCase(bot);
    // Two answers and one judge call fit, not a second of each (nothing settles meanwhile); which
    // hold is refused first depends on the lanes' order, so the run's outcome is checked, not its order.
    const start = answerHold.mul(2).add(judgeHold).add(judgeHold.div(2).toDecimalPlaces(10, Prisma.Decimal.ROUND_DOWN));
    await stack.setCredit(bot.ownerId, start.toFixed());
    stack.fake.reset();
    await stack.client.saveQualitySettings({ ownerId: bot.ownerId, chatbotId: bot.id, settings: { judgeEnabled: true } });
    const { run: started } = await stack.client.startTestRun({ ownerId: bot.ownerId, chatbotId: bot.id });
    await runsSettled(bot, 1);
    const got = await stack.client.getTestRun({ ownerId: bot.ownerId, chatbotId: bot.id, runId: started!.id });
    expect(got.run).toMatchObject({ status: 'stopped', stopReason: 'Stopped: not enough credit for the next answer.' });
    // Every judge call made gave its verdict; an answer whose judge could not be held says so.
    expect(got.results.filter((r) => r.judgeVerdicts.length > 0)).toHaveLength(judgeCalls().length);
    for (const r of got.results.filter((r) => r.judgeVerdicts.length === 0))
      expect(r.judgeError).toBe('Judge error: Stopped: not enough credit for the next answer.');

    await stack.applyUsage();
    const records = await usageRecords(bot.ownerId);
    expect(records).toHaveLength(stack.fake.requests.length);
    const spent = sum(records.map((r) => r.totalCost));
    expect(got.run!.cost).toBe(spent.toFixed());
    const { creditBalance, reservedCredit } = await account(bot.ownerId);
    expect(creditBalance.toFixed()).toBe(start.sub(spent).toFixed());
    expect(creditBalance.gte(0)).toBe(true);
    expect(reservedCredit.toFixed()).toBe('0');
  });

  it('reads the question and answer with placeholders for a chatbot keeping personal data from the model', async () => {
    const bot = await newBot();
    await stack.chatbots.updateChatbot({
      ownerId: bot.ownerId,
      chatbotId: bot.id,
      privacy: { redactPersonalData: true, keepOriginal: false },
    });
    await judgeOn(bot);
    await addCase(bot, 'When does the museum open? Write to ada@example.com', [contains('open from ten')]);
    await run(bot);
    const [judged] = judgeCalls();
    const read = judged.messages.map((m) => m.content).join('\n');
    expect(read).toContain('[EMAIL_1]');
    expect(read).not.toContain('ada@example.com');
  });

  it('refuses a model the deployment does not offer and a rubric out of bounds', async () => {
    const bot = await newBot();
    const unknown = await rpcError(
      stack.client.saveQualitySettings({
        ownerId: bot.ownerId,
        chatbotId: bot.id,
        settings: { judgeEnabled: true, judgeModelId: 'gpt-9' },
      }),
    );
    expect(unknown.code).toBe(Code.InvalidArgument);
    expect(unknown.rawMessage).toBe('Choose one of the offered models for the judge.');
    const long = await rpcError(
      stack.client.saveQualitySettings({
        ownerId: bot.ownerId,
        chatbotId: bot.id,
        settings: { judgeEnabled: true, rubric: Array.from({ length: 9 }, (_, i) => `Criterion ${i}`) },
      }),
    );
    expect(long.rawMessage).toBe('A rubric has at most 8 criteria.');
    const other = await newBot();
    expect((await rpcError(stack.client.getQualitySettings({ ownerId: other.ownerId, chatbotId: bot.id }))).code).toBe(Code.NotFound);
  });
});

describe('generated cases', () => {
  it('wait as proposals, billed, duplicates dropped, until accepted as proposed or edited, or discarded', async () => {
    const bot = await newBot([HOURS, SHOP, 'Tickets cost twelve euros for adults and are free for children.']);
    for (const count of [0, 21])
      expect((await rpcError(stack.client.generateTestCases({ ownerId: bot.ownerId, chatbotId: bot.id, count }))).rawMessage).toBe(
        'Generate between 1 and 20 cases.',
      );
    const first = await stack.client.generateTestCases({ ownerId: bot.ownerId, chatbotId: bot.id, count: 2 });
    expect(first.proposed.map((p) => p.question)).toEqual([
      'Tell me: the museum is open from ten?',
      'Tell me: the museum shop sells postcards books?',
    ]);
    expect(first.proposed[0].facts).toEqual([HOURS]);
    expect(first.duplicates).toBe(0);
    await stack.applyUsage();
    const [record] = await usageRecords(bot.ownerId);
    expect(record.totalCost.toFixed()).toBe(new Prisma.Decimal(first.cost).toFixed());
    // Proposals are not cases: a run does not answer them.
    expect((await stack.client.listTestCases({ ownerId: bot.ownerId, chatbotId: bot.id })).cases).toEqual([]);

    // The same two again, and a third: only the third is new.
    const again = await stack.client.generateTestCases({ ownerId: bot.ownerId, chatbotId: bot.id, count: 3 });
    expect(again.duplicates).toBe(2);
    expect(again.proposed.map((p) => p.question)).toEqual(['Tell me: tickets cost twelve euros for adults?']);

    const [hours, shop] = first.proposed;
    const accepted = await stack.client.acceptProposedTestCase({ ownerId: bot.ownerId, chatbotId: bot.id, proposalId: hours.id });
    expect(accepted.case).toMatchObject({
      question: hours.question,
      source: 'generated',
      checks: [{ kind: 'contains', phrases: [HOURS] }],
    });
    const edited = await stack.client.acceptProposedTestCase({
      ownerId: bot.ownerId,
      chatbotId: bot.id,
      proposalId: shop.id,
      question: 'What does the museum shop sell?',
      checks: [contains('postcards')],
    });
    expect(edited.case).toMatchObject({ question: 'What does the museum shop sell?', checks: [{ phrases: ['postcards'] }] });
    expect(
      (await rpcError(stack.client.acceptProposedTestCase({ ownerId: bot.ownerId, chatbotId: bot.id, proposalId: hours.id }))).code,
    ).toBe(Code.NotFound);
    await stack.client.discardProposedTestCase({ ownerId: bot.ownerId, chatbotId: bot.id, proposalId: again.proposed[0].id });
    expect((await stack.client.listProposedTestCases({ ownerId: bot.ownerId, chatbotId: bot.id })).proposed).toEqual([]);
    // An accepted question is a duplicate from now on.
    const third = await stack.client.generateTestCases({ ownerId: bot.ownerId, chatbotId: bot.id, count: 1 });
    expect(third).toMatchObject({ proposed: [], duplicates: 1 });
    // A generated case passes its run: its fact is the entry's first sentence.
    const got = await run(bot);
    expect(got.run).toMatchObject({ passed: 2, failed: 0 });
  });

  it('keeps nothing of a malformed reply, and needs knowledge and credit', async () => {
    const bot = await newBot();
    stack.fake.setBehaviour({ reply: '{"cases":[{"question":"Hours?"}]}' });
    const bad = await rpcError(stack.client.generateTestCases({ ownerId: bot.ownerId, chatbotId: bot.id, count: 2 }));
    expect(bad.code).toBe(Code.Unavailable);
    expect(bad.rawMessage).toBe("The model's reply was not the cases asked for: nothing was added. Please try again.");
    expect((await stack.client.listProposedTestCases({ ownerId: bot.ownerId, chatbotId: bot.id })).proposed).toEqual([]);

    const empty = await newBot([]);
    expect((await rpcError(stack.client.generateTestCases({ ownerId: empty.ownerId, chatbotId: empty.id, count: 2 }))).rawMessage).toBe(
      'Add knowledge entries first: the cases are generated from them.',
    );
    const broke = await newBot([HOURS], '0');
    stack.fake.reset();
    const refused = await rpcError(stack.client.generateTestCases({ ownerId: broke.ownerId, chatbotId: broke.id, count: 2 }));
    expect(refused.code).toBe(Code.FailedPrecondition);
    expect(refused.rawMessage).toBe('Not enough credit to generate cases.');
    expect(stack.fake.requests).toEqual([]);
  });
});

describe('the regression mail', () => {
  it('is queued once for a run with regressions when asked for, even when the run’s job comes again', async () => {
    const bot = await newBot();
    const entries = (await stack.chatbots.getChatbot({ ownerId: bot.ownerId, chatbotId: bot.id })).chatbot!.knowledgeBase!.textEntries;
    await stack.client.saveQualitySettings({ ownerId: bot.ownerId, chatbotId: bot.id, settings: { emailOnRegression: true } });
    await addCase(bot);
    await addCase(bot, 'What does the museum shop sell?', [contains('postcards')]);
    const mails = new Queue(QUEUES.testRunRegressed, { connection: stack.redis, prefix: stack.prefix });
    const mailsOf = async (runId: string) =>
      (await mails.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed'])).filter((j) => j.id === `regressed-${runId}`);
    try {
      const first = await run(bot);
      expect(await mailsOf(first.run!.id)).toEqual([]);
      await stack.chatbots.deleteTextEntry({
        ownerId: bot.ownerId,
        chatbotId: bot.id,
        entryId: entries.find((e) => e.content === HOURS)!.id,
      });
      const runs = await runsSettled(bot, 2, 30_000);
      const second = runs[1];
      const jobs = await mailsOf(second.id);
      expect(jobs).toHaveLength(1);
      const event = fromJson(TestRunRegressedSchema, jobs[0].data as JsonValue);
      expect(event).toMatchObject({ runId: second.id, ownerId: bot.ownerId, chatbotId: bot.id, questions: [QUESTION], regressions: 1 });
      expect((await db().testRun.findUniqueOrThrow({ where: { id: second.id } })).regressionMailedAt).not.toBeNull();

      // The run's job again (a retry after it finished): no second mail.
      const producer = createProducer(stack.redis, QUEUES.testRun, TestRunDueSchema, { prefix: stack.prefix });
      await producer.publish({ $typeName: 'parley.events.v1.TestRunDue', runId: second.id, chatbotId: bot.id }, `run-${second.id}-again`);
      await producer.close();
      await runsSettled(bot, 2);
      expect(await mailsOf(second.id)).toHaveLength(1);
      expect(
        (await mails.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed']))
          .filter((j) => j.id?.startsWith('regressed-'))
          .map((j) => j.id),
      ).not.toContain(`regressed-${first.run!.id}`);
    } finally {
      await mails.close();
    }
  });

  it('is not queued when the owner did not ask for it', async () => {
    const bot = await newBot();
    const entries = (await stack.chatbots.getChatbot({ ownerId: bot.ownerId, chatbotId: bot.id })).chatbot!.knowledgeBase!.textEntries;
    await addCase(bot);
    await run(bot);
    await stack.chatbots.deleteTextEntry({
      ownerId: bot.ownerId,
      chatbotId: bot.id,
      entryId: entries.find((e) => e.content === HOURS)!.id,
    });
    const runs = await runsSettled(bot, 2, 30_000);
    const got = await stack.client.getTestRun({ ownerId: bot.ownerId, chatbotId: bot.id, runId: runs[1].id });
    expect(got.run!.regressions).toBe(1);
    expect((await db().testRun.findUniqueOrThrow({ where: { id: runs[1].id } })).regressionMailedAt).toBeNull();
  });
});
