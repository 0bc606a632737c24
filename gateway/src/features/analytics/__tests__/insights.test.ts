// Contract tests of the owner insights (docs/product.md, Feedback, analytics and unanswered questions) through the gateway, against the real services (the
// chat service's analytics worker included) and a fake OpenAI-compatible model that cites the
// knowledge for some questions and nothing for others: analytics of a chatbot and the summary (REST
// and GraphQL, pro and free, the default range, the dates' refusals), and the unanswered-question
// loop (list, answer with a Q&A pair that then answers the question, dismiss, the open counter on
// the chatbot cards, 403 on free, 404 for another owner's).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIRequest } from '@parley/common/testing/fake-openai.ts';
import { api, gql, startStack, type Stack } from '../../../../test/stack.ts';
import { waitFor } from '../../../../test/billing-fixtures.ts';
import { makePro, registerOwner, type Owner } from '../../../../test/chatbot-fixtures.ts';

let stack: Stack;
let fake: FakeOpenAI;

const PRO_ONLY = { message: 'Upgrade to Pro to see unanswered questions' };
const BAD_DATES = { message: 'Dates must be YYYY-MM-DD' };
const TOO_LONG = { message: 'The range can be at most 400 days' };
const REVERSED = { message: 'The end date must not be before the start date' };
const NOT_FOUND = { message: 'Chatbot not found' };

/** The number the prompt gives the passage titled so, as `[n] title` (build-prompt.ts). */
function passageNumber(body: FakeOpenAIRequest, title: string): number | undefined {
  const system = body.messages.find((m) => m.role === 'system')?.content ?? '';
  const line = system.split('\n').find((l) => new RegExp(`^\\[\\d+\\] ${title}`).test(l));
  return line ? Number(/^\[(\d+)\]/.exec(line)![1]) : undefined;
}

// Questions about opening hours cite that entry; anything else is answered without a citation.
const reply = (body: FakeOpenAIRequest) => {
  const question = body.messages.at(-1)?.content ?? '';
  const hours = passageNumber(body, 'Opening hours');
  return /open/i.test(question) && hours ? `We open at nine [${hours}].` : 'I am not sure about that.';
};

beforeAll(async () => {
  fake = await startFakeOpenAI({ reply });
  stack = await startStack({ chatEnv: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: fake.url } });
});
afterAll(async () => {
  await stack?.close();
  await fake?.close();
});

const call = (path: string, opts: Parameters<typeof api>[2] = {}) => api(stack.url, path, opts);
const today = () => new Date().toISOString().slice(0, 10);

let visitors = 0;
const newVisitorIp = () => `203.0.113.${++visitors}`;

interface Chatbot {
  _id: string;
  uniqueId: string;
}

async function ownerWithChatbot({ pro = false } = {}): Promise<{ owner: Owner; chatbot: Chatbot }> {
  const owner = await registerOwner(stack, 'insights');
  if (pro) await makePro(stack, owner);
  const res = await call('/api/chatbot', { body: { name: 'Insight Bot' }, token: owner.token });
  expect(res.status).toBe(201);
  const text = await call(`/api/chatbot/${res.body._id}/knowledge-base/text`, {
    body: { text: 'Opening hours: we open at nine in the morning and close at five.' },
    token: owner.token,
  });
  expect(text.status).toBe(200);
  return { owner, chatbot: res.body };
}

function chat(uniqueId: string, message: string, ip = newVisitorIp()) {
  return call(`/api/chatbot/public/${uniqueId}/chat`, { body: { message, model: 'gpt-4o-mini' }, headers: { 'x-forwarded-for': ip } });
}

const ANALYTICS_FIELDS = `startDate endDate full
  totals { conversations messages uniqueVisitors answered answeredShare thumbsUp thumbsDown medianAnswerMs }
  days { date conversations messages uniqueVisitors } busiestHours topQuestions { question count } questionsRedacted`;
const ANALYTICS = `query ($chatbotId: ID!, $startDate: String, $endDate: String) {
  analytics(chatbotId: $chatbotId, startDate: $startDate, endDate: $endDate) { ${ANALYTICS_FIELDS} } }`;
const SUMMARY = `query ($startDate: String, $endDate: String) { analyticsSummary(startDate: $startDate, endDate: $endDate) { ${ANALYTICS_FIELDS} } }`;
const UNANSWERED = `query ($chatbotId: ID!, $status: String) {
  unansweredQuestions(chatbotId: $chatbotId, status: $status) { id question count examples lastSeen status answerEntryId reason } }`;
const DISMISS = `mutation ($chatbotId: ID!, $id: ID!) { dismissUnansweredQuestion(chatbotId: $chatbotId, id: $id) { id status } }`;
const ANSWER = `mutation ($chatbotId: ID!, $id: ID!, $answer: String!, $question: String) {
  answerUnansweredQuestion(chatbotId: $chatbotId, id: $id, answer: $answer, question: $question) { id status answerEntryId } }`;
const COUNTERS = `{ chatbots { id openUnansweredQuestions } }`;

/** The chatbot's analytics (REST) once the worker has counted `messages` answers. */
function analyticsWhen(owner: Owner, chatbot: Chatbot, messages: number) {
  return waitFor(
    () => call(`/api/chatbot/${chatbot._id}/analytics`, { token: owner.token }),
    (res) => res.status !== 200 || res.body.totals.messages >= messages,
  );
}

describe('analytics', () => {
  it("a pro owner's chatbot: the figures of what visitors did, the last 30 days, REST and GraphQL alike", async () => {
    const { owner, chatbot } = await ownerWithChatbot({ pro: true });
    const a = await chat(chatbot.uniqueId, 'When do you open?');
    await chat(chatbot.uniqueId, 'What time do you open in the morning?');
    const c = await chat(chatbot.uniqueId, 'Do you sell gift cards?');
    expect([a.body.sources.length, c.body.sources.length]).toEqual([1, 0]);
    // A thumbs down on a cited answer, a thumbs up on the uncited one.
    await call(`/api/chatbot/public/${chatbot.uniqueId}/feedback`, {
      body: { sessionId: a.body.sessionId, messageId: a.body.messageId, rating: 'down' },
    });
    await call(`/api/chatbot/public/${chatbot.uniqueId}/feedback`, {
      body: { sessionId: c.body.sessionId, messageId: c.body.messageId, rating: 'up' },
    });

    // The ratings are counted apart from the messages: wait for both.
    const res = await waitFor(
      () => call(`/api/chatbot/${chatbot._id}/analytics`, { token: owner.token }),
      (r) => r.status !== 200 || (r.body.totals.messages >= 3 && r.body.totals.thumbsUp + r.body.totals.thumbsDown >= 2),
    );
    expect(res.status).toBe(200);
    const view = res.body;
    expect(Object.keys(view).sort()).toEqual([
      'busiestHours',
      'days',
      'endDate',
      'full',
      'questionsRedacted',
      'startDate',
      'topQuestions',
      'totals',
    ]);
    // The owner reads conversations: the questions are as visitors typed them.
    expect(view.questionsRedacted).toBe(false);
    expect(view.endDate).toBe(today());
    expect(view.days).toHaveLength(30);
    expect(view.days[0].date).toBe(view.startDate);
    expect(view.days.at(-1)).toEqual({ date: today(), conversations: 3, messages: 3, uniqueVisitors: 3 });
    expect(view.totals).toMatchObject({
      conversations: 3,
      messages: 3,
      uniqueVisitors: 3,
      answered: 2,
      thumbsUp: 1,
      thumbsDown: 1,
    });
    expect(view.totals.answeredShare).toBeCloseTo(2 / 3);
    expect(view.totals.medianAnswerMs).toBeGreaterThanOrEqual(0);
    expect(view.full).toBe(true);
    expect(view.busiestHours).toHaveLength(24);
    expect(view.busiestHours.reduce((s: number, n: number) => s + n, 0)).toBe(3);
    expect(view.busiestHours[new Date().getUTCHours()]).toBeGreaterThan(0);
    expect(view.topQuestions.reduce((s: number, q: any) => s + q.count, 0)).toBe(3);
    expect(view.topQuestions.map((q: any) => q.question)).toContain('Do you sell gift cards?');

    const g = await gql(stack.url, ANALYTICS, { chatbotId: chatbot._id }, owner.token);
    expect(g.body.errors).toBeUndefined();
    expect(g.body.data.analytics).toEqual(view);

    // The summary of an owner with one chatbot says the same.
    const summary = await call('/api/analytics/summary', { token: owner.token });
    expect(summary.status).toBe(200);
    expect(summary.body).toEqual(view);
    const gSummary = await gql(stack.url, SUMMARY, {}, owner.token);
    expect(gSummary.body.data.analyticsSummary).toEqual(view);
  });

  it('echoes a chosen range with every day in it', async () => {
    const { owner, chatbot } = await ownerWithChatbot({ pro: true });
    const res = await call(`/api/chatbot/${chatbot._id}/analytics?startDate=2026-01-30&endDate=2026-02-02`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ startDate: '2026-01-30', endDate: '2026-02-02', full: true });
    expect(res.body.days.map((d: any) => d.date)).toEqual(['2026-01-30', '2026-01-31', '2026-02-01', '2026-02-02']);
    expect(res.body.totals).toMatchObject({ messages: 0, answeredShare: 0 });
    const g = await gql(stack.url, ANALYTICS, { chatbotId: chatbot._id, startDate: '2026-01-30', endDate: '2026-02-02' }, owner.token);
    expect(g.body.data.analytics).toEqual(res.body);
  });

  it('a free owner gets the totals only (full false), chatbot and summary', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    await chat(chatbot.uniqueId, 'When do you open?');
    const res = await analyticsWhen(owner, chatbot, 1);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ full: false, days: [], busiestHours: [], topQuestions: [], questionsRedacted: false });
    expect(res.body.totals).toMatchObject({ conversations: 1, messages: 1, uniqueVisitors: 1, answered: 1, answeredShare: 1 });
    const summary = await call('/api/analytics/summary', { token: owner.token });
    expect(summary.body).toEqual(res.body);
    const g = await gql(stack.url, ANALYTICS, { chatbotId: chatbot._id }, owner.token);
    expect(g.body.data.analytics).toEqual(res.body);
  });

  it('refuses bad dates, a range over 400 days and a reversed range with 400, REST and GraphQL', async () => {
    const { owner, chatbot } = await ownerWithChatbot({ pro: true });
    const cases: Array<[string, unknown]> = [
      ['startDate=2026-13-01', BAD_DATES],
      ['endDate=yesterday', BAD_DATES],
      ['startDate=2026-02-30&endDate=2026-03-01', BAD_DATES],
      ['startDate=2026-01-01&startDate=2026-01-02', BAD_DATES],
      ['startDate=2024-01-01&endDate=2025-02-04', TOO_LONG],
      ['startDate=2026-03-02&endDate=2026-03-01', REVERSED],
    ];
    for (const [query, body] of cases) {
      for (const path of [`/api/chatbot/${chatbot._id}/analytics?${query}`, `/api/analytics/summary?${query}`]) {
        const res = await call(path, { token: owner.token });
        expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 400, body });
      }
    }
    // 400 days exactly is fine.
    expect(
      (await call(`/api/chatbot/${chatbot._id}/analytics?startDate=2024-01-01&endDate=2025-02-03`, { token: owner.token })).status,
    ).toBe(200);
    const g = await gql(stack.url, ANALYTICS, { chatbotId: chatbot._id, startDate: '2026-03-02', endDate: '2026-03-01' }, owner.token);
    expect(g.body.errors[0]).toMatchObject({ message: REVERSED.message, extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } });
  });

  it("answers 401 signed out and 404 for another owner's chatbot", async () => {
    const { chatbot } = await ownerWithChatbot({ pro: true });
    expect((await call(`/api/chatbot/${chatbot._id}/analytics`)).status).toBe(401);
    expect((await call('/api/analytics/summary')).status).toBe(401);
    const other = await registerOwner(stack, 'other');
    await makePro(stack, other);
    const res = await call(`/api/chatbot/${chatbot._id}/analytics`, { token: other.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
    const g = await gql(stack.url, ANALYTICS, { chatbotId: chatbot._id }, other.token);
    expect(g.body.errors[0]).toMatchObject({ message: NOT_FOUND.message, extensions: { code: 'NOT_FOUND' } });
  });
});

describe('unanswered questions', () => {
  /** The chatbot's open groups once the worker has filed `n` of them. */
  function openGroupsWhen(owner: Owner, chatbot: Chatbot, n: number) {
    return waitFor(
      () => call(`/api/chatbot/${chatbot._id}/unanswered-questions`, { token: owner.token }),
      (res) => res.status !== 200 || res.body.length >= n,
    );
  }

  it('carry their reason and are filtered by it (?reason=, the GraphQL reason argument), a wrong one 400', async () => {
    const { owner, chatbot } = await ownerWithChatbot({ pro: true });
    await chat(chatbot.uniqueId, 'Do you sell gift cards?');
    await chat(chatbot.uniqueId, 'Can I speak to a person about refunds?');
    const open = await openGroupsWhen(owner, chatbot, 2);
    expect(Object.fromEntries(open.body.map((q: any) => [q.question, q.reason]))).toEqual({
      'Do you sell gift cards?': 'missing_knowledge',
      'Can I speak to a person about refunds?': 'asked_for_person',
    });
    const base = `/api/chatbot/${chatbot._id}/unanswered-questions`;
    const person = await call(`${base}?reason=asked_for_person`, { token: owner.token });
    expect(person.status).toBe(200);
    expect(person.body.map((q: any) => q.question)).toEqual(['Can I speak to a person about refunds?']);
    expect((await call(`${base}?reason=limit_reached&status=all`, { token: owner.token })).body).toEqual([]);
    const bad = await call(`${base}?reason=bored`, { token: owner.token });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(
      /^Reason must be one of missing_knowledge, asked_for_person, not_supported, action_failed, limit_reached$/,
    );
    const g = await gql(
      stack.url,
      `query ($chatbotId: ID!, $reason: String) { unansweredQuestions(chatbotId: $chatbotId, reason: $reason) { question reason } }`,
      { chatbotId: chatbot._id, reason: 'missing_knowledge' },
      owner.token,
    );
    expect(g.body.data.unansweredQuestions).toEqual([{ question: 'Do you sell gift cards?', reason: 'missing_knowledge' }]);
  });

  it('are grouped, counted on the chatbot card, answered with a Q&A pair that then answers them, or dismissed', async () => {
    const { owner, chatbot } = await ownerWithChatbot({ pro: true });
    await chat(chatbot.uniqueId, 'Do you sell gift cards?');
    await chat(chatbot.uniqueId, 'Can I pay with bitcoin?');
    const open = await openGroupsWhen(owner, chatbot, 2);
    expect(open.status).toBe(200);
    expect(open.body.map((q: any) => q.question).sort()).toEqual(['Can I pay with bitcoin?', 'Do you sell gift cards?']);
    const giftCards = open.body.find((q: any) => q.question === 'Do you sell gift cards?');
    expect(giftCards).toEqual({
      id: expect.any(String),
      question: 'Do you sell gift cards?',
      count: 1,
      examples: ['Do you sell gift cards?'],
      lastSeen: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      status: 'open',
      answerEntryId: null,
      reason: 'missing_knowledge',
    });
    const bitcoin = open.body.find((q: any) => q.question === 'Can I pay with bitcoin?');
    const g = await gql(stack.url, UNANSWERED, { chatbotId: chatbot._id }, owner.token);
    expect(g.body.errors).toBeUndefined();
    expect(g.body.data.unansweredQuestions).toEqual(open.body);

    const counters = await gql(stack.url, COUNTERS, {}, owner.token);
    expect(counters.body.data.chatbots).toEqual([{ id: chatbot._id, openUnansweredQuestions: 2 }]);

    // Answered over REST: a Q&A pair with the group's question, the group resolved.
    const answered = await call(`/api/chatbot/${chatbot._id}/unanswered-questions/${giftCards.id}/answer`, {
      body: { answer: 'Yes, from 10 to 100 euros.' },
      token: owner.token,
    });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ id: giftCards.id, status: 'resolved', answerEntryId: expect.any(String) });
    const bot = await call(`/api/chatbot/${chatbot._id}`, { token: owner.token });
    const pair = bot.body.knowledgeBase.textEntries.find((e: any) => e._id === answered.body.answerEntryId);
    expect(pair).toMatchObject({ question: 'Do you sell gift cards?', content: 'Yes, from 10 to 100 euros.', source: { type: 'qa' } });
    const again = await chat(chatbot.uniqueId, 'Do you sell gift cards?');
    expect(again.body.message).toBe('Yes, from 10 to 100 euros.');

    // Dismissed over GraphQL.
    const dismissed = await gql(stack.url, DISMISS, { chatbotId: chatbot._id, id: bitcoin.id }, owner.token);
    expect(dismissed.body.data.dismissUnansweredQuestion).toEqual({ id: bitcoin.id, status: 'dismissed' });

    expect((await call(`/api/chatbot/${chatbot._id}/unanswered-questions`, { token: owner.token })).body).toEqual([]);
    const all = await call(`/api/chatbot/${chatbot._id}/unanswered-questions?status=all`, { token: owner.token });
    expect(all.body.map((q: any) => [q.id, q.status]).sort()).toEqual(
      [
        [giftCards.id, 'resolved'],
        [bitcoin.id, 'dismissed'],
      ].sort(),
    );
    const resolved = await gql(stack.url, UNANSWERED, { chatbotId: chatbot._id, status: 'resolved' }, owner.token);
    expect(resolved.body.data.unansweredQuestions.map((q: any) => q.id)).toEqual([giftCards.id]);
    expect((await gql(stack.url, COUNTERS, {}, owner.token)).body.data.chatbots).toEqual([{ id: chatbot._id, openUnansweredQuestions: 0 }]);
  });

  it('an answer over GraphQL may word the question differently; the answer is required', async () => {
    const { owner, chatbot } = await ownerWithChatbot({ pro: true });
    await chat(chatbot.uniqueId, 'Is there parking nearby?');
    const [group] = (await openGroupsWhen(owner, chatbot, 1)).body;
    const empty = await call(`/api/chatbot/${chatbot._id}/unanswered-questions/${group.id}/answer`, {
      body: { answer: ' ' },
      token: owner.token,
    });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({ message: 'Answer is required' });
    const wrongType = await call(`/api/chatbot/${chatbot._id}/unanswered-questions/${group.id}/answer`, {
      body: { answer: 42 },
      token: owner.token,
    });
    expect(wrongType.body).toEqual({ message: 'answer must be a string' });
    const res = await gql(
      stack.url,
      ANSWER,
      { chatbotId: chatbot._id, id: group.id, answer: 'Yes, behind the shop.', question: 'Where can I park?' },
      owner.token,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.answerUnansweredQuestion).toMatchObject({ id: group.id, status: 'resolved' });
    const bot = await call(`/api/chatbot/${chatbot._id}`, { token: owner.token });
    const pair = bot.body.knowledgeBase.textEntries.find((e: any) => e._id === res.body.data.answerUnansweredQuestion.answerEntryId);
    expect(pair).toMatchObject({ question: 'Where can I park?', content: 'Yes, behind the shop.' });
  });

  it('are pro only (403), with the open counter on every plan; another owner gets 404; a bad status or id is refused', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    await chat(chatbot.uniqueId, 'Do you deliver on Sundays?');
    const counted = await waitFor(
      () => gql(stack.url, COUNTERS, {}, owner.token),
      (res) => res.body.data?.chatbots?.[0]?.openUnansweredQuestions === 1,
    );
    expect(counted.body.data.chatbots).toEqual([{ id: chatbot._id, openUnansweredQuestions: 1 }]);

    const base = `/api/chatbot/${chatbot._id}/unanswered-questions`;
    const someId = '00000000-0000-4000-8000-000000000000';
    for (const [path, body] of [
      [base, undefined],
      [`${base}/${someId}/answer`, { answer: 'Yes' }],
      [`${base}/${someId}/dismiss`, {}],
    ] as const) {
      const res = await call(path, { body, token: owner.token });
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 403, body: PRO_ONLY });
    }
    const g = await gql(stack.url, UNANSWERED, { chatbotId: chatbot._id }, owner.token);
    expect(g.body.errors[0]).toMatchObject({ message: PRO_ONLY.message, extensions: { code: 'FORBIDDEN', http: { status: 403 } } });

    await makePro(stack, owner);
    const [group] = (await openGroupsWhen(owner, chatbot, 1)).body;
    const other = await registerOwner(stack, 'other');
    await makePro(stack, other);
    for (const [path, body] of [
      [base, undefined],
      [`${base}/${group.id}/answer`, { answer: 'Yes' }],
      [`${base}/${group.id}/dismiss`, {}],
    ] as const) {
      const res = await call(path, { body, token: other.token });
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 404, body: NOT_FOUND });
    }
    const gOther = await gql(stack.url, DISMISS, { chatbotId: chatbot._id, id: group.id }, other.token);
    expect(gOther.body.errors[0]).toMatchObject({ extensions: { code: 'NOT_FOUND' } });
    // The other owner's counters do not see it.
    expect((await gql(stack.url, COUNTERS, {}, other.token)).body.data.chatbots).toEqual([]);

    for (const id of [someId, 'not-an-id']) {
      const res = await call(`${base}/${id}/dismiss`, { body: {}, token: owner.token });
      expect(res.status).toBe(404);
    }
    const badStatus = await call(`${base}?status=nope`, { token: owner.token });
    expect(badStatus.status).toBe(400);
    expect((await call(`${base}?status=open&status=all`, { token: owner.token })).body).toEqual({ message: 'status must be a string' });
    expect((await call(base)).status).toBe(401);
  });
});
