import { skipToken, useMutation, useQuery } from '@apollo/client/react';
import { useState } from 'react';
import type { QualitySettingsInput, TestCaseInput, TestCheckInput, TestDraftInput } from '../../../gql/graphql';
import { graphqlErrorMessage, userFacingErrorMessage } from '../../../lib/graphql-errors';
import {
  AcceptProposedTestCaseMutation,
  DiscardProposedTestCaseMutation,
  GenerateTestCasesMutation,
  ProposedTestCasesQuery,
  QualitySettingsQuery,
  TestRunJudgeQuery,
  SaveQualitySettingsMutation,
  ApplyTestDraftMutation,
  CancelTestRunMutation,
  DeleteTestCaseMutation,
  ExportTestCasesQuery,
  ImportTestCasesMutation,
  ImproveAnswerMutation,
  SaveTestCaseMutation,
  StartTestRunMutation,
  TestCasesQuery,
  TestRunEstimateQuery,
  TestRunQuery,
  TestRunsQuery,
} from '../graphql/quality';
import { useApolloClient } from '@apollo/client/react';

export const LOAD_TESTS_FAILED_MESSAGE = 'Failed to load the tests';
const UNDER_WAY = new Set(['queued', 'running']);
/** How often the section asks about a run under way. */
export const RUN_POLL_MS = 1000;

/** The chatbot's cases and runs, and the latest run's results; polled while a run is under way. */
export function useTests(chatbotId: string) {
  const cases = useQuery(TestCasesQuery, { variables: { chatbotId }, fetchPolicy: 'cache-and-network' });
  const runs = useQuery(TestRunsQuery, { variables: { chatbotId }, fetchPolicy: 'cache-and-network' });
  const latest = runs.data?.testRuns[0] ?? null;
  const underWay = latest ? UNDER_WAY.has(latest.status) : false;
  const detail = useQuery(
    TestRunQuery,
    latest
      ? { variables: { chatbotId, runId: latest.id }, fetchPolicy: 'cache-and-network', pollInterval: underWay ? RUN_POLL_MS : 0 }
      : skipToken,
  );
  // A judged run's verdicts, by case (a query of their own: the operation's cost bound).
  const judged = detail.data?.testRun.run.judgeModel ? detail.data.testRun.run : null;
  const judge = useQuery(
    TestRunJudgeQuery,
    judged
      ? { variables: { chatbotId, runId: judged.id }, fetchPolicy: 'cache-and-network', pollInterval: underWay ? RUN_POLL_MS : 0 }
      : skipToken,
  );
  const verdicts = new Map((judge.data?.testRun.results ?? []).map((r) => [r.caseId, r]));
  // The list follows the run while it is under way (its counts, then its end).
  if (underWay && detail.data && !UNDER_WAY.has(detail.data.testRun.run.status)) void runs.refetch().catch(() => undefined);
  const error = cases.error ?? runs.error;
  return {
    cases: cases.data?.testCases ?? [],
    runs: runs.data?.testRuns ?? [],
    latest: detail.data?.testRun ?? null,
    verdicts,
    underWay,
    loading: (cases.loading && !cases.data) || (runs.loading && !runs.data),
    error: error ? userFacingErrorMessage(error, LOAD_TESTS_FAILED_MESSAGE) : null,
    refresh: () => Promise.all([cases.refetch(), runs.refetch()]).catch(() => undefined),
    refreshRuns: () => runs.refetch().catch(() => undefined),
  };
}

/** A mutation's call with its busy flag and the message of its last failure. */
function useAction<A extends unknown[], R>(run: (...args: A) => Promise<R>, fallback: string) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function act(...args: A): Promise<R | null> {
    setBusy(true);
    setError(null);
    try {
      return await run(...args);
    } catch (failure) {
      setError(graphqlErrorMessage(failure) ?? fallback);
      return null;
    } finally {
      setBusy(false);
    }
  }
  return { act, busy, error, clearError: () => setError(null) };
}

export function useSaveTestCase(chatbotId: string) {
  const [mutate] = useMutation(SaveTestCaseMutation, { refetchQueries: [TestCasesQuery] });
  return useAction(
    (input: TestCaseInput, caseId?: string) => mutate({ variables: { chatbotId, caseId: caseId ?? null, input } }),
    'Failed to save the test case',
  );
}

export function useDeleteTestCase(chatbotId: string) {
  const [mutate] = useMutation(DeleteTestCaseMutation, { refetchQueries: [TestCasesQuery] });
  return useAction((caseId: string) => mutate({ variables: { chatbotId, caseId } }), 'Failed to delete the test case');
}

export function useImportTestCases(chatbotId: string) {
  const [mutate] = useMutation(ImportTestCasesMutation, { refetchQueries: [TestCasesQuery] });
  return useAction(
    async (format: string, content: string) => (await mutate({ variables: { chatbotId, format, content } })).data?.importTestCases ?? 0,
    'Failed to import the test cases',
  );
}

export function useExportTestCases(chatbotId: string) {
  const client = useApolloClient();
  return useAction(async (format: string) => {
    const { data } = await client.query({ query: ExportTestCasesQuery, variables: { chatbotId, format }, fetchPolicy: 'network-only' });
    return data?.exportTestCases ?? '';
  }, 'Failed to export the test cases');
}

export function useRunEstimate(chatbotId: string, enabled: boolean) {
  const { data, error } = useQuery(TestRunEstimateQuery, enabled ? { variables: { chatbotId }, fetchPolicy: 'network-only' } : skipToken);
  return { estimate: data?.testRunEstimate ?? null, error: error ? userFacingErrorMessage(error, 'Failed to estimate the run') : null };
}

export function useStartTestRun(chatbotId: string) {
  const [mutate] = useMutation(StartTestRunMutation, { refetchQueries: [TestRunsQuery] });
  return useAction((draft?: TestDraftInput) => mutate({ variables: { chatbotId, draft: draft ?? null } }), 'Failed to start the run');
}

export function useApplyTestDraft(chatbotId: string) {
  const [mutate] = useMutation(ApplyTestDraftMutation);
  return useAction((runId: string) => mutate({ variables: { chatbotId, runId } }), 'Failed to apply the draft');
}

export function useCancelTestRun(chatbotId: string) {
  const [mutate] = useMutation(CancelTestRunMutation, { refetchQueries: [TestRunsQuery, TestRunQuery] });
  return useAction((runId: string) => mutate({ variables: { chatbotId, runId } }), 'Failed to cancel the run');
}

export function useImproveAnswer(chatbotId: string) {
  const [mutate] = useMutation(ImproveAnswerMutation, { refetchQueries: [TestCasesQuery] });
  return useAction(
    (question: string, answer: string, addTest: boolean) => mutate({ variables: { chatbotId, question, answer, addTest } }),
    'Failed to improve the answer',
  );
}

/** The judge's and the regression mail's settings (docs/adr/0061-the-judge-generated-cases-and-the-regression-mail.md). */
export function useQualitySettings(chatbotId: string) {
  const { data, error } = useQuery(QualitySettingsQuery, { variables: { chatbotId }, fetchPolicy: 'cache-and-network' });
  return {
    settings: data?.qualitySettings ?? null,
    error: error ? userFacingErrorMessage(error, 'Failed to load the quality settings') : null,
  };
}

export function useSaveQualitySettings(chatbotId: string) {
  const [mutate] = useMutation(SaveQualitySettingsMutation, { refetchQueries: [QualitySettingsQuery] });
  return useAction(
    async (input: QualitySettingsInput) => (await mutate({ variables: { chatbotId, input } })).data?.saveQualitySettings ?? null,
    'Failed to save the quality settings',
  );
}

/** Cases generated from the knowledge, waiting for the owner. */
export function useProposedTestCases(chatbotId: string) {
  const { data, error } = useQuery(ProposedTestCasesQuery, { variables: { chatbotId }, fetchPolicy: 'cache-and-network' });
  return {
    proposed: data?.proposedTestCases ?? [],
    error: error ? userFacingErrorMessage(error, 'Failed to load the proposed cases') : null,
  };
}

export function useGenerateTestCases(chatbotId: string) {
  const [mutate] = useMutation(GenerateTestCasesMutation, { refetchQueries: [ProposedTestCasesQuery] });
  return useAction(
    async (count: number) => (await mutate({ variables: { chatbotId, count } })).data?.generateTestCases ?? null,
    'Failed to generate test cases',
  );
}

export function useAcceptProposedTestCase(chatbotId: string) {
  const [mutate] = useMutation(AcceptProposedTestCaseMutation, { refetchQueries: [ProposedTestCasesQuery, TestCasesQuery] });
  return useAction(
    (proposalId: string, edit?: { question: string; checks: TestCheckInput[] }) =>
      mutate({ variables: { chatbotId, proposalId, question: edit?.question ?? null, checks: edit?.checks ?? null } }),
    'Failed to accept the case',
  );
}

export function useDiscardProposedTestCase(chatbotId: string) {
  const [mutate] = useMutation(DiscardProposedTestCaseMutation, { refetchQueries: [ProposedTestCasesQuery] });
  return useAction((proposalId: string) => mutate({ variables: { chatbotId, proposalId } }), 'Failed to discard the case');
}
