// The ChatService's quality-loop methods over ConnectRPC (docs/adr/0050-quality-loop.md), spread into
// the service's routes by rpc.ts: map proto messages to the use cases and back, nothing more.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  ProposedTestCaseSchema,
  QualitySettingsSchema,
  TestCaseSchema,
  TestCheckSchema,
  TestResultSchema,
  TestRunSchema,
  TestTotalsSchema,
  type CancelTestRunRequest,
  type DeleteTestCaseRequest,
  type GetTestRunRequest,
  type ImportTestCasesRequest,
  type ListTestCasesRequest,
  type ListTestRunsRequest,
  type SaveTestCaseRequest,
  type StartTestRunRequest,
  type TestCheck,
  type AcceptProposedTestCaseRequest,
  type DiscardProposedTestCaseRequest,
  type GenerateTestCasesRequest,
  type GetQualitySettingsRequest,
  type ListProposedTestCasesRequest,
  type SaveQualitySettingsRequest,
} from '@parley/proto/parley/chat/v1/chat_pb.js';
import type { ProposedTestCase, TestCase } from '../generated/prisma/client.ts';
import type { JudgeVerdict } from './judge.ts';
import { getQualitySettings, saveQualitySettings, type Settings } from './settings.ts';
import { acceptProposedTestCase, discardProposedTestCase, generateTestCases, listProposedTestCases } from './generate.ts';
import type { Check, CheckResult } from './checks.ts';
import {
  cancelTestRun,
  getTestRun,
  listTestRuns,
  startTestRun,
  type ResultView,
  type RunDeps,
  type RunSummary,
  type RunTotals,
} from './runs.ts';
import { storedDraft } from './draft.ts';
import { deleteTestCase, importTestCases, listTestCases, saveTestCase } from './test-cases.ts';

const toCheck = (c: Check) =>
  create(TestCheckSchema, {
    kind: c.kind,
    phrases: 'phrases' in c ? c.phrases : [],
    entryId: 'entryId' in c ? c.entryId : '',
    language: 'language' in c ? c.language : '',
  });

const fromCheck = (c: TestCheck) => ({ kind: c.kind, phrases: c.phrases, entryId: c.entryId, language: c.language });

export const toTestCase = (c: TestCase) =>
  create(TestCaseSchema, {
    id: c.id,
    chatbotId: c.chatbotId,
    question: c.question,
    earlierTurns: c.earlierTurns as { role: string; content: string }[],
    checks: (c.checks as unknown as Check[]).map(toCheck),
    expectedAnswer: c.expectedAnswer,
    source: c.source,
    createdAt: timestampFromDate(c.createdAt),
  });

const toRun = (s: RunSummary) =>
  create(TestRunSchema, {
    id: s.run.id,
    chatbotId: s.run.chatbotId,
    trigger: s.run.trigger,
    status: s.run.status,
    totalCases: s.run.totalCases,
    passed: s.passed,
    failed: s.failed,
    notRun: s.notRun,
    regressions: s.regressions,
    cost: s.cost.toFixed(),
    createdAt: timestampFromDate(s.run.createdAt),
    finishedAt: s.run.finishedAt ? timestampFromDate(s.run.finishedAt) : undefined,
    model: s.run.model,
    stopReason: s.run.stopReason,
    draft: storedDraft(s.run.draft) ?? undefined,
    judgeModel: s.run.judgeModel,
  });

const toSettings = (s: Settings) => create(QualitySettingsSchema, s);

const toProposal = (p: ProposedTestCase) =>
  create(ProposedTestCaseSchema, {
    id: p.id,
    chatbotId: p.chatbotId,
    question: p.question,
    facts: p.facts as string[],
    createdAt: timestampFromDate(p.createdAt),
  });

const toTotals = (t: RunTotals) =>
  create(TestTotalsSchema, {
    answered: t.answered,
    passed: t.passed,
    costPerAnswer: t.costPerAnswer.toFixed(),
    medianLatencyMs: t.medianLatencyMs,
  });

const toResult = ({ result: r, regression }: ResultView) =>
  create(TestResultSchema, {
    caseId: r.caseId,
    question: r.question,
    answer: r.answer,
    sources: r.sources as { entryId: string; title: string; url: string }[],
    promptTokens: r.promptTokens,
    completionTokens: r.completionTokens,
    cost: r.cost.toFixed(),
    latencyMs: r.latencyMs,
    passed: r.passed,
    checks: (r.checks as unknown as CheckResult[]).map((c) => ({ check: toCheck(c.check), passed: c.passed, detail: c.detail })),
    regression,
    error: r.error,
    requestId: r.requestId,
    judgeVerdicts: r.judgeVerdicts as unknown as JudgeVerdict[],
    judgeError: r.judgeError,
    judgeCost: r.judgeCost.toFixed(),
  });

export function qualityMethods(deps: { quality: RunDeps }) {
  const q = deps.quality;
  return {
    async listTestCases(req: ListTestCasesRequest) {
      return { cases: (await listTestCases(q, req)).map(toTestCase) };
    },
    async saveTestCase(req: SaveTestCaseRequest) {
      const saved = await saveTestCase(q, { ...req, checks: req.checks.map(fromCheck) });
      return { case: toTestCase(saved) };
    },
    async deleteTestCase(req: DeleteTestCaseRequest) {
      await deleteTestCase(q, req);
      return {};
    },
    async importTestCases(req: ImportTestCasesRequest) {
      const imported = await importTestCases(q, {
        ownerId: req.ownerId,
        chatbotId: req.chatbotId,
        cases: req.cases.map((c) => ({ ...c, checks: c.checks.map(fromCheck) })),
      });
      return { imported };
    },
    async startTestRun(req: StartTestRunRequest) {
      return { run: toRun(await startTestRun(q, { ownerId: req.ownerId, chatbotId: req.chatbotId, draft: req.draft })) };
    },
    async cancelTestRun(req: CancelTestRunRequest) {
      return { run: toRun(await cancelTestRun(q, req)) };
    },
    async listTestRuns(req: ListTestRunsRequest) {
      return { runs: (await listTestRuns(q, req)).map(toRun) };
    },
    async getQualitySettings(req: GetQualitySettingsRequest) {
      return { settings: toSettings(await getQualitySettings(q, req)) };
    },
    async saveQualitySettings(req: SaveQualitySettingsRequest) {
      return {
        settings: toSettings(await saveQualitySettings(q, { ownerId: req.ownerId, chatbotId: req.chatbotId, settings: req.settings })),
      };
    },
    async generateTestCases(req: GenerateTestCasesRequest) {
      const got = await generateTestCases(q, req);
      return { proposed: got.proposed.map(toProposal), duplicates: got.duplicates, cost: got.cost };
    },
    async listProposedTestCases(req: ListProposedTestCasesRequest) {
      return { proposed: (await listProposedTestCases(q, req)).map(toProposal) };
    },
    async acceptProposedTestCase(req: AcceptProposedTestCaseRequest) {
      const saved = await acceptProposedTestCase(q, { ...req, checks: req.checks.map(fromCheck) });
      return { case: toTestCase(saved) };
    },
    async discardProposedTestCase(req: DiscardProposedTestCaseRequest) {
      await discardProposedTestCase(q, req);
      return {};
    },
    async getTestRun(req: GetTestRunRequest) {
      const got = await getTestRun(q, req);
      return {
        run: toRun(got.summary),
        results: got.results.map(toResult),
        draftResults: got.draftResults.map((result) => toResult({ result, regression: false })),
        totals: toTotals(got.totals),
        draftTotals: got.draftTotals ? toTotals(got.draftTotals) : undefined,
      };
    },
  };
}
