// The quality loop's views (docs/adr/0050-quality-loop.md) from the chat service's messages, and the
// run estimate from the model catalogue.
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type {
  ProposedTestCase,
  QualitySettings,
  TestCase,
  TestCheck,
  TestResult,
  TestRun,
  TestTotals,
} from '@parley/proto/parley/chat/v1/chat_pb.js';
import type { ModelCatalogue } from '@parley/common/models/catalogue.ts';
import { typicalAnswerCost } from '../models/models.ts';

const iso = (t: Parameters<typeof timestampDate>[0] | undefined) => (t ? timestampDate(t).toISOString() : null);

export const checkView = (c: TestCheck | undefined) => ({
  kind: c?.kind ?? '',
  phrases: [...(c?.phrases ?? [])],
  entryId: c?.entryId || null,
  /** A "language" check's language code ("fr"); null for other kinds. */
  language: c?.language || null,
});

export const testCaseView = (c: TestCase) => ({
  id: c.id,
  question: c.question,
  earlierTurns: c.earlierTurns.map((t) => ({ role: t.role, content: t.content })),
  checks: c.checks.map(checkView),
  expectedAnswer: c.expectedAnswer,
  source: c.source,
  createdAt: iso(c.createdAt)!,
});

export const testRunView = (r: TestRun) => {
  const answered = r.passed + r.failed;
  return {
    id: r.id,
    trigger: r.trigger,
    status: r.status,
    totalCases: r.totalCases,
    passed: r.passed,
    failed: r.failed,
    notRun: r.notRun,
    regressions: r.regressions,
    passRate: answered ? r.passed / answered : null,
    cost: r.cost || '0',
    model: r.model,
    stopReason: r.stopReason || null,
    createdAt: iso(r.createdAt)!,
    finishedAt: iso(r.finishedAt),
    draft: r.draft ? { modelId: r.draft.modelId, instructions: r.draft.instructions, temperature: r.draft.temperature ?? null } : null,
    judgeModel: r.judgeModel || null,
  };
};

export const testTotalsView = (t: TestTotals | undefined) => ({
  answered: t?.answered ?? 0,
  passed: t?.passed ?? 0,
  passRate: t?.answered ? t.passed / t.answered : null,
  costPerAnswer: t?.costPerAnswer || '0',
  medianLatencyMs: t?.medianLatencyMs ?? 0,
});

export const testResultView = (r: TestResult) => ({
  caseId: r.caseId,
  question: r.question,
  answer: r.answer,
  sources: r.sources.map((s) => ({ entryId: s.entryId, title: s.title, url: s.url || null })),
  promptTokens: r.promptTokens,
  completionTokens: r.completionTokens,
  cost: r.cost || '0',
  latencyMs: r.latencyMs,
  passed: r.passed,
  regression: r.regression,
  error: r.error || null,
  checks: r.checks.map((c) => ({ check: checkView(c.check), passed: c.passed, detail: c.detail })),
  judgeVerdicts: r.judgeVerdicts.map((v) => ({ criterion: v.criterion, passed: v.passed, reason: v.reason })),
  judgeError: r.judgeError || null,
  judgeCost: r.judgeCost || '0',
});

export const qualitySettingsView = (s: QualitySettings | undefined) => ({
  judgeEnabled: s?.judgeEnabled ?? false,
  judgeModelId: s?.judgeModelId || null,
  rubric: [...(s?.rubric ?? [])],
  emailOnRegression: s?.emailOnRegression ?? false,
});

export const proposedTestCaseView = (p: ProposedTestCase) => ({
  id: p.id,
  question: p.question,
  facts: [...p.facts],
  createdAt: iso(p.createdAt)!,
});

const SCALE = 10n ** 10n;

/** `dollars` × `n`, exact (decimal strings of at most 10 places, as the catalogue's prices give). */
export function timesDollars(dollars: string, n: number): string {
  const [whole, frac = ''] = dollars.split('.');
  const total = (BigInt(whole!) * SCALE + BigInt(frac.padEnd(10, '0').slice(0, 10))) * BigInt(n);
  const dec = (total % SCALE).toString().padStart(10, '0').replace(/0+$/, '');
  return dec ? `${total / SCALE}.${dec}` : `${total / SCALE}`;
}

/** Cases × a typical answer at the chatbot's model (the catalogue's default for an unknown id). */
export function runEstimate(catalogue: ModelCatalogue, modelId: string, cases: number) {
  const model = catalogue.find(modelId) ?? catalogue.defaultModel;
  const costPerAnswer = typicalAnswerCost(model);
  return { cases, model: model.id, costPerAnswer, estimatedCost: timesDollars(costPerAnswer, cases) };
}
