// The quality loop through the gateway (docs/adr/0050-quality-loop.md): test cases on GraphQL, their
// CSV and JSONL files (every bad line named, a file read back as written), the run estimate from the
// catalogue, a run answered in the background, a side by side of a draft and applying it, and
// "Improve answer" making a Q&A pair and its case.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '@parley/common/testing/fake-openai.ts';
import { registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, gql, startStack, type Stack } from './stack.ts';

let stack: Stack;
let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
  stack = await startStack({ chatEnv: { OPENAI_API_KEY: 'sk-test-openai', OPENAI_BASE_URL: fake.url } });
});
afterAll(async () => {
  await stack?.close();
  await fake?.close();
});

const CASE = 'id question checks { kind phrases entryId language } expectedAnswer source';
const RUN = 'id trigger status totalCases passed failed notRun regressions passRate cost model stopReason';

async function ownerWithChatbot(tag: string) {
  const owner = await registerOwner(stack, tag);
  const res = await api(stack.url, '/api/chatbot', { body: { name: 'Museum helper' }, token: owner.token });
  expect(res.status).toBe(201);
  const chatbotId = (res.body as { _id: string })._id;
  const kb = await q(owner, `mutation($c: ID!, $t: String!) { addTextEntry(chatbotId: $c, text: $t) { textEntries { id } } }`, {
    c: chatbotId,
    t: 'The museum is open from ten until six, every day but Monday.',
  });
  return { owner, chatbotId, entryId: kb.addTextEntry.textEntries[0].id as string };
}

async function q(owner: Owner, query: string, variables: Record<string, unknown>) {
  const res = await gql(stack.url, query, variables, owner.token);
  if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
  return res.body.data;
}

const importFile = (owner: Owner, chatbotId: string, format: string, content: string) =>
  gql(
    stack.url,
    `mutation($c: ID!, $f: String!, $x: String!) { importTestCases(chatbotId: $c, format: $f, content: $x) }`,
    { c: chatbotId, f: format, x: content },
    owner.token,
  );

describe('test cases on GraphQL', () => {
  it('import CSV and JSONL, naming each bad line, and export them back as they were', async () => {
    const { owner, chatbotId, entryId } = await ownerWithChatbot('quality-files');
    const csv = [
      'question,must_contain,must_not_contain,cites,says_it_does_not_know,offers_a_person,expected_answer,earlier_turns,language',
      `When does the museum open?,open from ten|open from 10; until six,closed,${entryId},,,"It is open from ten until six.",,en`,
      '"Can I bring my dog,\nplease?",,,,yes,,',
      ',open,,,,,',
      'Parking?,,,,,,',
      `Who built it?,,,entry-7,,,`,
    ].join('\r\n');
    const bad = await importFile(owner, chatbotId, 'csv', csv);
    expect(bad.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(bad.body.errors[0].message).toBe(
      'Line 5: A test case needs a question.\nLine 6: A test case needs at least one check.\nLine 7: Check 1: A "cites" check needs a knowledge entry id.',
    );
    const good = csv.split('\r\n').slice(0, 3).join('\r\n');
    const imported = await importFile(owner, chatbotId, 'csv', good);
    expect(imported.body.errors).toBeUndefined();
    expect(imported.body.data.importTestCases).toBe(2);
    const jsonl = '{"question":"Is it open on Monday?","checks":[{"kind":"not_contains","phrases":["monday is open"]}]}\n\n';
    expect((await importFile(owner, chatbotId, 'jsonl', jsonl)).body.data.importTestCases).toBe(1);
    const badJsonl = await importFile(owner, chatbotId, 'jsonl', '{"question":"x","checks":[]}\nnot json\n[1]\n');
    expect(badJsonl.body.errors[0].message).toBe('Line 2: not valid JSON.\nLine 3: each line is one JSON object.');
    expect((await importFile(owner, chatbotId, 'xml', 'x')).body.errors[0].message).toBe('format must be csv or jsonl.');

    const { testCases } = await q(owner, `query($c: ID!) { testCases(chatbotId: $c) { ${CASE} } }`, { c: chatbotId });
    expect(testCases).toMatchObject([
      {
        question: 'When does the museum open?',
        source: 'import',
        expectedAnswer: 'It is open from ten until six.',
        checks: [
          { kind: 'contains', phrases: ['open from ten', 'open from 10'] },
          { kind: 'contains', phrases: ['until six'] },
          { kind: 'not_contains', phrases: ['closed'] },
          { kind: 'cites', entryId },
          { kind: 'language', language: 'en' },
        ],
      },
      { question: 'Can I bring my dog,\nplease?', checks: [{ kind: 'no_answer', phrases: [] }] },
      { question: 'Is it open on Monday?', checks: [{ kind: 'not_contains', phrases: ['monday is open'] }] },
    ]);

    // What is exported imports back to the same cases, in either format.
    for (const format of ['csv', 'jsonl']) {
      const { exportTestCases } = await q(owner, `query($c: ID!, $f: String!) { exportTestCases(chatbotId: $c, format: $f) }`, {
        c: chatbotId,
        f: format,
      });
      const other = await ownerWithChatbot(`quality-roundtrip-${format}`);
      const content = (exportTestCases as string).replaceAll(entryId, other.entryId);
      expect((await importFile(other.owner, other.chatbotId, format, content)).body.data.importTestCases).toBe(3);
      const back = await q(other.owner, `query($c: ID!) { testCases(chatbotId: $c) { ${CASE} } }`, { c: other.chatbotId });
      const strip = (cases: { checks: { entryId: string | null }[]; question: string; expectedAnswer: string }[]) =>
        cases.map((c) => ({
          question: c.question,
          expectedAnswer: c.expectedAnswer,
          checks: c.checks.map((k) => ({ ...k, entryId: k.entryId ? 'entry' : null })),
        }));
      expect(strip(back.testCases)).toEqual(strip(testCases));
    }
  });

  it('estimate a run from the catalogue, run it in the background, and refuse another owner', async () => {
    const { owner, chatbotId } = await ownerWithChatbot('quality-run');
    await q(owner, `mutation($c: ID!, $i: TestCaseInput!) { saveTestCase(chatbotId: $c, input: $i) { id } }`, {
      c: chatbotId,
      i: { question: 'When is the museum open?', checks: [{ kind: 'contains', phrases: ['open from ten'] }] },
    });
    const { testRunEstimate } = await q(
      owner,
      `query($c: ID!) { testRunEstimate(chatbotId: $c) { cases model costPerAnswer estimatedCost } }`,
      { c: chatbotId },
    );
    // gpt-4o-mini: 2,000 × $0.15 + 300 × $0.60 per million tokens.
    expect(testRunEstimate).toEqual({ cases: 1, model: 'gpt-4o-mini', costPerAnswer: '0.00048', estimatedCost: '0.00048' });

    const { startTestRun } = await q(owner, `mutation($c: ID!) { startTestRun(chatbotId: $c) { ${RUN} } }`, { c: chatbotId });
    expect(startTestRun).toMatchObject({ status: 'queued', trigger: 'manual', totalCases: 1, passRate: null });
    let runs;
    for (const deadline = Date.now() + 30_000; ;) {
      ({ testRuns: runs } = await q(owner, `query($c: ID!) { testRuns(chatbotId: $c) { ${RUN} } }`, { c: chatbotId }));
      if (runs[0].status !== 'queued' && runs[0].status !== 'running') break;
      if (Date.now() > deadline) throw new Error('the run did not finish');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(runs[0]).toMatchObject({ id: startTestRun.id, status: 'completed', passed: 1, failed: 0, passRate: 1 });
    const { testRun } = await q(
      owner,
      `query($c: ID!, $r: ID!) { testRun(chatbotId: $c, runId: $r) { run { id } results { question answer passed regression error checks { passed detail } } } }`,
      {
        c: chatbotId,
        r: startTestRun.id,
      },
    );
    expect(testRun.results).toMatchObject([{ question: 'When is the museum open?', passed: true, regression: false, error: null }]);

    const stranger = await registerOwner(stack, 'quality-stranger');
    const refused = await gql(stack.url, `query($c: ID!) { testCases(chatbotId: $c) { id } }`, { c: chatbotId }, stranger.token);
    expect(refused.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('compare a draft side by side and apply it: the chatbot takes its settings, audited', async () => {
    const { owner, chatbotId } = await ownerWithChatbot('quality-draft');
    await q(owner, `mutation($c: ID!, $i: TestCaseInput!) { saveTestCase(chatbotId: $c, input: $i) { id } }`, {
      c: chatbotId,
      i: { question: 'When is the museum open?', checks: [{ kind: 'contains', phrases: ['open from ten'] }] },
    });
    const bad = await gql(
      stack.url,
      `mutation($c: ID!, $d: TestDraftInput) { startTestRun(chatbotId: $c, draft: $d) { id } }`,
      { c: chatbotId, d: { modelId: 'no-such-model', instructions: '' } },
      owner.token,
    );
    expect(bad.body.errors[0]).toMatchObject({
      message: 'Unknown model: no-such-model',
      extensions: { code: 'BAD_USER_INPUT' },
    });
    // A model the free plan may not use is refused as the Model card refuses it.
    const pro = await gql(
      stack.url,
      `mutation($c: ID!, $d: TestDraftInput) { startTestRun(chatbotId: $c, draft: $d) { id } }`,
      { c: chatbotId, d: { modelId: 'gpt-4o', instructions: '' } },
      owner.token,
    );
    expect(pro.body.errors[0]).toMatchObject({ message: 'GPT-4o is available on the Pro plan.', extensions: { code: 'FORBIDDEN' } });
    const draft = { modelId: 'gpt-4.1-mini', instructions: 'Answer in one short sentence.', temperature: 0.3 };
    const { startTestRun } = await q(
      owner,
      `mutation($c: ID!, $d: TestDraftInput) { startTestRun(chatbotId: $c, draft: $d) { id draft { modelId instructions temperature } } }`,
      { c: chatbotId, d: draft },
    );
    expect(startTestRun.draft).toEqual(draft);
    const DETAIL = `run { status passed draft { modelId } } results { caseId passed cost } draftResults { caseId passed answer cost }
      totals { answered passed passRate costPerAnswer medianLatencyMs } draftTotals { answered passed passRate costPerAnswer medianLatencyMs }`;
    let detail;
    for (const deadline = Date.now() + 30_000; ;) {
      ({ testRun: detail } = await q(owner, `query($c: ID!, $r: ID!) { testRun(chatbotId: $c, runId: $r) { ${DETAIL} } }`, {
        c: chatbotId,
        r: startTestRun.id,
      }));
      if (detail.run.status !== 'queued' && detail.run.status !== 'running') break;
      if (Date.now() > deadline) throw new Error('the run did not finish');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(detail.run).toEqual({ status: 'completed', passed: 1, draft: { modelId: 'gpt-4.1-mini' } });
    expect(detail.draftResults).toHaveLength(1);
    expect(fake.requests.filter((r) => r.model === 'gpt-4.1-mini').map((r) => r.temperature)).toEqual([0.3]);
    expect(detail.draftResults[0]).toMatchObject({ caseId: detail.results[0].caseId, passed: true });
    expect(detail.totals).toMatchObject({ answered: 1, passed: 1, passRate: 1, costPerAnswer: detail.results[0].cost });
    expect(detail.draftTotals).toMatchObject({ answered: 1, passed: 1, passRate: 1, costPerAnswer: detail.draftResults[0].cost });

    // A plain run has no draft to apply.
    const { startTestRun: plain } = await q(owner, `mutation($c: ID!) { startTestRun(chatbotId: $c) { id draft { modelId } } }`, {
      c: chatbotId,
    });
    expect(plain.draft).toBeNull();
    const refused = await gql(
      stack.url,
      `mutation($c: ID!, $r: ID!) { applyTestDraft(chatbotId: $c, runId: $r) { id } }`,
      { c: chatbotId, r: plain.id },
      owner.token,
    );
    expect(refused.body.errors[0]).toMatchObject({ message: 'This run has no draft to apply.', extensions: { code: 'BAD_USER_INPUT' } });

    const { applyTestDraft } = await q(
      owner,
      `mutation($c: ID!, $r: ID!) { applyTestDraft(chatbotId: $c, runId: $r) { id instructions temperature model { id } } }`,
      { c: chatbotId, r: startTestRun.id },
    );
    expect(applyTestDraft).toEqual({ id: chatbotId, instructions: draft.instructions, temperature: 0.3, model: { id: 'gpt-4.1-mini' } });
    const log = await api(stack.url, '/api/workspace/audit-log?action=chatbot.model_changed', { token: owner.token });
    expect(log.body.events).toHaveLength(1);
    expect(log.body.events[0]).toMatchObject({ target: chatbotId, actorEmail: owner.email });
    expect(JSON.parse(log.body.events[0].details)).toMatchObject({ modelId: 'gpt-4.1-mini', testRunId: startTestRun.id });

    const stranger = await registerOwner(stack, 'quality-draft-stranger');
    const other = await gql(
      stack.url,
      `mutation($c: ID!, $r: ID!) { applyTestDraft(chatbotId: $c, runId: $r) { id } }`,
      { c: chatbotId, r: startTestRun.id },
      stranger.token,
    );
    expect(other.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('improve an answer: a Q&A pair the next visitor gets, and a case that it is cited', async () => {
    const { owner, chatbotId } = await ownerWithChatbot('quality-improve');
    const { improveAnswer } = await q(
      owner,
      `mutation($c: ID!) { improveAnswer(chatbotId: $c, question: "Is there a café?", answer: "Yes, on the first floor.", addTest: true) {
        entry { id question content } testCase { ${CASE} } } }`,
      { c: chatbotId },
    );
    expect(improveAnswer.entry).toMatchObject({ question: 'Is there a café?', content: 'Yes, on the first floor.' });
    expect(improveAnswer.testCase).toMatchObject({
      question: 'Is there a café?',
      source: 'improve',
      expectedAnswer: 'Yes, on the first floor.',
      checks: [{ kind: 'cites', entryId: improveAnswer.entry.id }],
    });
    const without = await q(
      owner,
      `mutation($c: ID!) { improveAnswer(chatbotId: $c, question: "Parking?", answer: "Behind the museum.", addTest: false) { testCase { id } } }`,
      {
        c: chatbotId,
      },
    );
    expect(without.improveAnswer.testCase).toBeNull();
  });

  it('generate cases, accept one, and run it with the judge: its verdict beside the checks; bad settings are BAD_USER_INPUT', async () => {
    const { owner, chatbotId } = await ownerWithChatbot('quality-judge');
    const { qualitySettings } = await q(
      owner,
      `query($c: ID!) { qualitySettings(chatbotId: $c) { judgeEnabled judgeModelId rubric emailOnRegression } }`,
      {
        c: chatbotId,
      },
    );
    expect(qualitySettings).toMatchObject({ judgeEnabled: false, judgeModelId: null, emailOnRegression: false });
    expect(qualitySettings.rubric).toHaveLength(3);
    const bad = await gql(
      stack.url,
      `mutation($c: ID!, $i: QualitySettingsInput!) { saveQualitySettings(chatbotId: $c, input: $i) { judgeEnabled } }`,
      { c: chatbotId, i: { judgeEnabled: true, rubric: ['x'.repeat(301)], emailOnRegression: false } },
      owner.token,
    );
    expect(bad.body.errors[0]).toMatchObject({
      message: 'A criterion has at most 300 characters.',
      extensions: { code: 'BAD_USER_INPUT' },
    });
    const { saveQualitySettings } = await q(
      owner,
      `mutation($c: ID!, $i: QualitySettingsInput!) { saveQualitySettings(chatbotId: $c, input: $i) { judgeEnabled judgeModelId rubric emailOnRegression } }`,
      {
        c: chatbotId,
        i: { judgeEnabled: true, judgeModelId: 'gpt-4o-mini', rubric: ['Faithful to the cited passages.'], emailOnRegression: true },
      },
    );
    expect(saveQualitySettings).toEqual({
      judgeEnabled: true,
      judgeModelId: 'gpt-4o-mini',
      rubric: ['Faithful to the cited passages.'],
      emailOnRegression: true,
    });

    const { generateTestCases } = await q(
      owner,
      `mutation($c: ID!) { generateTestCases(chatbotId: $c, count: 5) { proposed { id question facts } duplicates cost } }`,
      { c: chatbotId },
    );
    expect(generateTestCases.proposed).toEqual([
      {
        id: expect.any(String),
        question: 'Tell me: the museum is open from ten?',
        facts: ['The museum is open from ten until six, every day but Monday.'],
      },
    ]);
    expect(Number(generateTestCases.cost)).toBeGreaterThan(0);
    const { acceptProposedTestCase } = await q(
      owner,
      `mutation($c: ID!, $p: ID!) { acceptProposedTestCase(chatbotId: $c, proposalId: $p) { ${CASE} } }`,
      { c: chatbotId, p: generateTestCases.proposed[0].id },
    );
    expect(acceptProposedTestCase).toMatchObject({ source: 'generated', checks: [{ kind: 'contains' }] });
    expect((await q(owner, `query($c: ID!) { proposedTestCases(chatbotId: $c) { id } }`, { c: chatbotId })).proposedTestCases).toEqual([]);

    const { startTestRun } = await q(owner, `mutation($c: ID!) { startTestRun(chatbotId: $c) { id judgeModel } }`, { c: chatbotId });
    expect(startTestRun.judgeModel).toBe('gpt-4o-mini');
    let detail;
    for (const deadline = Date.now() + 30_000; ;) {
      ({ testRun: detail } = await q(
        owner,
        `query($c: ID!, $r: ID!) { testRun(chatbotId: $c, runId: $r) { run { status judgeModel } results { passed judgeVerdicts { criterion passed reason } judgeError judgeCost } } }`,
        { c: chatbotId, r: startTestRun.id },
      ));
      if (detail.run.status !== 'queued' && detail.run.status !== 'running') break;
      if (Date.now() > deadline) throw new Error('the run did not finish');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(detail.results).toEqual([
      {
        passed: true,
        judgeVerdicts: [{ criterion: 'Faithful to the cited passages.', passed: true, reason: 'The cited passages support the answer.' }],
        judgeError: null,
        judgeCost: expect.stringMatching(/^0\.\d+$/),
      },
    ]);
  });
});
