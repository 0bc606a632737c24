// The chatbot's interaction counter end to end (ADR 23): answers → the chat service's analytics
// worker (batches) → one ChatbotInteractionsCounted per chatbot and batch → the chatbot service's
// worker. N answered messages raise the count by exactly N, whatever is delivered again: analytics
// jobs, a counted record the relay publishes a second time, an earlier chat service's event that the
// chatbot service also counts from its per-message queue.
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { create } from '@bufbuild/protobuf';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatbotInteractionSchema, type ChatbotInteraction } from '@parley/proto/parley/events/v1/chatbot_interaction_pb.js';
import { ChatbotInteractionsCountedSchema } from '@parley/proto/parley/events/v1/chatbot_interactions_counted_pb.js';
import { createProducer, QUEUES, type QueueName } from '@parley/common/queues.ts';
import { interactionsCountedPublisher, relayChatbotInteractionsCounted } from '../../src/analytics/chatbot-interactions-counted.outbox.ts';
import { parseAnalyticsEvent, recordAnalyticsBatch } from '../../src/analytics/record-analytics.ts';
import { session, startChatStack, visitor, type ChatStack } from './harness.ts';

let stack: ChatStack;
beforeAll(async () => {
  stack = await startChatStack({}, { chatbotWorkers: true });
});
afterAll(async () => {
  await stack?.stop();
});

const queue = (name: QueueName) => new Queue(name, { connection: stack.redis, prefix: stack.prefix });

/** Every queue between the answer and the counter is empty, and no outbox record waits. */
async function settled(timeoutMs = 20_000) {
  const queues = [QUEUES.chatbotInteractionAnalytics, QUEUES.chatbotInteractionsCounted, QUEUES.chatbotInteraction].map(queue);
  try {
    for (const deadline = Date.now() + timeoutMs; ; await new Promise((r) => setTimeout(r, 50))) {
      const counts = await Promise.all(queues.map((q) => q.getJobCounts('waiting', 'active', 'delayed', 'prioritized')));
      const waiting = await stack.parts.prisma.chatbotInteractionsCountedOutbox.count();
      if (waiting === 0 && counts.every((c) => Object.values(c).every((n) => n === 0))) break;
      if (Date.now() > deadline) throw new Error(`still under way: ${JSON.stringify({ counts, waiting })}`);
    }
    for (const q of queues) expect((await q.getJobs(['failed'])).map((j) => j.failedReason)).toEqual([]);
  } finally {
    await Promise.all(queues.map((q) => q.close()));
  }
}

const counter = async (bot: { id: string; ownerId: string }) => {
  const { chatbot } = await stack.chatbots.getChatbot({ ownerId: bot.ownerId, chatbotId: bot.id });
  return { interactions: chatbot!.interactions, lastInteraction: chatbot!.lastInteraction && timestampDate(chatbot!.lastInteraction) };
};

const latestAnswer = (events: ChatbotInteraction[]) => new Date(Math.max(...events.map((e) => timestampDate(e.occurredAt!).getTime())));

describe("the chatbot's interactions, counted from the analytics batches", () => {
  it('rise by exactly N for N answered messages, however often the analytics jobs are delivered', async () => {
    const bot = await stack.newChatbot({ knowledge: ['We open at nine and close at five.'] });
    const N = 12;
    // Side by side, from several visitors: they land in one or more batches.
    await Promise.all(
      Array.from({ length: N }, (_, i) =>
        stack.client.sendMessage(
          visitor(bot.uniqueId, `When do you open? (${i})`, { sessionId: session(`ic-${i % 4}`), clientIp: `198.51.100.${i % 4}` }),
        ),
      ),
    );
    // An answer's events wait in the chat service's batch before they are queued (EVENT_BATCH_WAIT_MS):
    // the queues can be empty for a moment before the first job, so the count is awaited first.
    await expect.poll(async () => (await counter(bot)).interactions, { timeout: 20_000 }).toBeGreaterThanOrEqual(BigInt(N));
    await settled();
    const events = (await stack.interactionJobs()).filter((e) => e.chatbotId === bot.id);
    expect(events).toHaveLength(N);
    expect(await counter(bot)).toEqual({ interactions: BigInt(N), lastInteraction: latestAnswer(events) });

    // Every analytics job delivered again (under other job ids, so BullMQ runs them): counted once.
    const analytics = createProducer(stack.redis, QUEUES.chatbotInteractionAnalytics, ChatbotInteractionSchema, { prefix: stack.prefix });
    try {
      await Promise.all(events.map((e) => analytics.publish(e, `again-${e.requestId}`)));
    } finally {
      await analytics.close();
    }
    await settled();
    expect(await counter(bot)).toEqual({ interactions: BigInt(N), lastInteraction: latestAnswer(events) });
    const day = await stack.parts.prisma.analyticsDay.findMany({ where: { chatbotId: bot.id } });
    expect(day.reduce((sum, d) => sum + d.messages, 0)).toBe(N);
  });

  it('counts once a record the relay publishes again after its first publish was applied', async () => {
    const bot = await stack.newChatbot({ knowledge: ['Some knowledge.'] });
    const at = new Date('2026-11-20T10:00:00.000Z');
    const events = Array.from({ length: 5 }, (_, i) =>
      parseAnalyticsEvent({
        requestId: randomUUID(),
        chatbotId: bot.id,
        ownerId: bot.ownerId,
        sessionId: `relay-${i}`,
        visitorHash: 'v',
        question: 'Is it open?',
        answered: true,
        answerMs: 100,
        receivedAt: new Date(at.getTime() - 1000 * i),
        occurredAt: new Date(at.getTime() - 1000 * i),
        language: 'english',
        interactionsViaAnalytics: true,
      }),
    );
    // A batch commits; its record is published, but the process stops before removing it.
    await recordAnalyticsBatch(stack.parts.prisma, events);
    const [record] = await stack.parts.prisma.chatbotInteractionsCountedOutbox.findMany({ where: { chatbotId: bot.id } });
    expect(record).toMatchObject({ count: 5, lastInteractionAt: at });
    const producer = createProducer(stack.redis, QUEUES.chatbotInteractionsCounted, ChatbotInteractionsCountedSchema, {
      prefix: stack.prefix,
    });
    const publish = interactionsCountedPublisher(producer);
    const counted = queue(QUEUES.chatbotInteractionsCounted);
    try {
      await publish(record);
      await expect.poll(async () => (await counter(bot)).interactions).toBe(5n);
      // BullMQ forgets the job (past its retention; with the job kept, the same job id would be
      // ignored before the chatbot service's claim is even asked)...
      await expect.poll(() => counted.getJobState(record.id)).toBe('completed');
      await (await counted.getJob(record.id))!.remove();
      // ...and the relay publishes the record again, under the same id, and removes it.
      expect(await relayChatbotInteractionsCounted(stack.parts.prisma, publish, new Date(Date.now() + 1000))).toBe(1);
      await expect.poll(() => counted.getJobState(record.id)).toBe('completed');
      await settled();
      expect(await counter(bot)).toEqual({ interactions: 5n, lastInteraction: at });
    } finally {
      await counted.close();
      await producer.close();
    }
  });

  it("counts once an earlier chat service's message, queued for both the chatbot service and analytics", async () => {
    const bot = await stack.newChatbot({ knowledge: ['Some knowledge.'] });
    const at = new Date('2026-11-21T09:00:00.000Z');
    // What a chat service from before the change publishes, to both queues (no interactions_via_analytics).
    const event = create(ChatbotInteractionSchema, {
      requestId: randomUUID(),
      chatbotId: bot.id,
      ownerId: bot.ownerId,
      sessionId: 'earlier',
      visitorHash: 'v',
      question: 'Is it open?',
      answered: true,
      answerMs: 100,
      receivedAt: timestampFromDate(at),
      occurredAt: timestampFromDate(at),
      language: 'english',
    });
    const producers = [QUEUES.chatbotInteraction, QUEUES.chatbotInteractionAnalytics].map((name) =>
      createProducer(stack.redis, name, ChatbotInteractionSchema, { prefix: stack.prefix }),
    );
    try {
      await Promise.all(producers.map((p) => p.publish(event, event.requestId)));
    } finally {
      await Promise.all(producers.map((p) => p.close()));
    }
    await settled();
    expect(await counter(bot)).toEqual({ interactions: 1n, lastInteraction: at });
    expect((await stack.parts.prisma.analyticsDay.findFirstOrThrow({ where: { chatbotId: bot.id } })).messages).toBe(1);
  });
});
