// A deleted account's conversations, through the real AccountDeleted queue into the real database
// and Redis: every conversation of the owner's chatbots goes with its messages and the recent turns
// kept for it, by the same rule as a ChatbotDeleted event; another owner's stay; repeated,
// concurrent and retried deliveries end the same way.
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { AccountDeletedSchema } from '@parley/proto/parley/events/v1/account_deleted_pb.js';
import { ChatbotDeletedSchema } from '@parley/proto/parley/events/v1/chatbot_deleted_pb.js';
import { createProducer, QUEUES, type Producer } from '@parley/common/queues.ts';
import { jobSettled } from '@parley/common/testing/jobs.ts';
import { deleteOwnerConversations } from '../../src/conversations/delete-owner-conversations.ts';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { redisRecentTurns } from '../../src/public-chat/recent-turns.ts';
import { sendMessage } from '../../src/public-chat/send-message.ts';
import { session, startChatStack, visitor, type ChatStack } from './harness.ts';

let stack: ChatStack;
let accountDeleted: Producer<typeof AccountDeletedSchema>;
let chatbotDeleted: Producer<typeof ChatbotDeletedSchema>;

beforeAll(async () => {
  stack = await startChatStack();
  accountDeleted = createProducer(stack.redis, QUEUES.accountDeletedChat, AccountDeletedSchema, { prefix: stack.prefix });
  chatbotDeleted = createProducer(stack.redis, QUEUES.chatbotDeleted, ChatbotDeletedSchema, { prefix: stack.prefix });
});

afterAll(async () => {
  await accountDeleted?.close();
  await chatbotDeleted?.close();
  await stack?.stop();
});

/** Publishes AccountDeleted under `jobId` and waits for the chat service worker's attempt at it. */
async function deliver(userId: string, jobId: string) {
  const settled = jobSettled(stack.parts.accountDeletedWorker!, jobId);
  await accountDeleted.publish(create(AccountDeletedSchema, { userId, occurredAt: timestampFromDate(new Date()) }), jobId);
  return settled;
}

interface Conversation {
  chatbotId: string;
  label: string;
}

/**
 * An owner with `chatbots` chatbots (pro plan beyond the first), each with two visitors' answered
 * conversations, so each has stored messages and recent turns kept in Redis.
 */
async function ownerWithConversations(name: string, chatbots: number) {
  const first = await stack.newChatbot({ name: `${name} 0`, knowledge: ['We open at nine.'] });
  const ownerId = first.ownerId;
  const bots = [{ id: first.id, uniqueId: first.uniqueId }];
  if (chatbots > 1) await stack.makePro(ownerId);
  for (let i = 1; i < chatbots; i++) {
    const { chatbot } = await stack.chatbots.createChatbot({ ownerId, name: `${name} ${i}` });
    await stack.chatbots.addTextEntry({ ownerId, chatbotId: chatbot!.id, text: 'We close at six.' });
    bots.push({ id: chatbot!.id, uniqueId: chatbot!.uniqueId });
  }
  const conversations: Conversation[] = [];
  for (const bot of bots) {
    for (const visitorNo of [1, 2]) {
      const label = `${name}-${bot.id}-${visitorNo}`;
      await sendMessage(stack.parts.deps, visitor(bot.uniqueId, 'When do you open?', { sessionId: session(label) }));
      conversations.push({ chatbotId: bot.id, label });
    }
  }
  await analyticsCounted();
  return { ownerId, chatbotIds: bots.map((b) => b.id), conversations };
}

/**
 * Waits until the analytics worker has counted every queued answer, so each deletion below meets
 * settled figures (a batch in flight while a chatbot is deleted has its own test in
 * record-analytics.test.ts); these tests are about the deletion and its retry.
 */
async function analyticsCounted() {
  const queue = new Queue(QUEUES.chatbotInteractionAnalytics, { connection: stack.redis, prefix: stack.prefix });
  try {
    for (const deadline = Date.now() + 15_000; ; await new Promise((r) => setTimeout(r, 50))) {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      if (Object.values(counts).every((n) => n === 0)) return;
      if (Date.now() > deadline) throw new Error('the analytics worker did not catch up');
    }
  } finally {
    await queue.close();
  }
}

/** What the database and Redis hold of these conversations. */
async function held(conversations: Conversation[]) {
  const where = { OR: conversations.map((c) => ({ chatbotId: c.chatbotId, sessionId: session(c.label) })) };
  const stored = await stack.parts.prisma.conversation.findMany({ where, select: { id: true } });
  const keys = conversations.map((c) => redisKeys(stack.prefix).chatTurns(c.chatbotId, session(c.label)));
  return {
    conversations: stored.length,
    messages: await stack.parts.prisma.message.count({ where: { conversation: where } }),
    recentTurns: keys.length ? await stack.redis.exists(...keys) : 0,
  };
}

const nothing = { conversations: 0, messages: 0, recentTurns: 0 };

describe('AccountDeleted', () => {
  it("removes the conversations, messages and recent turns of all the owner's chatbots, and no other owner's", async () => {
    const gone = await ownerWithConversations('leaving', 2);
    const kept = await ownerWithConversations('staying', 1);
    expect(await held(gone.conversations)).toEqual({ conversations: 4, messages: 8, recentTurns: 4 });
    const keptBefore = await held(kept.conversations);
    expect(keptBefore).toEqual({ conversations: 2, messages: 4, recentTurns: 2 });

    const settled = await deliver(gone.ownerId, `account-deleted.${gone.ownerId}`);

    expect(settled.state).toBe('completed');
    expect(await held(gone.conversations)).toEqual(nothing);
    expect(await stack.parts.prisma.conversation.count({ where: { ownerId: gone.ownerId } })).toBe(0);
    expect(await held(kept.conversations)).toEqual(keptBefore);
  });

  it('ends in the same state when the event is delivered again, and twice at once', async () => {
    const gone = await ownerWithConversations('twice', 2);
    const kept = await ownerWithConversations('bystander', 1);
    const keptBefore = await held(kept.conversations);

    const [a, b] = await Promise.all([
      deliver(gone.ownerId, `account-deleted.${gone.ownerId}.a`),
      deliver(gone.ownerId, `account-deleted.${gone.ownerId}.b`),
    ]);
    expect([a.state, b.state]).toEqual(['completed', 'completed']);
    expect(await held(gone.conversations)).toEqual(nothing);

    expect((await deliver(gone.ownerId, `account-deleted.${gone.ownerId}.c`)).state).toBe('completed');
    expect(await held(gone.conversations)).toEqual(nothing);
    expect(await held(kept.conversations)).toEqual(keptBefore);
  });

  it('finishes on a retry what a failed attempt left, recent turns included', async () => {
    const gone = await ownerWithConversations('retried', 2);
    const real = redisRecentTurns(stack.redis, stack.prefix);
    let calls = 0;
    // Redis fails on the second chatbot, after the first was removed.
    const flaky = {
      forgetChatbot: async (chatbotId: string) => {
        if (++calls === 2) throw new Error('Redis is unreachable');
        return real.forgetChatbot(chatbotId);
      },
    };
    await expect(deleteOwnerConversations({ db: stack.parts.prisma, recentTurns: flaky }, { ownerId: gone.ownerId })).rejects.toThrow(
      'Redis is unreachable',
    );
    expect(await held(gone.conversations)).toEqual({ conversations: 2, messages: 4, recentTurns: 2 });

    // The retry still finds the chatbot whose turns were not forgotten, through its conversations.
    expect(await deleteOwnerConversations({ db: stack.parts.prisma, recentTurns: real }, { ownerId: gone.ownerId })).toEqual({
      chatbots: 1,
      conversations: 2,
      recentTurns: 2,
    });
    expect(await held(gone.conversations)).toEqual(nothing);
  });

  it('applies the same rule as ChatbotDeleted for one chatbot', async () => {
    const owner = await ownerWithConversations('one-bot', 2);
    const [removed, left] = owner.chatbotIds;
    const settled = jobSettled(stack.parts.chatbotDeletedWorker!, `chatbot-deleted.${removed}`);
    await chatbotDeleted.publish(
      create(ChatbotDeletedSchema, { chatbotId: removed, ownerId: owner.ownerId, occurredAt: timestampFromDate(new Date()) }),
      `chatbot-deleted.${removed}`,
    );
    expect((await settled).state).toBe('completed');

    expect(await held(owner.conversations.filter((c) => c.chatbotId === removed))).toEqual(nothing);
    expect(await held(owner.conversations.filter((c) => c.chatbotId === left))).toEqual({ conversations: 2, messages: 4, recentTurns: 2 });
  });

  it('fails an event without a user id at once, removing nothing', async () => {
    const kept = await ownerWithConversations('blank', 1);
    const before = await held(kept.conversations);

    const settled = await deliver(' ', 'account-deleted.blank');

    expect(settled.state).toBe('failed');
    expect(settled.error?.message).toBe('AccountDeleted not applied: user_id is required.');
    expect(await settled.job.getState()).toBe('failed');
    expect(await held(kept.conversations)).toEqual(before);
  });
});
