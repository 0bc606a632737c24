// The owner insights' views and GraphQL wiring, pure (services faked): the analytics range and its 30-day
// default, the answered share, the unanswered-question and message views, and the open-question
// counter of a list of chatbots resolved with ONE CountUnansweredQuestions call per request.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { Request } from 'express';
import { graphql } from 'graphql';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { describe, expect, it } from 'vitest';
import {
  AnalyticsSchema,
  ChatMessageSchema,
  ConversationSchema,
  UnansweredQuestionSchema,
  type GetAnalyticsRequest,
} from '@parley/proto/parley/chat/v1/chat_pb.js';
import { ChatbotSchema } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { createLogger } from '@parley/common/logger.ts';
import { Code, ConnectError } from '@parley/common/rpc-errors.ts';
import { analyticsRange, analyticsView, answeredShare, BAD_DATES_MESSAGE } from '../analytics.ts';
import type { Clients } from '../../../http/clients.ts';
import { graphQLContext } from '../../../http/context.ts';
import { conversationView, restConversation } from '../../conversations/conversations.ts';
import { loadTypeDefs, resolvers } from '../../../http/graphql.ts';
import { unansweredQuestionView } from '../../unanswered-questions/unanswered-questions.ts';

const now = new Date('2026-03-10T23:59:59.999Z');

describe('analyticsRange', () => {
  it('defaults to the last 30 UTC days, today included', () => {
    expect(analyticsRange({}, now)).toEqual({ startDate: '2026-02-09', endDate: '2026-03-10' });
    expect(analyticsRange({ startDate: null, endDate: ' ' }, now)).toEqual({ startDate: '2026-02-09', endDate: '2026-03-10' });
    expect(analyticsRange({ startDate: ' 2026-03-01 ' }, now)).toEqual({ startDate: '2026-03-01', endDate: '2026-03-10' });
  });

  it('fills a missing start from the given end (30 days, leap day included), a missing end with today', () => {
    expect(analyticsRange({ endDate: '2024-03-01' }, now)).toEqual({ startDate: '2024-02-01', endDate: '2024-03-01' });
    expect(analyticsRange({ startDate: '2026-01-01' }, now)).toEqual({ startDate: '2026-01-01', endDate: '2026-03-10' });
  });

  it('passes dates through as typed for the chat service to judge', () => {
    expect(analyticsRange({ startDate: '2026-03-05', endDate: '2026-03-01' }, now)).toEqual({
      startDate: '2026-03-05',
      endDate: '2026-03-01',
    });
    expect(analyticsRange({ startDate: 'yesterday', endDate: '2026-02-30' }, now)).toEqual({
      startDate: 'yesterday',
      endDate: '2026-02-30',
    });
    // An end that is no date leaves the start at the default (the end is refused anyway).
    expect(analyticsRange({ endDate: 'soon' }, now)).toEqual({ startDate: '2026-02-09', endDate: 'soon' });
  });

  it('refuses a value that is not text (a repeated query key)', () => {
    expect(() => analyticsRange({ startDate: ['2026-01-01', '2026-01-02'] }, now)).toThrow(BAD_DATES_MESSAGE);
    expect(() => analyticsRange({ endDate: { a: '1' } }, now)).toThrow(BAD_DATES_MESSAGE);
  });
});

describe('analyticsView', () => {
  const range = { startDate: '2026-03-01', endDate: '2026-03-02' };

  it('echoes the range, copies the figures and works out the answered share', () => {
    const analytics = create(AnalyticsSchema, {
      totals: { conversations: 2, messages: 4, uniqueVisitors: 2, answered: 3, thumbsUp: 1, thumbsDown: 1, medianAnswerMs: 750 },
      full: true,
      days: [
        { date: '2026-03-01', conversations: 2, messages: 4, uniqueVisitors: 2 },
        { date: '2026-03-02', conversations: 0, messages: 0, uniqueVisitors: 0 },
      ],
      busiestHours: Array.from({ length: 24 }, (_, h) => (h === 9 ? 4 : 0)),
      topQuestions: [{ question: 'When are you open?', count: 3 }],
    });
    expect(analyticsView(range, analytics)).toEqual({
      startDate: '2026-03-01',
      endDate: '2026-03-02',
      totals: {
        conversations: 2,
        messages: 4,
        uniqueVisitors: 2,
        answered: 3,
        answeredShare: 0.75,
        thumbsUp: 1,
        thumbsDown: 1,
        medianAnswerMs: 750,
      },
      full: true,
      days: [
        { date: '2026-03-01', conversations: 2, messages: 4, uniqueVisitors: 2 },
        { date: '2026-03-02', conversations: 0, messages: 0, uniqueVisitors: 0 },
      ],
      busiestHours: Array.from({ length: 24 }, (_, h) => (h === 9 ? 4 : 0)),
      topQuestions: [{ question: 'When are you open?', count: 3 }],
      questionsRedacted: false,
    });
  });

  it("says whether the chat service masked the questions' contact details, and passes them as it gave them", () => {
    const analytics = create(AnalyticsSchema, {
      totals: {},
      full: true,
      topQuestions: [{ question: 'Call me on [phone] or mail [email]', count: 2 }],
      questionsRedacted: true,
    });
    expect(analyticsView(range, analytics)).toMatchObject({
      topQuestions: [{ question: 'Call me on [phone] or mail [email]', count: 2 }],
      questionsRedacted: true,
    });
  });

  it('a free owner gets the totals and empty lists; no messages is a share of 0', () => {
    const view = analyticsView(range, create(AnalyticsSchema, { totals: {}, full: false }));
    expect(view).toMatchObject({ full: false, days: [], busiestHours: [], topQuestions: [], questionsRedacted: false });
    expect(view.totals.answeredShare).toBe(0);
    expect(answeredShare(0, 0)).toBe(0);
    expect(answeredShare(1, 3)).toBeCloseTo(1 / 3);
  });

  it('missing figures are a contract violation, not a user error', () => {
    expect(() => analyticsView(range, undefined)).toThrow(ConnectError);
    expect(() => analyticsView(range, create(AnalyticsSchema, {}))).toThrow(/no analytics/);
  });
});

describe('unansweredQuestionView', () => {
  const lastSeen = new Date('2026-03-09T08:07:06.005Z');
  it('shows a group with its examples, last seen as ISO and no answer entry until resolved', () => {
    const q = create(UnansweredQuestionSchema, {
      id: 'q1',
      question: 'Do you ship to Canada?',
      count: 3,
      examples: ['ship to canada?', 'Do you ship to Canada?'],
      lastSeen: timestampFromDate(lastSeen),
      status: 'open',
    });
    expect(unansweredQuestionView(q)).toEqual({
      id: 'q1',
      question: 'Do you ship to Canada?',
      count: 3,
      examples: ['ship to canada?', 'Do you ship to Canada?'],
      lastSeen: lastSeen.toISOString(),
      status: 'open',
      answerEntryId: null,
      reason: null,
    });
    expect(unansweredQuestionView({ ...q, status: 'resolved', answerEntryId: 'e9' })).toMatchObject({
      status: 'resolved',
      answerEntryId: 'e9',
    });
  });
});

describe('conversation messages', () => {
  it('carry their id, rating (null when not rated), cited sources (url only when there is one) and the model that answered', () => {
    const at = timestampFromDate(new Date('2026-03-01T10:00:00.000Z'));
    const conversation = create(ConversationSchema, {
      id: 'c1',
      sessionId: 's1',
      createdAt: at,
      updatedAt: at,
      messageCount: 3,
      messages: [
        create(ChatMessageSchema, { id: '11', role: 'user', content: 'Hi', timestamp: at }),
        create(ChatMessageSchema, {
          id: '12',
          role: 'assistant',
          content: 'Hello [1][2]',
          timestamp: at,
          rating: 'down',
          sources: [
            { entryId: 'e1', title: 'Guide.pdf', url: '' },
            { entryId: 'e2', title: 'Shipping', url: 'https://shop.example.com/shipping' },
          ],
          answeredBy: { id: 'gemini-2.5-flash', displayName: 'Gemini 2.5 Flash', provider: 'gemini' },
          fallback: true,
        }),
        create(ChatMessageSchema, {
          id: '16',
          role: 'assistant',
          content: 'From a model since removed',
          timestamp: at,
          answeredBy: { id: 'llama-old', displayName: '', provider: 'openai' },
        }),
        create(ChatMessageSchema, { role: 'assistant', content: 'Old', timestamp: at }),
        create(ChatMessageSchema, { id: '13', role: 'agent', content: 'Ada here', authorName: 'Ada', timestamp: at }),
        create(ChatMessageSchema, { id: '14', role: 'note', content: 'Refund due', authorName: 'Ada', timestamp: at }),
        create(ChatMessageSchema, { id: '15', role: 'tool', content: 'Later role', timestamp: at }),
      ],
    });
    expect(restConversation(conversationView(conversation)).messages).toEqual([
      {
        id: '11',
        role: 'user',
        content: 'Hi',
        authorName: null,
        timestamp: '2026-03-01T10:00:00.000Z',
        rating: null,
        sources: [],
        model: null,
        fallback: false,
      },
      {
        id: '12',
        role: 'assistant',
        content: 'Hello [1][2]',
        authorName: null,
        timestamp: '2026-03-01T10:00:00.000Z',
        rating: 'down',
        sources: [
          { entryId: 'e1', title: 'Guide.pdf' },
          { entryId: 'e2', title: 'Shipping', url: 'https://shop.example.com/shipping' },
        ],
        model: { id: 'gemini-2.5-flash', displayName: 'Gemini 2.5 Flash', provider: 'gemini' },
        fallback: true,
      },
      {
        id: '16',
        role: 'assistant',
        content: 'From a model since removed',
        authorName: null,
        timestamp: '2026-03-01T10:00:00.000Z',
        rating: null,
        sources: [],
        model: { id: 'llama-old', displayName: 'llama-old', provider: 'openai' },
        fallback: false,
      },
      {
        id: null,
        role: 'assistant',
        content: 'Old',
        authorName: null,
        timestamp: '2026-03-01T10:00:00.000Z',
        rating: null,
        sources: [],
        model: null,
        fallback: false,
      },
      // A member's reply and note keep their roles and author; a role not known yet reads as the product's.
      {
        id: '13',
        role: 'agent',
        content: 'Ada here',
        authorName: 'Ada',
        timestamp: '2026-03-01T10:00:00.000Z',
        rating: null,
        sources: [],
        model: null,
        fallback: false,
      },
      {
        id: '14',
        role: 'note',
        content: 'Refund due',
        authorName: 'Ada',
        timestamp: '2026-03-01T10:00:00.000Z',
        rating: null,
        sources: [],
        model: null,
        fallback: false,
      },
      {
        id: '15',
        role: 'system',
        content: 'Later role',
        authorName: null,
        timestamp: '2026-03-01T10:00:00.000Z',
        rating: null,
        sources: [],
        model: null,
        fallback: false,
      },
    ]);
  });
});

describe('GraphQL', () => {
  const schema = makeExecutableSchema({ typeDefs: loadTypeDefs(), resolvers });
  const logger = createLogger('insight-views-test', 'silent');
  const request = { header: (name: string) => (name === 'authorization' ? 'Bearer owner-token' : undefined), ip: '203.0.113.7' } as Request;
  const ts = timestampFromDate(new Date('2026-01-01T00:00:00.000Z'));
  const chatbot = (id: string) =>
    create(ChatbotSchema, { id, uniqueId: `u-${id}`, name: id, isActive: true, createdAt: ts, updatedAt: ts });

  function fakeClients(count: () => Promise<{ openByChatbot: Record<string, number> }>) {
    const calls = { count: 0, analytics: [] as Partial<GetAnalyticsRequest>[] };
    const clients = {
      auth: { authenticate: async () => ({ user: { id: 'owner-1' }, workspace: { id: 'owner-1', role: 'owner' } }) },
      chatbot: { listChatbots: async () => ({ chatbots: ['a', 'b', 'c'].map(chatbot) }) },
      chat: {
        countUnansweredQuestions: async (req: { ownerId: string }) => {
          calls.count++;
          expect(req.ownerId).toBe('owner-1');
          return count();
        },
        getAnalytics: async (req: GetAnalyticsRequest) => {
          calls.analytics.push(req);
          return { analytics: create(AnalyticsSchema, { totals: { messages: 4, answered: 1 }, full: false }) };
        },
      },
    } as unknown as Clients;
    return { clients, calls };
  }

  const run = (clients: Clients, source: string) =>
    graphql({ schema, source, contextValue: graphQLContext(request, clients, logger, 'http://localhost:8080') });

  it('resolves openUnansweredQuestions for a whole list with one CountUnansweredQuestions call', async () => {
    const { clients, calls } = fakeClients(async () => ({ openByChatbot: { a: 3, c: 1 } }));
    const res = await run(clients, '{ chatbots { id openUnansweredQuestions } again: chatbots { id openUnansweredQuestions } }');
    expect(res.errors).toBeUndefined();
    expect(res.data?.chatbots).toEqual([
      { id: 'a', openUnansweredQuestions: 3 },
      { id: 'b', openUnansweredQuestions: 0 },
      { id: 'c', openUnansweredQuestions: 1 },
    ]);
    expect(res.data?.again).toEqual(res.data?.chatbots);
    expect(calls.count).toBe(1);
  });

  it('a counter that cannot be read shows 0 rather than failing the list', async () => {
    const { clients, calls } = fakeClients(async () => {
      throw new ConnectError('chat is down', Code.Unavailable);
    });
    const res = await run(clients, '{ chatbots { id openUnansweredQuestions } }');
    expect(res.errors).toBeUndefined();
    expect(res.data?.chatbots).toEqual(['a', 'b', 'c'].map((id) => ({ id, openUnansweredQuestions: 0 })));
    expect(calls.count).toBe(1);
  });

  it('analytics asks for the default range and echoes exactly the dates it asked for', async () => {
    const { clients, calls } = fakeClients(async () => ({ openByChatbot: {} }));
    const res = await run(
      clients,
      '{ analytics(chatbotId: "a") { startDate endDate full totals { messages answered answeredShare } days { date } } }',
    );
    expect(res.errors).toBeUndefined();
    const [sent] = calls.analytics;
    expect(sent).toMatchObject({ ownerId: 'owner-1', chatbotId: 'a' });
    const analytics = res.data?.analytics as any;
    expect({ startDate: analytics.startDate, endDate: analytics.endDate }).toEqual({ startDate: sent!.startDate, endDate: sent!.endDate });
    expect(analytics.endDate).toBe(new Date().toISOString().slice(0, 10));
    expect((Date.parse(analytics.endDate) - Date.parse(analytics.startDate)) / 86_400_000).toBe(29);
    expect(analytics).toMatchObject({ full: false, totals: { messages: 4, answered: 1, answeredShare: 0.25 }, days: [] });
  });
});
