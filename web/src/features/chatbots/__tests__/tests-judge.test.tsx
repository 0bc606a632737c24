import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { Handler } from '../../../test/mock-link';
import { editedProposal, parseCount, parseRubricText } from '../quality-form';
import { knowledgeBaseOf, openDetail, qualitySettingsOf } from './detail-page-fixtures';

// The Tests section's judge, generated cases and regression mail
// (docs/adr/0061-the-judge-generated-cases-and-the-regression-mail.md).

const HOURS = 'The museum is open from ten until six.';
const kb = () => knowledgeBaseOf([{ id: 'e1', content: HOURS, status: 'ready' }]);
const named = (calls: ReturnType<typeof openDetail>['calls'], name: string) => calls.filter((c) => c.operationName === name);
const panel = async () => within(await screen.findByRole('form', { name: 'Judge and regression mail' }));

const proposal = (id: string, question: string, facts: string[]) => ({
  __typename: 'ProposedTestCase',
  id,
  question,
  facts,
  createdAt: '2026-12-02T10:00:00.000Z',
});

const run = {
  __typename: 'TestRun',
  id: 'r1',
  trigger: 'manual',
  status: 'completed',
  totalCases: 1,
  passed: 1,
  failed: 0,
  notRun: 0,
  regressions: 0,
  passRate: 1,
  cost: '0.0002',
  model: 'gpt-4o-mini',
  stopReason: null,
  createdAt: '2026-12-02T10:00:00.000Z',
  finishedAt: '2026-12-02T10:00:05.000Z',
  draft: null,
  judgeModel: 'gpt-4o-mini',
};
const totals = { __typename: 'TestTotals', answered: 1, passed: 1, passRate: 1, costPerAnswer: '0.0002', medianLatencyMs: 40 };
const result = (overrides: Record<string, unknown>) => ({
  __typename: 'TestResult',
  caseId: 'k1',
  question: 'When does the museum open?',
  answer: `${HOURS} [1]`,
  passed: true,
  regression: false,
  error: null,
  cost: '0.0001',
  latencyMs: 40,
  checks: [],
  sources: [],
  ...overrides,
});
const verdicts = (caseId: string, overrides: Record<string, unknown>) => ({
  __typename: 'TestResult',
  caseId,
  judgeVerdicts: [],
  judgeError: null,
  ...overrides,
});

describe('the judge and the regression mail', () => {
  it('turn on with a model and an edited rubric, one criterion a line, and save', async () => {
    const save: Handler = ({ variables }) => ({
      data: { saveQualitySettings: qualitySettingsOf({ ...(variables.input as object) }) },
    });
    const { calls } = openDetail(kb(), { SaveQualitySettings: save });
    const form = await panel();
    expect(form.queryByLabelText('Rubric')).toBeNull();
    fireEvent.click(form.getByRole('switch', { name: /Grade answers with a judge/ }));
    fireEvent.change(form.getByLabelText("Judge's model"), { target: { value: 'gpt-4o-mini' } });
    fireEvent.change(form.getByLabelText('Rubric'), { target: { value: 'Faithful to the passages.\n\n  Friendly tone.  ' } });
    fireEvent.click(form.getByRole('switch', { name: /Email me when a run has regressions/ }));
    fireEvent.click(form.getByRole('button', { name: 'Save quality settings' }));
    expect(await screen.findByText('Quality settings saved')).toBeTruthy();
    expect(named(calls, 'SaveQualitySettings')[0].variables).toEqual({
      chatbotId: 'c1',
      input: {
        judgeEnabled: true,
        judgeModelId: 'gpt-4o-mini',
        rubric: ['Faithful to the passages.', 'Friendly tone.'],
        emailOnRegression: true,
      },
    });
  });

  it('refuse a rubric of more than 8 criteria before asking', async () => {
    const { calls } = openDetail(kb(), {
      QualitySettings: () => ({ data: { qualitySettings: qualitySettingsOf({ judgeEnabled: true }) } }),
    });
    const form = await panel();
    fireEvent.change(await form.findByLabelText('Rubric'), { target: { value: Array.from({ length: 9 }, (_, i) => `C${i}`).join('\n') } });
    fireEvent.click(form.getByRole('button', { name: 'Save quality settings' }));
    expect(await form.findByText('A rubric has at most 8 criteria.')).toBeTruthy();
    expect(named(calls, 'SaveQualitySettings')).toEqual([]);
  });

  it("show the judge's verdict beside a result's checks, and a judge error as such", async () => {
    openDetail(kb(), {
      TestCases: () => ({ data: { testCases: [] } }),
      TestRuns: () => ({ data: { testRuns: [run] } }),
      TestRun: () => ({
        data: {
          testRun: {
            __typename: 'TestRunDetail',
            run,
            results: [result({}), result({ caseId: 'k2', question: 'Is there a shop?' })],
            draftResults: [],
            totals,
            draftTotals: null,
          },
        },
      }),
      TestRunJudge: () => ({
        data: {
          testRun: {
            __typename: 'TestRunDetail',
            results: [
              verdicts('k1', {
                judgeVerdicts: [
                  { __typename: 'TestJudgeVerdict', criterion: 'Faithful.', passed: true, reason: 'The passages support it.' },
                  { __typename: 'TestJudgeVerdict', criterion: 'Tone.', passed: false, reason: 'Curt.' },
                ],
              }),
              result({
                caseId: 'k2',
                question: 'Is there a shop?',
                judgeError: "Judge error: the judge's reply could not be read (prose).",
              }),
            ],
            draftResults: [],
            totals,
            draftTotals: null,
          },
        },
      }),
    });
    const verdict = within(await screen.findByRole('group', { name: "Judge's verdict" }));
    expect(verdict.getByText('Judge: 1 of 2 criteria met')).toBeTruthy();
    expect(verdict.getByText(/The passages support it\./)).toBeTruthy();
    expect(verdict.getByText(/Curt\./)).toBeTruthy();
    expect(screen.getByText("Judge error: the judge's reply could not be read (prose).")).toBeTruthy();
    expect(screen.getByText(/Judged by gpt-4o-mini/)).toBeTruthy();
  });
});

describe('generated cases', () => {
  it('are asked for, then accepted as proposed or edited, or discarded', async () => {
    let proposed = [
      proposal('p1', 'When does it open?', [HOURS]),
      proposal('p2', 'Is there a shop?', ['postcards']),
      proposal('p3', 'Parking?', ['parking']),
    ];
    const { calls } = openDetail(kb(), {
      ProposedTestCases: () => ({ data: { proposedTestCases: proposed } }),
      GenerateTestCases: () => ({
        data: { generateTestCases: { __typename: 'GeneratedTestCases', proposed, duplicates: 0, cost: '0.0003' } },
      }),
      AcceptProposedTestCase: ({ variables }) => {
        proposed = proposed.filter((p) => p.id !== variables.proposalId);
        return {
          data: {
            acceptProposedTestCase: {
              __typename: 'TestCase',
              id: 'k1',
              question: 'q',
              expectedAnswer: '',
              source: 'generated',
              createdAt: '2026-12-02T10:00:00.000Z',
              earlierTurns: [],
              checks: [],
            },
          },
        };
      },
      DiscardProposedTestCase: ({ variables }) => {
        proposed = proposed.filter((p) => p.id !== variables.proposalId);
        return { data: { discardProposedTestCase: true } };
      },
    });
    fireEvent.click(await screen.findByRole('button', { name: 'Generate cases' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Generate cases' }));
    fireEvent.change(dialog.getByLabelText('Number of cases'), { target: { value: '21' } });
    fireEvent.click(dialog.getByRole('button', { name: 'Generate' }));
    expect(await dialog.findByText('Generate between 1 and 20 cases.')).toBeTruthy();
    fireEvent.change(dialog.getByLabelText('Number of cases'), { target: { value: '2' } });
    fireEvent.click(dialog.getByRole('button', { name: 'Generate' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Generate cases' })).toBeNull());
    expect(named(calls, 'GenerateTestCases')[0].variables).toEqual({ chatbotId: 'c1', count: 2 });

    const section = within(await screen.findByRole('region', { name: 'Proposed cases' }));
    expect(section.getByText(`Contains: ${HOURS}`)).toBeTruthy();
    fireEvent.click(section.getByRole('button', { name: 'Accept: When does it open?' }));
    await waitFor(() => expect(named(calls, 'AcceptProposedTestCase')).toHaveLength(1));
    expect(named(calls, 'AcceptProposedTestCase')[0].variables).toEqual({
      chatbotId: 'c1',
      proposalId: 'p1',
      question: null,
      checks: null,
    });

    fireEvent.click(await section.findByRole('button', { name: 'Discard: Parking?' }));
    await waitFor(() => expect(named(calls, 'DiscardProposedTestCase')[0]?.variables).toEqual({ chatbotId: 'c1', proposalId: 'p3' }));

    fireEvent.click(await section.findByRole('button', { name: 'Edit: Is there a shop?' }));
    fireEvent.change(section.getByLabelText('Facts the answer must state'), { target: { value: 'postcards\nbooks' } });
    fireEvent.click(section.getByRole('button', { name: 'Accept edited' }));
    await waitFor(() => expect(named(calls, 'AcceptProposedTestCase')).toHaveLength(2));
    expect(named(calls, 'AcceptProposedTestCase')[1].variables).toEqual({
      chatbotId: 'c1',
      proposalId: 'p2',
      question: 'Is there a shop?',
      checks: [
        { kind: 'contains', phrases: ['postcards'] },
        { kind: 'contains', phrases: ['books'] },
      ],
    });
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Proposed cases' })).toBeNull());
  });

  it('are read and bounded as the service does', () => {
    expect(parseCount('20')).toEqual({ count: 20 });
    expect(parseCount('2.5')).toEqual({ error: 'Generate between 1 and 20 cases.' });
    expect(parseRubricText(' a \n\n b ')).toEqual({ rubric: ['a', 'b'] });
    expect(parseRubricText('x'.repeat(301))).toEqual({ error: 'A criterion has at most 300 characters.' });
    expect(editedProposal(' ', 'x')).toEqual({ error: 'A test case needs a question.' });
    expect(editedProposal('Q?', '\n')).toEqual({ error: 'Keep at least one fact the answer must state.' });
  });
});
