// GraphQL of the quality loop (docs/adr/0050-quality-loop.md): test cases, runs, their files and
// "Improve answer". The chat service owns every rule on cases and runs; the chatbot service the Q&A
// pair an improved answer becomes; the gateway reads and writes the files (test-files.ts) and prices
// the estimate from the catalogue.
import { invalid, notFound } from '@parley/common/rpc-errors.ts';
import { CHATBOT_NOT_FOUND } from '@parley/common/not-found.ts';
import type { Resolvers } from '../../generated/graphql.ts';
import { updateChatbot, voiceChange } from '../chatbots/chatbots.ts';
import { textEntryView } from '../knowledge/knowledge.ts';
import { modelChoiceChange } from '../models/models.ts';
import { parseFormat, readTestFile, writeTestFile } from './test-files.ts';
import {
  checkView,
  proposedTestCaseView,
  qualitySettingsView,
  runEstimate,
  testCaseView,
  testResultView,
  testRunView,
  testTotalsView,
} from './views.ts';

const checkInput = (c: { kind: string; phrases?: string[] | null; entryId?: string | null; language?: string | null }) => ({
  kind: c.kind,
  phrases: c.phrases ?? [],
  entryId: c.entryId ?? '',
  language: c.language ?? '',
});

export const NO_DRAFT = 'This run has no draft to apply.';

export const qualityResolvers: Resolvers = {
  Query: {
    testCases: async (_parent, { chatbotId }, ctx) => {
      const { cases } = await ctx.clients.chat.listTestCases({ ownerId: (await ctx.member()).ownerId, chatbotId });
      return cases.map(testCaseView);
    },
    testRuns: async (_parent, { chatbotId }, ctx) => {
      const { runs } = await ctx.clients.chat.listTestRuns({ ownerId: (await ctx.member()).ownerId, chatbotId });
      return runs.map(testRunView);
    },
    testRun: async (_parent, { chatbotId, runId }, ctx) => {
      const got = await ctx.clients.chat.getTestRun({ ownerId: (await ctx.member()).ownerId, chatbotId, runId });
      return {
        run: testRunView(got.run!),
        results: got.results.map(testResultView),
        draftResults: got.draftResults.map(testResultView),
        totals: testTotalsView(got.totals),
        draftTotals: got.draftTotals ? testTotalsView(got.draftTotals) : null,
      };
    },
    testRunEstimate: async (_parent, { chatbotId }, ctx) => {
      const ownerId = (await ctx.member()).ownerId;
      const [{ cases }, { chatbots }] = await Promise.all([
        ctx.clients.chat.listTestCases({ ownerId, chatbotId }),
        ctx.clients.chatbot.listChatbots({ ownerId, includeKnowledgeBase: false }),
      ]);
      const bot = chatbots.find((c) => c.id === chatbotId.trim().toLowerCase());
      if (!bot) throw notFound(CHATBOT_NOT_FOUND);
      return runEstimate(ctx.catalogue, bot.model?.modelId ?? '', cases.length);
    },
    exportTestCases: async (_parent, { chatbotId, format }, ctx) => {
      const as = parseFormat(format);
      const { cases } = await ctx.clients.chat.listTestCases({ ownerId: (await ctx.member()).ownerId, chatbotId });
      return writeTestFile(
        as,
        cases.map((c) => ({ ...c, checks: c.checks.map(checkView) })),
      );
    },
    qualitySettings: async (_parent, { chatbotId }, ctx) => {
      const { settings } = await ctx.clients.chat.getQualitySettings({ ownerId: (await ctx.member()).ownerId, chatbotId });
      return qualitySettingsView(settings);
    },
    proposedTestCases: async (_parent, { chatbotId }, ctx) => {
      const { proposed } = await ctx.clients.chat.listProposedTestCases({ ownerId: (await ctx.member()).ownerId, chatbotId });
      return proposed.map(proposedTestCaseView);
    },
  },
  Mutation: {
    saveQualitySettings: async (_parent, { chatbotId, input }, ctx) => {
      const ownerId = (await ctx.member()).ownerId;
      const judgeModelId = input.judgeModelId?.trim() ?? '';
      // The judge's model is one the workspace may choose, as in the Model card (offered here, allowed on its plan).
      if (judgeModelId) await modelChoiceChange(ctx.clients, ownerId, { modelId: judgeModelId });
      const { settings } = await ctx.clients.chat.saveQualitySettings({
        ownerId,
        chatbotId,
        settings: {
          judgeEnabled: input.judgeEnabled,
          judgeModelId,
          rubric: input.rubric ?? [],
          emailOnRegression: input.emailOnRegression,
        },
      });
      return qualitySettingsView(settings);
    },
    generateTestCases: async (_parent, { chatbotId, count }, ctx) => {
      const got = await ctx.clients.chat.generateTestCases({ ownerId: (await ctx.member()).ownerId, chatbotId, count });
      return { proposed: got.proposed.map(proposedTestCaseView), duplicates: got.duplicates, cost: got.cost || '0' };
    },
    acceptProposedTestCase: async (_parent, { chatbotId, proposalId, question, checks }, ctx) => {
      const { case: saved } = await ctx.clients.chat.acceptProposedTestCase({
        ownerId: (await ctx.member()).ownerId,
        chatbotId,
        proposalId,
        question: question ?? '',
        checks: (checks ?? []).map(checkInput),
      });
      return testCaseView(saved!);
    },
    discardProposedTestCase: async (_parent, { chatbotId, proposalId }, ctx) => {
      await ctx.clients.chat.discardProposedTestCase({ ownerId: (await ctx.member()).ownerId, chatbotId, proposalId });
      return true;
    },
    saveTestCase: async (_parent, { chatbotId, caseId, input }, ctx) => {
      const { case: saved } = await ctx.clients.chat.saveTestCase({
        ownerId: (await ctx.member()).ownerId,
        chatbotId,
        caseId: caseId ?? '',
        question: input.question,
        earlierTurns: input.earlierTurns ?? [],
        checks: input.checks.map(checkInput),
        expectedAnswer: input.expectedAnswer ?? '',
        source: input.source ?? 'manual',
      });
      return testCaseView(saved!);
    },
    deleteTestCase: async (_parent, { chatbotId, caseId }, ctx) => {
      await ctx.clients.chat.deleteTestCase({ ownerId: (await ctx.member()).ownerId, chatbotId, caseId });
      return true;
    },
    importTestCases: async (_parent, { chatbotId, format, content }, ctx) => {
      const cases = readTestFile(parseFormat(format), content);
      const { imported } = await ctx.clients.chat.importTestCases({ ownerId: (await ctx.member()).ownerId, chatbotId, cases });
      return imported;
    },
    startTestRun: async (_parent, { chatbotId, draft }, ctx) => {
      const ownerId = (await ctx.member()).ownerId;
      // A draft's model is one the workspace may choose, as in the Model card (offered here, allowed on its plan).
      if (draft) await modelChoiceChange(ctx.clients, ownerId, { modelId: draft.modelId });
      const { run } = await ctx.clients.chat.startTestRun({
        ownerId,
        chatbotId,
        draft: draft
          ? {
              modelId: draft.modelId,
              instructions: draft.instructions,
              ...(draft.temperature == null ? {} : { temperature: draft.temperature }),
            }
          : undefined,
      });
      return testRunView(run!);
    },
    cancelTestRun: async (_parent, { chatbotId, runId }, ctx) => {
      const { run } = await ctx.clients.chat.cancelTestRun({ ownerId: (await ctx.member()).ownerId, chatbotId, runId });
      return testRunView(run!);
    },
    applyTestDraft: async (_parent, { chatbotId, runId }, ctx) => {
      const m = await ctx.member();
      const { run } = await ctx.clients.chat.getTestRun({ ownerId: m.ownerId, chatbotId, runId });
      const draft = run?.draft;
      if (!draft) throw invalid(NO_DRAFT);
      // The chatbot service's ordinary settings change: the model checked against the plan, recorded in the audit log.
      return updateChatbot(
        ctx.clients,
        ctx.catalogue,
        { actor: { userId: m.user.id, workspaceId: m.ownerId, clientIp: m.clientIp }, details: { testRunId: run.id } },
        chatbotId,
        voiceChange({ instructions: draft.instructions, temperature: draft.temperature ?? null }),
        { modelId: draft.modelId },
      );
    },
    improveAnswer: async (_parent, { chatbotId, question, answer, addTest }, ctx) => {
      const ownerId = (await ctx.member()).ownerId;
      const added = await ctx.clients.chatbot.addQaEntry({ ownerId, chatbotId, question, answer });
      const entry = textEntryView(added.entry);
      if (!addTest) return { entry, testCase: null };
      // The pair answers the question verbatim and cites itself: the case checks that it is cited.
      const { case: saved } = await ctx.clients.chat.saveTestCase({
        ownerId,
        chatbotId,
        question,
        checks: [{ kind: 'cites', phrases: [], entryId: entry.id }],
        expectedAnswer: answer,
        source: 'improve',
      });
      return { entry, testCase: testCaseView(saved!) };
    },
  },
};
