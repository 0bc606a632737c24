import { graphql } from '../../../gql';

// The quality loop's documents (docs/adr/0050-quality-loop.md): test cases, runs, their files, and
// "Improve answer".

export const TestCaseFieldsFragment = graphql(`
  fragment TestCaseFields on TestCase {
    id
    question
    expectedAnswer
    source
    createdAt
    earlierTurns {
      role
      content
    }
    checks {
      kind
      phrases
      entryId
      language
    }
  }
`);

export const TestRunFieldsFragment = graphql(`
  fragment TestRunFields on TestRun {
    id
    trigger
    status
    totalCases
    passed
    failed
    notRun
    regressions
    passRate
    cost
    model
    stopReason
    createdAt
    finishedAt
    draft {
      modelId
      instructions
      temperature
    }
    judgeModel
  }
`);

// A case's answer and its checks; the draft's answers leave their sources out (the operation's cost bound).
export const TestResultFieldsFragment = graphql(`
  fragment TestResultFields on TestResult {
    caseId
    question
    answer
    passed
    regression
    error
    cost
    latencyMs
    checks {
      passed
      detail
      check {
        kind
        phrases
        entryId
      }
    }
  }
`);

export const TestTotalsFieldsFragment = graphql(`
  fragment TestTotalsFields on TestTotals {
    answered
    passed
    passRate
    costPerAnswer
    medianLatencyMs
  }
`);

export const TestCasesQuery = graphql(`
  query TestCases($chatbotId: ID!) {
    testCases(chatbotId: $chatbotId) {
      ...TestCaseFields
    }
  }
`);

export const TestRunsQuery = graphql(`
  query TestRuns($chatbotId: ID!) {
    testRuns(chatbotId: $chatbotId) {
      ...TestRunFields
    }
  }
`);

export const TestRunQuery = graphql(`
  query TestRun($chatbotId: ID!, $runId: ID!) {
    testRun(chatbotId: $chatbotId, runId: $runId) {
      run {
        ...TestRunFields
      }
      results {
        ...TestResultFields
        sources {
          entryId
          title
          url
        }
      }
      draftResults {
        ...TestResultFields
      }
      totals {
        ...TestTotalsFields
      }
      draftTotals {
        ...TestTotalsFields
      }
    }
  }
`);

export const TestRunEstimateQuery = graphql(`
  query TestRunEstimate($chatbotId: ID!) {
    testRunEstimate(chatbotId: $chatbotId) {
      cases
      model
      costPerAnswer
      estimatedCost
    }
  }
`);

export const ExportTestCasesQuery = graphql(`
  query ExportTestCases($chatbotId: ID!, $format: String!) {
    exportTestCases(chatbotId: $chatbotId, format: $format)
  }
`);

export const SaveTestCaseMutation = graphql(`
  mutation SaveTestCase($chatbotId: ID!, $caseId: ID, $input: TestCaseInput!) {
    saveTestCase(chatbotId: $chatbotId, caseId: $caseId, input: $input) {
      ...TestCaseFields
    }
  }
`);

export const DeleteTestCaseMutation = graphql(`
  mutation DeleteTestCase($chatbotId: ID!, $caseId: ID!) {
    deleteTestCase(chatbotId: $chatbotId, caseId: $caseId)
  }
`);

export const ImportTestCasesMutation = graphql(`
  mutation ImportTestCases($chatbotId: ID!, $format: String!, $content: String!) {
    importTestCases(chatbotId: $chatbotId, format: $format, content: $content)
  }
`);

export const StartTestRunMutation = graphql(`
  mutation StartTestRun($chatbotId: ID!, $draft: TestDraftInput) {
    startTestRun(chatbotId: $chatbotId, draft: $draft) {
      ...TestRunFields
    }
  }
`);

// A side by side's draft applied: the chatbot's voice and model come back, so its settings show them.
export const ApplyTestDraftMutation = graphql(`
  mutation ApplyTestDraft($chatbotId: ID!, $runId: ID!) {
    applyTestDraft(chatbotId: $chatbotId, runId: $runId) {
      ...ChatbotVoice
      ...ChatbotModelSettings
    }
  }
`);

export const CancelTestRunMutation = graphql(`
  mutation CancelTestRun($chatbotId: ID!, $runId: ID!) {
    cancelTestRun(chatbotId: $chatbotId, runId: $runId) {
      ...TestRunFields
    }
  }
`);

export const ImproveAnswerMutation = graphql(`
  mutation ImproveAnswer($chatbotId: ID!, $question: String!, $answer: String!, $addTest: Boolean!) {
    improveAnswer(chatbotId: $chatbotId, question: $question, answer: $answer, addTest: $addTest) {
      entry {
        id
      }
      testCase {
        ...TestCaseFields
      }
    }
  }
`);

// The judge, generated cases and the regression mail (docs/adr/0061-the-judge-generated-cases-and-the-regression-mail.md).
export const QualitySettingsFieldsFragment = graphql(`
  fragment QualitySettingsFields on QualitySettings {
    judgeEnabled
    judgeModelId
    rubric
    emailOnRegression
  }
`);

export const QualitySettingsQuery = graphql(`
  query QualitySettings($chatbotId: ID!) {
    qualitySettings(chatbotId: $chatbotId) {
      ...QualitySettingsFields
    }
  }
`);

export const SaveQualitySettingsMutation = graphql(`
  mutation SaveQualitySettings($chatbotId: ID!, $input: QualitySettingsInput!) {
    saveQualitySettings(chatbotId: $chatbotId, input: $input) {
      ...QualitySettingsFields
    }
  }
`);

export const ProposedTestCaseFieldsFragment = graphql(`
  fragment ProposedTestCaseFields on ProposedTestCase {
    id
    question
    facts
    createdAt
  }
`);

export const ProposedTestCasesQuery = graphql(`
  query ProposedTestCases($chatbotId: ID!) {
    proposedTestCases(chatbotId: $chatbotId) {
      ...ProposedTestCaseFields
    }
  }
`);

export const GenerateTestCasesMutation = graphql(`
  mutation GenerateTestCases($chatbotId: ID!, $count: Int!) {
    generateTestCases(chatbotId: $chatbotId, count: $count) {
      proposed {
        ...ProposedTestCaseFields
      }
      duplicates
      cost
    }
  }
`);

export const AcceptProposedTestCaseMutation = graphql(`
  mutation AcceptProposedTestCase($chatbotId: ID!, $proposalId: ID!, $question: String, $checks: [TestCheckInput!]) {
    acceptProposedTestCase(chatbotId: $chatbotId, proposalId: $proposalId, question: $question, checks: $checks) {
      ...TestCaseFields
    }
  }
`);

export const DiscardProposedTestCaseMutation = graphql(`
  mutation DiscardProposedTestCase($chatbotId: ID!, $proposalId: ID!) {
    discardProposedTestCase(chatbotId: $chatbotId, proposalId: $proposalId)
  }
`);

// A judged run's verdicts, apart from its results (the operation's cost bound).
export const TestRunJudgeQuery = graphql(`
  query TestRunJudge($chatbotId: ID!, $runId: ID!) {
    testRun(chatbotId: $chatbotId, runId: $runId) {
      results {
        caseId
        judgeVerdicts {
          criterion
          passed
          reason
        }
        judgeError
      }
    }
  }
`);
