// Test runs (docs/adr/0050-quality-loop.md). A run answers every case of a chatbot with its current
// configuration, in the background: StartTestRun (or the automatic run after a change) stores the
// run and queues one TestRunDue job; the worker answers the cases a few at a time (bounded
// concurrency), each through the turn on the test-run channel (answer-case.ts), stores each answer
// and its checks' results, and finishes the run.
//
// Money: each answer holds its largest cost before its model is called and is billed its exact
// cost by its UsageRecorded, as a visitor's is, so a run on a small balance stops ("stopped") when
// a hold is refused and never overdraws. A cancelled run asks nothing more; the answers already
// given stay, billed. Retries: a result is stored once per case and run (unique), so a job
// retried after a crash answers only the cases that have none.
//
// Automatic runs: every ChatbotChanged of a chatbot with test cases (re)schedules one delayed
// TestRunDue per chatbot, debounced (a job still waiting is replaced and its delay starts again),
// so a burst of edits makes one run, AUTO_RUN_DELAY after the last.
import { randomUUID } from 'node:crypto';
import { ConnectError, Code } from '@connectrpc/connect';
import type { TestRunDueSchema, TestRunRegressedSchema } from '@parley/proto/parley/events/v1/quality_pb.js';
import { failedPrecondition, notFound } from '@parley/common/rpc-errors.ts';
import { isUuid } from '@parley/common/ids.ts';
import type { Producer } from '@parley/common/queues.ts';
import { Prisma, type TestResult, type TestRun } from '../generated/prisma/client.ts';
import { answerCase, type AnswerCaseDeps } from './answer-case.ts';
import { prepareChecks, runChecks, type Check } from './checks.ts';
import { ownedChatbot, type QualityDeps } from './test-cases.ts';
import type { OfferedModels } from '../models/offered-models.ts';
import { parseDraft, storedDraft, type Draft, type Variant } from './draft.ts';
import { billedCall, type BilledCallDeps } from './billed-call.ts';
import { JUDGE_MAX_TOKENS, JUDGE_SCHEMA_NAME, judgeErrorMessage, judgePrompt, judgeSchema, parseVerdicts, storedRubric } from './judge.ts';
import { settingsOf } from './settings.ts';
import { compileRedactionPatterns, redactor } from '@parley/common/personal-data.ts';

export const RUN_NOT_FOUND = 'Test run not found.';
export const NO_CASES = 'Add a test case first.';
export const RUN_UNDER_WAY = 'A test run is already under way.';
export const STOPPED_NO_CREDIT = 'Stopped: not enough credit for the next answer.';
export const STOPPED_SPEND_LIMIT = "Stopped: the chatbot's daily spend limit is reached.";

const UNDER_WAY = ['queued', 'running'];
/** The runs a chatbot's history shows (and the pass rate over time). */
export const RUN_HISTORY = 30;

export interface RunDeps extends QualityDeps {
  answer: AnswerCaseDeps;
  runs: Producer<typeof TestRunDueSchema>;
  /** The models this deployment offers: a side by side's draft and the judge name one of them. */
  offered: Pick<OfferedModels, 'find' | 'defaultModel'>;
  /** The judge's and the generated cases' model calls, billed as answers are (billed-call.ts). */
  judge: BilledCallDeps;
  /** TestRunRegressed: auth mails the workspace's owners. */
  regressed: Producer<typeof TestRunRegressedSchema>;
  /** Cases answered at once in one run. */
  concurrency: number;
  /** How long after a chatbot's last change its automatic run starts. */
  autoRunDelayMs: number;
}

export interface RunSummary {
  run: TestRun;
  passed: number;
  failed: number;
  notRun: number;
  regressions: number;
  cost: Prisma.Decimal;
}

export interface ResultView {
  result: TestResult;
  regression: boolean;
}

/** One side of a run (the configuration's, or a side by side's draft's). */
export interface RunTotals {
  answered: number;
  passed: number;
  costPerAnswer: Prisma.Decimal;
  medianLatencyMs: number;
}

const isUnderWay = (err: unknown) => err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002';

async function createRun(
  deps: RunDeps,
  bot: { id: string; uniqueId: string; ownerId: string },
  trigger: 'manual' | 'automatic',
  draft: Draft | null = null,
) {
  const totalCases = await deps.db.testCase.count({ where: { chatbotId: bot.id } });
  if (totalCases === 0) return null;
  // The judge as the settings are when the run starts: a change meanwhile applies to the next run.
  const settings = await settingsOf(deps.db, bot.id);
  const judgeModel = settings.judgeEnabled ? settings.judgeModelId || deps.offered.defaultModel?.id || '' : '';
  try {
    return await deps.db.testRun.create({
      data: {
        chatbotId: bot.id,
        ownerId: bot.ownerId,
        uniqueId: bot.uniqueId,
        trigger,
        totalCases,
        status: 'queued',
        judgeModel,
        rubric: judgeModel ? settings.rubric : [],
        ...(draft ? { draft: { ...draft } } : {}),
      },
    });
  } catch (err) {
    if (isUnderWay(err)) throw failedPrecondition(RUN_UNDER_WAY);
    throw err;
  }
}

export async function startTestRun(
  deps: RunDeps,
  input: { ownerId: string; chatbotId: string; draft?: { modelId: string; instructions: string; temperature?: number } },
): Promise<RunSummary> {
  const bot = await ownedChatbot(deps, input);
  const draft = parseDraft(input.draft, deps.offered);
  const run = await createRun(deps, bot, 'manual', draft);
  if (!run) throw failedPrecondition(NO_CASES);
  await deps.runs.publish({ $typeName: 'parley.events.v1.TestRunDue', runId: run.id, chatbotId: bot.id }, `run-${run.id}`);
  return { run, passed: 0, failed: 0, notRun: run.totalCases, regressions: 0, cost: new Prisma.Decimal(0) };
}

async function ownedRun(deps: RunDeps, input: { ownerId: string; chatbotId: string; runId: string }): Promise<TestRun> {
  const bot = await ownedChatbot(deps, input);
  const id = input.runId.trim().toLowerCase();
  const run = isUuid(id) ? await deps.db.testRun.findFirst({ where: { id, chatbotId: bot.id } }) : null;
  if (!run) throw notFound(RUN_NOT_FOUND);
  return run;
}

export async function cancelTestRun(deps: RunDeps, input: { ownerId: string; chatbotId: string; runId: string }): Promise<RunSummary> {
  const run = await ownedRun(deps, input);
  await deps.db.testRun.updateMany({
    where: { id: run.id, status: { in: UNDER_WAY } },
    data: { status: 'cancelled', finishedAt: new Date() },
  });
  return (await summaries(deps, [await deps.db.testRun.findUniqueOrThrow({ where: { id: run.id } })], run.chatbotId))[0];
}

/** Each run's counts, and its regressions against the run before it (of the same chatbot). */
async function summaries(deps: RunDeps, runs: TestRun[], chatbotId: string): Promise<RunSummary[]> {
  if (runs.length === 0) return [];
  const oldest = runs[runs.length - 1];
  const previous = await previousRun(deps, chatbotId, oldest);
  const all = previous ? [...runs, previous] : runs;
  const results = await deps.db.testResult.findMany({
    where: { runId: { in: all.map((r) => r.id) } },
    select: { runId: true, caseId: true, variant: true, passed: true, error: true, cost: true, judgeCost: true },
  });
  const byRun = new Map<string, typeof results>();
  const costs = new Map<string, Prisma.Decimal>();
  // Counts and regressions are the configuration's side; a run's cost is every answer it got (a side by side's draft's too) and every judge's call.
  for (const r of results) {
    costs.set(r.runId, (costs.get(r.runId) ?? new Prisma.Decimal(0)).add(r.cost).add(r.judgeCost));
    if (r.variant === 'current') byRun.set(r.runId, [...(byRun.get(r.runId) ?? []), r]);
  }
  return runs.map((run, i) => {
    const mine = byRun.get(run.id) ?? [];
    const before = new Map((byRun.get(all[i + 1]?.id ?? '') ?? []).map((r) => [r.caseId, r.passed]));
    const answered = mine.filter((r) => !r.error);
    const passed = answered.filter((r) => r.passed).length;
    return {
      run,
      passed,
      failed: answered.length - passed,
      notRun: run.totalCases - answered.length,
      regressions: answered.filter((r) => !r.passed && before.get(r.caseId) === true).length,
      cost: costs.get(run.id) ?? new Prisma.Decimal(0),
    };
  });
}

/** The finished run of the chatbot before `run`, what its regressions are counted against. */
const previousRun = (deps: RunDeps, chatbotId: string, run: TestRun) =>
  deps.db.testRun.findFirst({
    where: { chatbotId, createdAt: { lt: run.createdAt }, status: { notIn: UNDER_WAY } },
    orderBy: { createdAt: 'desc' },
  });

export async function listTestRuns(deps: RunDeps, input: { ownerId: string; chatbotId: string }): Promise<RunSummary[]> {
  const bot = await ownedChatbot(deps, input);
  const runs = await deps.db.testRun.findMany({ where: { chatbotId: bot.id }, orderBy: { createdAt: 'desc' }, take: RUN_HISTORY });
  return summaries(deps, runs, bot.id);
}

/** Results, regressions first, then the other failures, the cases not run, and the passes. */
export async function getTestRun(
  deps: RunDeps,
  input: { ownerId: string; chatbotId: string; runId: string },
): Promise<{ summary: RunSummary; results: ResultView[]; draftResults: TestResult[]; totals: RunTotals; draftTotals: RunTotals | null }> {
  const run = await ownedRun(deps, input);
  const [summary] = await summaries(deps, [run], run.chatbotId);
  const previous = await previousRun(deps, run.chatbotId, run);
  const [all, before] = await Promise.all([
    deps.db.testResult.findMany({ where: { runId: run.id }, orderBy: { createdAt: 'asc' } }),
    previous
      ? deps.db.testResult.findMany({ where: { runId: previous.id, variant: 'current' }, select: { caseId: true, passed: true } })
      : [],
  ]);
  const results = all.filter((r) => r.variant === 'current');
  const drafts = all.filter((r) => r.variant === 'draft');
  const passedBefore = new Map(before.map((r) => [r.caseId, r.passed]));
  const rank = (v: ResultView) => (v.regression ? 0 : v.result.error ? 2 : v.result.passed ? 3 : 1);
  const views = results.map((result) => ({
    result,
    regression: !result.passed && !result.error && passedBefore.get(result.caseId) === true,
  }));
  views.sort((a, b) => rank(a) - rank(b));
  // The draft's answers in the order of the configuration's, each beside its case; a case the draft alone answered after them.
  const order = new Map(views.map((v, i) => [v.result.caseId, i]));
  const draftResults = [...drafts].sort((a, b) => (order.get(a.caseId) ?? order.size) - (order.get(b.caseId) ?? order.size));
  return {
    summary,
    results: views,
    draftResults,
    totals: totalsOf(results),
    draftTotals: storedDraft(run.draft) ? totalsOf(drafts) : null,
  };
}

/** A side's answers (errors left out): how many passed, the cost per answer (exact), the median latency. */
export function totalsOf(results: Pick<TestResult, 'error' | 'passed' | 'cost' | 'latencyMs'>[]): RunTotals {
  const answered = results.filter((r) => !r.error);
  const cost = answered.reduce((sum, r) => sum.add(r.cost), new Prisma.Decimal(0));
  const latencies = answered.map((r) => r.latencyMs).sort((a, b) => a - b);
  const mid = latencies.length >> 1;
  const median = latencies.length === 0 ? 0 : latencies.length % 2 ? latencies[mid] : Math.round((latencies[mid - 1] + latencies[mid]) / 2);
  return {
    answered: answered.length,
    passed: answered.filter((r) => r.passed).length,
    costPerAnswer: answered.length ? cost.div(answered.length).toDecimalPlaces(10) : new Prisma.Decimal(0),
    medianLatencyMs: median,
  };
}

/** A refusal of the hold that ends the run: no credit, or the chatbot's daily spend limit. */
function stopReason(err: unknown): string | null {
  if (!(err instanceof ConnectError)) return null;
  if (err.code === Code.ResourceExhausted) return STOPPED_SPEND_LIMIT;
  if (err.code === Code.Unavailable) return STOPPED_NO_CREDIT;
  return null;
}

/** Answers every case of the run that has no result yet, `concurrency` at a time, then finishes it. */
export async function processRun(deps: RunDeps, runId: string): Promise<void> {
  const started = await deps.db.testRun.updateMany({ where: { id: runId, status: { in: UNDER_WAY } }, data: { status: 'running' } });
  // Finished, cancelled or gone; a job retried after the run finished still sends the mail it may not have.
  if (started.count === 0) {
    await mailRegressions(deps, runId);
    return;
  }
  const run = await deps.db.testRun.findUniqueOrThrow({ where: { id: runId } });
  const judge = run.judgeModel ? await judgeOf(deps, run) : null;
  const [cases, done] = await Promise.all([
    deps.db.testCase.findMany({ where: { chatbotId: run.chatbotId, createdAt: { lte: run.createdAt } }, orderBy: { createdAt: 'asc' } }),
    deps.db.testResult.findMany({ where: { runId }, select: { caseId: true, variant: true } }),
  ]);
  // Each case once with the configuration, and once more with a side by side's draft.
  const draft = storedDraft(run.draft);
  const variants: Variant[] = draft ? ['current', 'draft'] : ['current'];
  const answered = new Set(done.map((d) => `${d.caseId}\n${d.variant}`));
  const pending = cases.flatMap((c) => variants.filter((v) => !answered.has(`${c.id}\n${v}`)).map((variant) => ({ c, variant })));
  let stop: { status: 'cancelled' | 'stopped'; reason: string } | null = null;
  let model = run.model;
  let next = 0;
  const log = deps.logger.child({ runId, chatbotId: run.chatbotId });

  const answerOne = async ({ c, variant }: (typeof pending)[number]) => {
    const current = await deps.db.testRun.findUnique({ where: { id: runId }, select: { status: true } });
    if (current?.status !== 'running') {
      stop ??= { status: 'cancelled', reason: '' };
      return;
    }
    const question = {
      uniqueId: run.uniqueId,
      question: c.question,
      earlierTurns: c.earlierTurns as unknown as { role: 'user' | 'assistant'; content: string }[],
      draft: variant === 'draft' ? draft : null,
    };
    let data: Prisma.TestResultCreateManyInput;
    try {
      const answer = await answerCase(deps.answer, question);
      if (answer.model && variant === 'current') model = answer.model;
      await prepareChecks(c.checks as unknown as Check[]);
      const checked = runChecks(c.checks as unknown as Check[], {
        text: answer.text,
        sources: answer.sources,
        unanswered: answer.unanswered,
        offerHandoff: answer.offerHandoff,
      });
      data = {
        runId,
        caseId: c.id,
        variant,
        requestId: answer.requestId,
        question: c.question,
        answer: answer.text,
        sources: answer.sources as object[],
        promptTokens: answer.promptTokens,
        completionTokens: answer.completionTokens,
        cost: answer.cost,
        latencyMs: answer.latencyMs,
        passed: checked.passed,
        checks: checked.results as object[],
      };
      if (judge) {
        const judged = await judge({
          question: c.question,
          earlierTurns: question.earlierTurns,
          answer: answer.text,
          sources: answer.sources,
        });
        if (judged.stop) stop ??= { status: 'stopped', reason: judged.stop };
        data = { ...data, ...judged.data };
      }
    } catch (err) {
      const reason = stopReason(err);
      if (reason) {
        stop ??= { status: 'stopped', reason };
        return;
      }
      log.warn({ err: (err as Error).message, caseId: c.id }, 'a test case could not be answered');
      const message = err instanceof ConnectError ? err.rawMessage : 'The chatbot could not answer.';
      data = { runId, caseId: c.id, variant, question: c.question, passed: false, error: message };
    }
    await deps.db.testResult.createMany({ data: [data], skipDuplicates: true });
  };

  const lane = async () => {
    while (!stop && next < pending.length) await answerOne(pending[next++]);
  };
  await Promise.all(Array.from({ length: Math.max(1, deps.concurrency) }, lane));
  const outcome = stop as { status: 'cancelled' | 'stopped'; reason: string } | null;
  await deps.db.testRun.updateMany({
    where: { id: runId, status: 'running' },
    data: { status: outcome?.status ?? 'completed', stopReason: outcome?.reason ?? '', finishedAt: new Date(), model },
  });
  if (outcome?.status === 'cancelled') await deps.db.testRun.updateMany({ where: { id: runId }, data: { model } });
  await mailRegressions(deps, runId);
}

type JudgeStep = (input: {
  question: string;
  earlierTurns: { role: string; content: string }[];
  answer: string;
  sources: { entryId: string; title: string }[];
}) => Promise<{ data: Partial<Prisma.TestResultCreateManyInput>; stop: string | null }>;

/**
 * The run's judge: each answer graded against the run's rubric by its judge model, the cited
 * entries' text as the passages; billed like an answer. A refused hold stops the run (the answer
 * itself is kept, unjudged); any other failure, a malformed reply included, is the result's judge error.
 */
async function judgeOf(deps: RunDeps, run: TestRun): Promise<JudgeStep> {
  const rubric = storedRubric(run.rubric);
  const chatbot = await deps.chatbots
    .getChatbot({ ownerId: run.ownerId, chatbotId: run.chatbotId })
    .then((r) => r.chatbot ?? null)
    .catch((err: Error) => {
      deps.logger.warn({ err: err.message, runId: run.id }, 'chatbot GetChatbot failed: the run is not judged');
      return null;
    });
  const entries = new Map((chatbot?.knowledgeBase?.textEntries ?? []).map((e) => [e.id, e]));
  // A chatbot keeping personal data from the model (ADR 49) has the judge read the question, the
  // earlier turns and the answer with placeholders, as its answering model read them.
  const patterns = chatbot?.privacy?.redactPersonalData ? compileRedactionPatterns(chatbot.privacy.patterns ?? []) : null;
  return async (input) => {
    // One redactor per call: its placeholders are numbered per answer, as a turn's are.
    const redaction = patterns ? redactor({ custom: patterns }) : null;
    const hide = (text: string) => (redaction ? redaction.redact(text) : text);
    if (!chatbot) return { data: { judgeError: 'Judge error: the chatbot could not be read.' }, stop: null };
    const passages = input.sources.flatMap((s) => {
      const entry = entries.get(s.entryId);
      return entry
        ? [{ title: entry.title || s.title, content: entry.question ? `${entry.question}\n${entry.content}` : entry.content }]
        : [];
    });
    try {
      const billed = await billedCall(deps.judge, {
        ownerId: run.ownerId,
        chatbotId: run.chatbotId,
        chatbotName: chatbot.name,
        dailySpendLimit: chatbot.limits?.dailySpendLimit || null,
        modelId: run.judgeModel,
        messages: judgePrompt({
          rubric,
          question: hide(input.question),
          earlierTurns: input.earlierTurns.map((t) => ({ role: t.role, content: hide(t.content) })),
          answer: hide(input.answer),
          passages,
        }),
        maxTokens: JUDGE_MAX_TOKENS,
        jsonSchema: { name: JUDGE_SCHEMA_NAME, schema: judgeSchema(rubric.length) },
      });
      if (!billed) return { data: { judgeError: 'Judge error: no model is offered.' }, stop: null };
      const billedPart = { judgeRequestId: billed.requestId, judgeCost: billed.cost };
      try {
        return { data: { ...billedPart, judgeVerdicts: parseVerdicts(billed.answer.text, rubric) as object[] }, stop: null };
      } catch (err) {
        return { data: { ...billedPart, judgeError: judgeErrorMessage(err) }, stop: null };
      }
    } catch (err) {
      const reason = stopReason(err);
      if (reason) return { data: { judgeError: `Judge error: ${reason}` }, stop: reason };
      deps.logger.warn({ err: (err as Error).message, runId: run.id }, 'the judge could not grade an answer');
      return { data: { judgeError: judgeErrorMessage(err) }, stop: null };
    }
  };
}

/** Regressed questions a mail lists at most, each this long at most. */
const MAIL_QUESTIONS = 20;
const MAIL_QUESTION_CHARS = 200;

/**
 * A finished run with regressions of a chatbot whose owner asked for the mail: TestRunRegressed,
 * once per run (its job id is the run's, and the run is marked once it is queued, so a retried job
 * queues none). A cancelled run is not mailed: the owner stopped it.
 */
export async function mailRegressions(deps: RunDeps, runId: string): Promise<boolean> {
  const run = await deps.db.testRun.findUnique({ where: { id: runId } });
  if (!run || run.regressionMailedAt || !run.finishedAt || !['completed', 'stopped'].includes(run.status)) return false;
  const settings = await settingsOf(deps.db, run.chatbotId);
  if (!settings.emailOnRegression) return false;
  const previous = await previousRun(deps, run.chatbotId, run);
  if (!previous) return false;
  const [now, before] = await Promise.all([
    deps.db.testResult.findMany({ where: { runId: run.id, variant: 'current', passed: false, error: '' }, orderBy: { createdAt: 'asc' } }),
    deps.db.testResult.findMany({ where: { runId: previous.id, variant: 'current', passed: true }, select: { caseId: true } }),
  ]);
  const passedBefore = new Set(before.map((r) => r.caseId));
  const regressed = now.filter((r) => passedBefore.has(r.caseId));
  if (regressed.length === 0) return false;
  const name = await deps.chatbots
    .getChatbot({ ownerId: run.ownerId, chatbotId: run.chatbotId })
    .then((r) => r.chatbot?.name ?? '')
    .catch(() => '');
  await deps.regressed.publish(
    {
      $typeName: 'parley.events.v1.TestRunRegressed',
      runId: run.id,
      ownerId: run.ownerId,
      chatbotId: run.chatbotId,
      chatbotName: name,
      questions: regressed.slice(0, MAIL_QUESTIONS).map((r) => [...r.question].slice(0, MAIL_QUESTION_CHARS).join('')),
      regressions: regressed.length,
    },
    `regressed-${run.id}`,
  );
  const { count } = await deps.db.testRun.updateMany({
    where: { id: run.id, regressionMailedAt: null },
    data: { regressionMailedAt: new Date() },
  });
  return count === 1;
}

/** ChatbotChanged: a chatbot with test cases gets its automatic run, AUTO_RUN_DELAY after its last change. */
export async function scheduleAutomaticRun(deps: RunDeps, chatbotId: string): Promise<boolean> {
  const id = chatbotId.trim().toLowerCase();
  if (!isUuid(id)) return false;
  const hasCases = await deps.db.testCase.findFirst({ where: { chatbotId: id }, select: { id: true } });
  if (!hasCases) return false;
  await deps.runs.publish({ $typeName: 'parley.events.v1.TestRunDue', runId: '', chatbotId: id }, `auto-${id}-${randomUUID()}`, {
    delayMs: deps.autoRunDelayMs,
    debounceId: `auto-${id}`,
  });
  return true;
}

/** TestRunDue: a queued run answered, or the chatbot's automatic run started and answered. */
export async function runDue(deps: RunDeps, event: { runId: string; chatbotId: string }): Promise<void> {
  if (event.runId) return processRun(deps, event.runId);
  const chatbotId = event.chatbotId.trim().toLowerCase();
  const owner = await deps.db.testCase.findFirst({ where: { chatbotId }, select: { ownerId: true } });
  if (!owner) return;
  let bot;
  try {
    bot = await ownedChatbot(deps, { ownerId: owner.ownerId, chatbotId });
  } catch (err) {
    if (err instanceof ConnectError && err.code === Code.NotFound) return; // deleted meanwhile
    throw err;
  }
  let run;
  try {
    run = await createRun(deps, bot, 'automatic');
  } catch (err) {
    // A run is under way: the change is tested by another automatic run once this one has had time to finish.
    if (err instanceof ConnectError && err.code === Code.FailedPrecondition) {
      await scheduleAutomaticRun(deps, chatbotId);
      return;
    }
    throw err;
  }
  if (run) await processRun(deps, run.id);
}
