// Analytics figures equal a direct count over a seeded set of answered messages (counted by the
// analytics worker's own recordAnalytics and applyRating), for a chatbot and for all the owner's
// chatbots; Pro sees everything, free the totals only; the range is validated; another owner's
// chatbot is NOT_FOUND; distinct visitors of ranges across new years (a visitor's days are kept per
// year) equal a direct count; the long-range reading of the most asked questions equals the
// direct one; and a role that does not read conversations gets the questions with their contact
// details masked.
import { randomUUID } from 'node:crypto';
import { Code } from '@connectrpc/connect';
import { ChatService } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_MS_BUCKETS, answerMsBucket, applyRating, medianAnswerMs, utcDay } from '../../analytics/aggregates.ts';
import { recordAnalytics, type AnalyticsEventInput } from '../../analytics/record-analytics.ts';
import { DAY_MS, isoDay } from '../date-range.ts';
import { sumAllGroups, topAsked } from '../get-analytics.ts';
import { rpcError, startChatStack, type ChatStack } from '../../../test/integration/harness.ts';

let stack: ChatStack;
beforeAll(async () => {
  stack = await startChatStack();
});
afterAll(async () => {
  await stack?.stop();
});

const QUESTIONS = ['What are your opening hours?', 'How much does shipping cost?', 'Do you repair bicycles?', 'Where is the shop located?'];

/** A deterministic pseudo-random sequence, so a failure repeats. */
function random(seed: number) {
  let s = seed;
  return () => (s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

type Seeded = AnalyticsEventInput & { at: Date; rating: 'up' | 'down' | null };

const MARCH_2026 = ['2026-03-01', '2026-03-02', '2026-03-03', '2026-03-04', '2026-03-05'];

/** `n` answered messages over `days` (2026-03-01..05), oldest first, with visitors, sessions and questions drawn from small sets. */
function events(bot: { id: string; ownerId: string }, n: number, seed: number, visitors: string[], days = MARCH_2026): Seeded[] {
  const next = random(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)];
  const list = Array.from({ length: n }, () => {
    const at = new Date(Date.parse(`${pick(days)}T00:00:00Z`) + Math.floor(next() * DAY_MS));
    const rating = pick(['up', 'down', null, null] as const);
    return {
      requestId: randomUUID(),
      chatbotId: bot.id,
      ownerId: bot.ownerId,
      sessionId: `session-${bot.id}-${Math.floor(next() * 12)}`,
      visitorHash: pick(visitors),
      question: pick(QUESTIONS),
      answered: next() < 0.6,
      answerMs: Math.floor(next() * 4000),
      receivedAt: at,
      occurredAt: at,
      language: 'english',
      interactionsViaAnalytics: true,
      at,
      rating,
    };
  });
  return list.sort((a, b) => a.at.getTime() - b.at.getTime());
}

async function seed(list: Seeded[]) {
  for (const e of list) {
    expect(await recordAnalytics(stack.parts.prisma, e)).toBe('counted');
    if (e.rating)
      await applyRating(stack.parts.prisma, { chatbotId: e.chatbotId, ownerId: e.ownerId, day: utcDay(e.at), from: null, to: e.rating });
  }
}

/** The figures counted directly from the messages, as the view should show them. */
function directCount(list: Seeded[], start: string, end: string) {
  const inRange = (e: Seeded) => isoDay(e.at) >= start && isoDay(e.at) <= end;
  const firstDayOf = new Map<string, string>();
  for (const e of list) if (!firstDayOf.has(e.sessionId)) firstDayOf.set(e.sessionId, isoDay(e.at));
  const seen = list.filter(inRange);
  const buckets = ANSWER_MS_BUCKETS.map(() => 0);
  for (const e of seen) buckets[answerMsBucket(e.answerMs)]++;
  const hours = Array.from({ length: 24 }, (_, h) => seen.filter((e) => e.at.getUTCHours() === h).length);
  const days: { date: string; conversations: number; messages: number; uniqueVisitors: number }[] = [];
  for (let t = Date.parse(start); t <= Date.parse(end); t += DAY_MS) {
    const date = isoDay(new Date(t));
    const ofDay = seen.filter((e) => isoDay(e.at) === date);
    days.push({
      date,
      conversations: [...firstDayOf.values()].filter((d) => d === date).length,
      messages: ofDay.length,
      uniqueVisitors: new Set(ofDay.map((e) => e.visitorHash)).size,
    });
  }
  const counts = new Map<string, number>();
  for (const e of seen) counts.set(e.question, (counts.get(e.question) ?? 0) + 1);
  return {
    totals: {
      conversations: days.reduce((a, d) => a + d.conversations, 0),
      messages: seen.length,
      uniqueVisitors: new Set(seen.map((e) => e.visitorHash)).size,
      answered: seen.filter((e) => e.answered).length,
      thumbsUp: seen.filter((e) => e.rating === 'up').length,
      thumbsDown: seen.filter((e) => e.rating === 'down').length,
      medianAnswerMs: medianAnswerMs(buckets) ?? 0,
    },
    days,
    busiestHours: hours,
    topQuestions: [...counts].map(([question, count]) => ({ question, count })).sort((a, b) => b.count - a.count),
  };
}

describe('GetAnalytics', () => {
  let pro: { ownerId: string; id: string };
  let second: { ownerId: string; id: string };
  let proEvents: Seeded[];
  let secondEvents: Seeded[];
  beforeAll(async () => {
    pro = await stack.newChatbot({ name: 'Pro bot' });
    await stack.makePro(pro.ownerId);
    const { chatbot } = await stack.chatbots.createChatbot({ ownerId: pro.ownerId, name: 'Second bot' });
    second = { ownerId: pro.ownerId, id: chatbot!.id };
    // Visitors v0..v3 visit both chatbots: one visitor of the owner each, in the summary.
    proEvents = events(pro, 80, 7, ['v0', 'v1', 'v2', 'v3', 'v4', 'v5', 'v6']);
    secondEvents = events(second, 40, 11, ['v0', 'v1', 'v2', 'v3', 'w1', 'w2']);
    await seed(proEvents);
    await seed(secondEvents);
  });

  it("equals a direct count over the chatbot's messages, for a part of the seeded days", async () => {
    const { analytics } = await stack.client.getAnalytics({
      ownerId: pro.ownerId,
      chatbotId: pro.id,
      startDate: '2026-03-02',
      endDate: '2026-03-04',
    });
    const expected = directCount(proEvents, '2026-03-02', '2026-03-04');
    expect(analytics?.full).toBe(true);
    expect(analytics?.totals).toMatchObject(expected.totals);
    expect(
      analytics?.days.map(({ date, conversations, messages, uniqueVisitors }) => ({ date, conversations, messages, uniqueVisitors })),
    ).toEqual(expected.days);
    expect(analytics?.busiestHours).toEqual(expected.busiestHours);
    expect(analytics?.topQuestions.map((q) => q.count)).toEqual(expected.topQuestions.map((q) => q.count));
    expect(new Set(analytics?.topQuestions.map((q) => q.question))).toEqual(new Set(expected.topQuestions.map((q) => q.question)));
  });

  it('fills the days without messages with zeros, and reads long ranges the same way', async () => {
    const { analytics } = await stack.client.getAnalytics({
      ownerId: pro.ownerId,
      chatbotId: pro.id,
      startDate: '2026-01-01',
      endDate: '2026-06-30',
    });
    const expected = directCount(proEvents, '2026-01-01', '2026-06-30');
    expect(analytics?.days).toHaveLength(181);
    expect(analytics?.days[0]).toMatchObject({ date: '2026-01-01', conversations: 0, messages: 0, uniqueVisitors: 0 });
    expect(analytics?.totals).toMatchObject(expected.totals);
    expect(analytics?.topQuestions.map((q) => q.count)).toEqual(expected.topQuestions.map((q) => q.count));
  });

  it('sums all the owner’s chatbots in the summary, a visitor of two chatbots counted once', async () => {
    const { analytics } = await stack.client.getAnalyticsSummary({ ownerId: pro.ownerId, startDate: '2026-03-01', endDate: '2026-03-05' });
    const both = [...proEvents, ...secondEvents].sort((a, b) => a.at.getTime() - b.at.getTime());
    const expected = directCount(both, '2026-03-01', '2026-03-05');
    expect(analytics?.totals).toMatchObject(expected.totals);
    expect(
      analytics?.days.map(({ date, conversations, messages, uniqueVisitors }) => ({ date, conversations, messages, uniqueVisitors })),
    ).toEqual(expected.days);
    expect(analytics?.busiestHours).toEqual(expected.busiestHours);
    // The same question in two chatbots is two groups, one per chatbot.
    const perBot = [
      ...directCount(proEvents, '2026-03-01', '2026-03-05').topQuestions,
      ...directCount(secondEvents, '2026-03-01', '2026-03-05').topQuestions,
    ];
    expect(analytics?.topQuestions.map((q) => q.count)).toEqual(perBot.map((q) => q.count).sort((a, b) => b - a));
  });

  it('gives a free owner the totals only, and an empty range zeros', async () => {
    const free = await stack.newChatbot({ name: 'Free bot' });
    const list = events(free, 30, 3, ['f1', 'f2', 'f3']);
    await seed(list);
    const { analytics } = await stack.client.getAnalytics({
      ownerId: free.ownerId,
      chatbotId: free.id,
      startDate: '2026-03-01',
      endDate: '2026-03-05',
    });
    expect(analytics).toMatchObject({ full: false, days: [], busiestHours: [], topQuestions: [] });
    expect(analytics?.totals).toMatchObject(directCount(list, '2026-03-01', '2026-03-05').totals);
    const summary = await stack.client.getAnalyticsSummary({ ownerId: free.ownerId, startDate: '2026-03-01', endDate: '2026-03-05' });
    expect(summary.analytics).toMatchObject({ full: false, days: [], totals: { messages: 30 } });

    const none = await stack.client.getAnalytics({
      ownerId: free.ownerId,
      chatbotId: free.id,
      startDate: '2025-01-01',
      endDate: '2025-01-31',
    });
    expect(none.analytics?.totals).toMatchObject({ conversations: 0, messages: 0, uniqueVisitors: 0, medianAnswerMs: 0 });
    const nothing = await stack.client.getAnalyticsSummary({ ownerId: 'nobody-at-all' });
    expect(nothing.analytics?.totals?.messages).toBe(0);
  });

  it("answers another owner's chatbot and a malformed id with NOT_FOUND, and a bad range with its message", async () => {
    const other = await stack.newChatbot();
    for (const chatbotId of [other.id, 'not-a-uuid', randomUUID()]) {
      const err = await rpcError(stack.client.getAnalytics({ ownerId: pro.ownerId, chatbotId }));
      expect([err.code, err.rawMessage]).toEqual([Code.NotFound, 'Chatbot not found']);
    }
    const cases = [
      [{ startDate: '03/01/2026', endDate: '2026-03-05' }, 'Dates must be YYYY-MM-DD'],
      [{ startDate: '2026-03-05', endDate: '2026-03-01' }, 'The end date must not be before the start date'],
      [{ startDate: '2025-01-01', endDate: '2026-03-01' }, 'The range can be at most 400 days'],
    ] as const;
    for (const [range, message] of cases) {
      const err = await rpcError(stack.client.getAnalytics({ ownerId: pro.ownerId, chatbotId: pro.id, ...range }));
      expect([err.code, err.rawMessage]).toEqual([Code.InvalidArgument, message]);
      const summaryErr = await rpcError(stack.client.getAnalyticsSummary({ ownerId: pro.ownerId, ...range }));
      expect([summaryErr.code, summaryErr.rawMessage]).toEqual([Code.InvalidArgument, message]);
    }
  });
});

describe('distinct visitors over a range across new years', () => {
  it("equal a direct count, for a chatbot and for the owner's chatbots", async () => {
    const bot = await stack.newChatbot({ name: 'New year bot' });
    await stack.makePro(bot.ownerId);
    const { chatbot } = await stack.chatbots.createChatbot({ ownerId: bot.ownerId, name: 'Second new year bot' });
    const other = { ownerId: bot.ownerId, id: chatbot!.id };
    // Around two new years and between; regulars come on both sides, some to both chatbots.
    const days = ['2025-12-30', '2025-12-31', '2026-01-01', '2026-01-02', '2026-07-01', '2026-12-31', '2027-01-01', '2027-01-02'];
    const botEvents = events(bot, 90, 17, ['n0', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7', 'n8', 'n9'], days);
    const otherEvents = events(other, 40, 19, ['n0', 'n1', 'n2', 'o1', 'o2', 'o3'], days);
    await seed(botEvents);
    await seed(otherEvents);
    const both = [...botEvents, ...otherEvents].sort((a, b) => a.at.getTime() - b.at.getTime());
    const ranges = [
      ['2025-12-31', '2026-01-01'], // two years, a day of each
      ['2025-12-01', '2026-12-31'], // a day of 2025 and the whole of 2026
      ['2025-12-30', '2027-01-01'], // three years
      ['2026-01-02', '2026-12-31'], // one year, partly
      ['2025-12-31', '2025-12-31'], // the last day of a year
    ];
    for (const [startDate, endDate] of ranges) {
      const { analytics } = await stack.client.getAnalytics({ ownerId: bot.ownerId, chatbotId: bot.id, startDate, endDate });
      const expected = directCount(botEvents, startDate, endDate);
      expect(analytics?.totals, `${startDate}..${endDate}`).toMatchObject(expected.totals);
      expect(analytics?.days.map((d) => d.uniqueVisitors)).toEqual(expected.days.map((d) => d.uniqueVisitors));
      const summary = await stack.client.getAnalyticsSummary({ ownerId: bot.ownerId, startDate, endDate });
      const expectedBoth = directCount(both, startDate, endDate);
      expect(summary.analytics?.totals, `summary ${startDate}..${endDate}`).toMatchObject(expectedBoth.totals);
      expect(summary.analytics?.days.map((d) => d.uniqueVisitors)).toEqual(expectedBoth.days.map((d) => d.uniqueVisitors));
    }
  });
});

describe('the most asked questions over a long range', () => {
  it('equal the direct sum of day counts, across several batches of groups', async () => {
    const bot = await stack.newChatbot();
    const next = random(5);
    // 450 groups, many with equal counts, asked over 200 days; the range is the last 120.
    const groups = Array.from({ length: 450 }, (_, i) => {
      const days = new Map<string, number>();
      const asks = 1 + Math.floor(next() ** 3 * 40);
      for (let k = 0; k < asks; k++) {
        const day = isoDay(new Date(Date.UTC(2026, 0, 1) + Math.floor(next() * 200) * DAY_MS));
        days.set(day, (days.get(day) ?? 0) + 1);
      }
      return { id: randomUUID(), question: `question ${i}`, days, total: asks };
    });
    await stack.parts.prisma.questionCluster.createMany({
      data: groups.map((g) => ({
        id: g.id,
        chatbotId: bot.id,
        ownerId: bot.ownerId,
        kind: 'asked',
        question: g.question,
        lexemes: [g.question],
        count: g.total,
      })),
    });
    await stack.parts.prisma.questionClusterDay.createMany({
      data: groups.flatMap((g) => [...g.days].map(([day, count]) => ({ clusterId: g.id, day: new Date(`${day}T00:00:00Z`), count }))),
    });
    const start = new Date(Date.UTC(2026, 0, 1) + 80 * DAY_MS);
    for (const days of [120, 20]) {
      const range = { start, end: new Date(start.getTime() + (days - 1) * DAY_MS), days };
      const direct = groups
        .map((g) => ({
          g,
          count: [...g.days].filter(([d]) => d >= isoDay(range.start) && d <= isoDay(range.end)).reduce((a, [, n]) => a + n, 0),
        }))
        .filter((x) => x.count > 0)
        .sort((a, b) => b.count - a.count || b.g.total - a.g.total || (a.g.id < b.g.id ? -1 : 1))
        .slice(0, 10)
        .map((x) => ({ question: x.g.question, count: x.count }));
      expect(await topAsked(stack.parts.prisma, [bot.id], range)).toEqual(direct);
      expect(await sumAllGroups(stack.parts.prisma, [bot.id], range)).toEqual(direct);
    }
  });
});

describe('the most asked questions as each role reads them', () => {
  const CONTACT = 'Call me on +44 20 7946 0958 or mail jo@example.com about my order';
  const MASKED = 'Call me on [phone] or mail [email] about my order';

  it('are masked for a viewer (questionsRedacted), as typed for an agent and above, chatbot and summary alike', async () => {
    const bot = await stack.newChatbot({ name: 'Contact bot' });
    await stack.makePro(bot.ownerId);
    const at = new Date('2026-03-02T10:00:00Z');
    const asked = (question: string, visitorHash: string): Seeded => ({
      ...events(bot, 1, 23, [visitorHash], ['2026-03-02'])[0],
      question,
      at,
      receivedAt: at,
      occurredAt: at,
      rating: null,
    });
    await seed([asked(CONTACT, 'c1'), asked(CONTACT, 'c2'), asked('Is it open on 2026-12-01 for $10.00?', 'c3')]);
    const range = { ownerId: bot.ownerId, startDate: '2026-03-01', endDate: '2026-03-05' };
    const as = (role: string) => createServiceClient(ChatService, stack.url, { role });

    for (const role of ['owner', 'admin', 'editor', 'agent']) {
      const { analytics } = await as(role).getAnalytics({ ...range, chatbotId: bot.id });
      expect({
        role,
        questions: analytics?.topQuestions.map((q) => [q.question, q.count]),
        redacted: analytics?.questionsRedacted,
      }).toEqual({
        role,
        questions: [
          [CONTACT, 2],
          ['Is it open on 2026-12-01 for $10.00?', 1],
        ],
        redacted: false,
      });
    }
    const viewer = as('viewer');
    for (const { analytics } of [await viewer.getAnalytics({ ...range, chatbotId: bot.id }), await viewer.getAnalyticsSummary(range)]) {
      expect(analytics?.questionsRedacted).toBe(true);
      expect(analytics?.topQuestions.map((q) => [q.question, q.count])).toEqual([
        [MASKED, 2],
        ['Is it open on 2026-12-01 for $10.00?', 1],
      ]);
      // Everything else is the same as an owner reads it.
      expect(analytics?.totals?.messages).toBe(3);
      expect(analytics?.full).toBe(true);
    }
    const { analytics: summary } = await as('owner').getAnalyticsSummary(range);
    expect(summary?.topQuestions[0]?.question).toBe(CONTACT);
  });
});
