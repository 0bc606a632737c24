// A visitor's thumbs on an answer, end to end: the answer's id in the reply (JSON and stream), only
// the visitor's own answers rateable, one rating per message moving the day's counters once, the
// visitor's rate limit, and the ChatbotInteraction events analytics counts from, on its queue alone.
import { createHmac } from 'node:crypto';
import { Queue } from 'bullmq';
import { fromJson, type JsonValue } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatbotInteractionSchema, type ChatbotInteraction } from '@parley/proto/parley/events/v1/chatbot_interaction_pb.js';
import { QUEUES } from '@parley/common/queues.ts';
import { VISITOR_RATE_LIMITED } from '../../src/core/admission.ts';
import { MESSAGE_NOT_FOUND, RATING_INVALID } from '../../src/feedback/rate-message.ts';
import { deleteChatbotConversations } from '../../src/conversations/delete-conversations.ts';
import { rpcError, session, startChatStack, visitor, type ChatStack } from './harness.ts';
import { blockedBy, holdRows } from './held-rows.ts';

let stack: ChatStack;
beforeAll(async () => {
  stack = await startChatStack();
});
afterAll(async () => {
  await stack?.stop();
});

const rating = (uniqueId: string, sessionId: string, messageId: string, value: string, clientIp = '203.0.113.7') => ({
  uniqueId,
  sessionId,
  messageId,
  rating: value,
  clientIp,
});

const stored = (chatbotId: string) =>
  stack.parts.prisma.message.findMany({ where: { conversation: { chatbotId } }, orderBy: { id: 'asc' } });

const day = async (chatbotId: string) => stack.parts.prisma.analyticsDay.findMany({ where: { chatbotId } });

/** What waits in the chatbot service's per-message queue, which the chat service no longer feeds (ADR 23). */
async function perMessageCounterJobs(): Promise<ChatbotInteraction[]> {
  const queue = new Queue(QUEUES.chatbotInteraction, { connection: stack.redis, prefix: stack.prefix });
  try {
    const jobs = await queue.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized']);
    return jobs.map((j) => fromJson(ChatbotInteractionSchema, j.data as JsonValue));
  } finally {
    await queue.close();
  }
}

describe('the answer id', () => {
  it('comes with the JSON reply and the stream, is the stored answer, and can be rated', async () => {
    const bot = await stack.newChatbot({ knowledge: ['The bakery opens at seven in the morning.'] });
    const sessionId = session('fb-id');
    const sent = await stack.client.sendMessage(visitor(bot.uniqueId, 'When does the bakery open?', { sessionId }));
    let done;
    for await (const res of stack.client.streamMessage(visitor(bot.uniqueId, 'Is the bakery open in the morning?', { sessionId })))
      if (res.event.case === 'done') done = res.event.value;
    const messages = await stored(bot.id);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(sent.messageId).toBe(messages[1].id.toString());
    expect(done?.messageId).toBe(messages[3].id.toString());

    for (const messageId of [sent.messageId, done!.messageId]) {
      await expect(stack.client.rateMessage(rating(bot.uniqueId, sessionId, messageId, 'up'))).resolves.toMatchObject({
        messageId,
        rating: 'up',
      });
    }
    const rated = await stored(bot.id);
    expect(rated.map((m) => m.rating)).toEqual([null, 'up', null, 'up']);
    expect(rated[1].ratedAt).toBeInstanceOf(Date);

    // The owner's history shows each message's id and rating.
    await stack.makePro(bot.ownerId);
    const { conversation } = await stack.client.getConversation({
      ownerId: bot.ownerId,
      chatbotId: bot.id,
      conversationId: rated[0].conversationId,
    });
    expect(conversation!.messages.map(({ id, rating }) => ({ id, rating }))).toEqual(
      rated.map((m) => ({ id: m.id.toString(), rating: m.rating ?? '' })),
    );
  });
});

describe('who may rate what', () => {
  it("is only the visitor's own answers: anything else is the same 404, a bad rating a 400", async () => {
    const bot = await stack.newChatbot({ knowledge: ['Parcels ship within two days.'] });
    const other = await stack.newChatbot({ knowledge: ['Parcels ship within two days.'] });
    const sessionId = session('fb-own');
    const { messageId } = await stack.client.sendMessage(visitor(bot.uniqueId, 'When do parcels ship?', { sessionId }));
    const [question] = await stored(bot.id);

    const refused = [
      rating(bot.uniqueId, session('fb-someone-else'), messageId, 'down'), // another visitor's session
      rating(bot.uniqueId, 'not-a-session-id', messageId, 'down'),
      rating(other.uniqueId, sessionId, messageId, 'down'), // another chatbot
      rating(bot.uniqueId, sessionId, question.id.toString(), 'down'), // the visitor's own message, not an answer
      rating(bot.uniqueId, sessionId, (BigInt(messageId) + 1000n).toString(), 'down'), // unknown
      rating(bot.uniqueId, sessionId, 'abc', 'down'),
      rating(bot.uniqueId, sessionId, '-1', 'down'),
      rating(bot.uniqueId, sessionId, '99999999999999999999', 'down'),
    ];
    for (const req of refused) {
      const err = await rpcError(stack.client.rateMessage(req));
      expect({ code: err.code, message: err.rawMessage }).toEqual({ code: Code.NotFound, message: MESSAGE_NOT_FOUND });
    }
    const bad = await rpcError(stack.client.rateMessage(rating(bot.uniqueId, sessionId, messageId, 'meh')));
    expect({ code: bad.code, message: bad.rawMessage }).toEqual({ code: Code.InvalidArgument, message: RATING_INVALID });
    expect((await stored(bot.id)).map((m) => m.rating)).toEqual([null, null]);
    expect((await day(bot.id)).filter((d) => d.thumbsUp || d.thumbsDown)).toEqual([]);
  });
});

describe('one rating per message', () => {
  it('is changeable, moves the counters of the answer’s day once, and files a thumbs down as unanswered', async () => {
    const bot = await stack.newChatbot({ knowledge: ['Gift cards never expire.'] });
    const sessionId = session('fb-once');
    const { messageId } = await stack.client.sendMessage(visitor(bot.uniqueId, 'Do gift cards expire?', { sessionId }));
    const rate = (value: string) => stack.client.rateMessage(rating(bot.uniqueId, sessionId, messageId, value));
    const thumbs = async () => (await day(bot.id)).map(({ thumbsUp, thumbsDown }) => ({ thumbsUp, thumbsDown }));
    const unanswered = () => stack.parts.prisma.questionCluster.findMany({ where: { chatbotId: bot.id, kind: 'unanswered' } });

    await rate('up');
    await rate('up');
    expect(await thumbs()).toEqual([{ thumbsUp: 1, thumbsDown: 0 }]);
    expect(await unanswered()).toEqual([]);

    await Promise.all([rate('down'), rate('down')]);
    expect(await thumbs()).toEqual([{ thumbsUp: 0, thumbsDown: 1 }]);
    const clusters = await unanswered();
    expect(clusters.map(({ question, count }) => ({ question, count }))).toEqual([{ question: 'Do gift cards expire?', count: 1 }]);

    const [answer] = (await stored(bot.id)).filter((m) => m.role === 'assistant');
    expect(answer.rating).toBe('down');
    const [row] = await day(bot.id);
    expect(row.day.toISOString().slice(0, 10)).toBe(answer.createdAt.toISOString().slice(0, 10));
  });
});

describe('a chatbot deleted while an answer is rated', () => {
  it('keeps no rating: the deletion waits for the rating and deletes its figures after it', async () => {
    const bot = await stack.newChatbot({ knowledge: ['The shop closes at six.'] });
    const sessionId = session('fb-deleted');
    const { messageId } = await stack.client.sendMessage(visitor(bot.uniqueId, 'When does the shop close?', { sessionId }));
    const db = stack.parts.prisma;
    // Another transaction holds the answer's row, so the rating stops there, mid-way.
    const held = await holdRows(db, (tx) => tx.$queryRaw`SELECT 1 FROM "Message" WHERE "id" = ${messageId}::bigint FOR UPDATE`);

    const rated = stack.client.rateMessage(rating(bot.uniqueId, sessionId, messageId, 'up'));
    await expect.poll(() => blockedBy(db, [held.pid])).toHaveLength(1);
    const [ratingPid] = await blockedBy(db, [held.pid]);
    const deleting = deleteChatbotConversations({ db }, bot.id);
    await expect.poll(() => blockedBy(db, [held.pid, ratingPid])).toHaveLength(2);
    await held.release();
    await expect(rated).resolves.toMatchObject({ messageId, rating: 'up' });
    await deleting;

    expect(await stored(bot.id)).toEqual([]);
    expect(await day(bot.id)).toEqual([]);
    // Rated again, the deleted chatbot's answer is not found.
    await expect(rpcError(stack.client.rateMessage(rating(bot.uniqueId, sessionId, messageId, 'down')))).resolves.toMatchObject({
      code: Code.NotFound,
    });
  });
});

describe('the rate limit', () => {
  it('counts a rating like a message, with the chat’s message when over it', async () => {
    const { client } = await stack.startChat({ CHAT_RATE_PER_VISITOR: '2' });
    const bot = await stack.newChatbot({ knowledge: ['We deliver on Sundays.'] });
    const sessionId = session('fb-limit');
    const ip = '198.51.100.23';
    const { messageId } = await client.sendMessage(visitor(bot.uniqueId, 'Do you deliver on Sundays?', { sessionId, clientIp: ip }));
    await client.rateMessage(rating(bot.uniqueId, sessionId, messageId, 'up', ip));
    const err = await rpcError(client.rateMessage(rating(bot.uniqueId, sessionId, messageId, 'down', ip)));
    expect({ code: err.code, message: err.rawMessage }).toEqual({ code: Code.ResourceExhausted, message: VISITOR_RATE_LIMITED });
    // Another visitor is not affected.
    await expect(client.sendMessage(visitor(bot.uniqueId, 'Hello?', { clientIp: '198.51.100.24' }))).resolves.toBeDefined();
  });
});

describe('ChatbotInteraction', () => {
  it('goes to the analytics queue alone under the request id, with what analytics needs, marked as counting the interaction', async () => {
    const bot = await stack.newChatbot({ knowledge: ['Refunds are accepted within thirty days with a receipt.'] });
    const sessionId = session('fb-events');
    const before = Date.now();
    await stack.client.sendMessage(visitor(bot.uniqueId, 'Are refunds accepted without a receipt?', { sessionId }));
    const cited = await stack.client.sendMessage(visitor(bot.uniqueId, 'Do you repair bicycles?', { sessionId }));
    expect(cited.sources).toEqual([]);

    const forBot = (events: ChatbotInteraction[]) =>
      events
        .filter((e) => e.chatbotId === bot.id)
        .sort((a, b) => timestampDate(a.receivedAt!).getTime() - timestampDate(b.receivedAt!).getTime());
    const analytics = forBot(await stack.interactionJobs());
    expect(forBot(await perMessageCounterJobs())).toEqual([]);
    expect(analytics.map((e) => ({ question: e.question, answered: e.answered }))).toEqual([
      { question: 'Are refunds accepted without a receipt?', answered: true },
      { question: 'Do you repair bicycles?', answered: false },
    ]);
    const secret = stack.config.SESSION_SECRET;
    for (const e of analytics) {
      expect(e).toMatchObject({
        ownerId: bot.ownerId,
        sessionId,
        visitorHash: createHmac('sha256', secret).update('203.0.113.7').digest('hex'),
        language: 'english',
        interactionsViaAnalytics: true,
      });
      const receivedAt = timestampDate(e.receivedAt!).getTime();
      const occurredAt = timestampDate(e.occurredAt!).getTime();
      expect(receivedAt).toBeGreaterThanOrEqual(before);
      expect(e.answerMs).toBe(occurredAt - receivedAt);
    }
    expect(new Set(analytics.map((e) => e.requestId)).size).toBe(2);
  });
});
